"""The GitHub Actions workflows are valid (actionlint, offline) and publish what we test."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from nbcommon import ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def _actionlint():
    here = Path(sys.executable).parent / "actionlint"
    return str(here) if here.exists() else shutil.which("actionlint")


def test_there_is_a_publishing_workflow():
    assert WORKFLOWS, "no workflow in .github/workflows"
    text = "\n".join(p.read_text(encoding="utf-8") for p in WORKFLOWS)
    assert "make test" in text, "the workflow runs the same verification as CI"
    assert "actions/deploy-pages" in text and "upload-pages-artifact" in text


def test_actionlint_finds_nothing():
    exe = _actionlint()
    if exe is None:
        pytest.skip("actionlint is not installed (pip install -r requirements.txt)")
    # -shellcheck= and -pyflakes= : lint without calling tools that may not be installed
    result = subprocess.run([exe, "-shellcheck=", "-pyflakes=", *map(str, WORKFLOWS)],
                            capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
