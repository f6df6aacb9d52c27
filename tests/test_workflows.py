"""The GitHub Actions workflows are valid and publish what we test.

Validity: `check-jsonschema` with the GitHub-workflow schema that it ships (offline, no
download), plus the cross-references a schema cannot see: every `needs:` names a job, and
every `steps.<id>` expression names a step of the same job.
"""
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from nbcommon import ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def _check_jsonschema():
    here = Path(sys.executable).parent / "check-jsonschema"
    return str(here) if here.exists() else shutil.which("check-jsonschema")


def _validate(paths):
    exe = _check_jsonschema()
    if exe is None:
        pytest.skip("check-jsonschema is not installed (pip install -r requirements.txt)")
    return subprocess.run([exe, "--builtin-schema", "vendor.github-workflows", *map(str, paths)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


def _cross_reference_errors(workflow: dict) -> list[str]:
    errors = []
    jobs = workflow.get("jobs", {})
    for name, job in jobs.items():
        needs = job.get("needs", [])
        for need in [needs] if isinstance(needs, str) else needs:
            if need not in jobs:
                errors.append(f"job {name!r} needs {need!r}, which is not a job")
        ids = {step.get("id") for step in job.get("steps", [])}
        for used in re.findall(r"steps\.([A-Za-z0-9_-]+)\.", yaml.safe_dump(job)):
            if used not in ids:
                errors.append(f"job {name!r} refers to steps.{used}, which is not one of its steps")
    return errors


def test_there_is_a_publishing_workflow():
    assert WORKFLOWS, "no workflow in .github/workflows"
    text = "\n".join(p.read_text(encoding="utf-8") for p in WORKFLOWS)
    assert "make test" in text, "the workflow runs the same verification as CI"
    assert "actions/deploy-pages" in text and "upload-pages-artifact" in text


def test_workflows_match_the_github_schema():
    result = _validate(WORKFLOWS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_workflows_cross_references_resolve():
    for path in WORKFLOWS:
        errors = _cross_reference_errors(yaml.safe_load(path.read_text(encoding="utf-8")))
        assert not errors, f"{path.name}: {errors}"


def test_the_checks_catch_a_broken_workflow(tmp_path):
    """The validation can fail: a misspelt key, a job that needs a missing job, a bad step id."""
    good = yaml.safe_load(WORKFLOWS[0].read_text(encoding="utf-8"))
    bad = tmp_path / "bad.yml"
    bad.write_text(WORKFLOWS[0].read_text(encoding="utf-8").replace("runs-on:", "runs_on:", 1))
    assert _validate([bad]).returncode != 0, "a misspelt key passed the schema"
    broken = dict(good, jobs={k: dict(v) for k, v in good["jobs"].items()})
    last = list(broken["jobs"])[-1]
    broken["jobs"][last]["needs"] = "no-such-job"
    broken["jobs"][last]["environment"] = {"url": "${{ steps.nowhere.outputs.page_url }}"}
    errors = _cross_reference_errors(broken)
    assert any("no-such-job" in e for e in errors) and any("steps.nowhere" in e for e in errors)
