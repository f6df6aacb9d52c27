"""The Makefile finds a supported Python, and says which versions it needs when it finds none.

The checks run `make` with a PATH that holds only a stand-in `python3`, in a scratch copy of
the Makefile (so the project's .venv is never touched).
"""
import os
import shutil
import subprocess
import sys

import pytest

from nbcommon import ROOT

MAKE = shutil.which("make")


def _make(tmp_path, bin_dir, *args):
    for name in ("Makefile", "requirements.txt", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    env = dict(os.environ, PATH=str(bin_dir))
    return subprocess.run([MAKE, "--no-print-directory", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)


def _fake_python(bin_dir, version):
    """A `python3` that runs this interpreter but reports `version` (e.g. (3, 10))."""
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / "python3"
    script.write_text(
        "#!/bin/sh\n"
        f'exec "{sys.executable}" -c "import sys; sys.version_info = {tuple(version)!r} + (0,); '
        'import platform; platform.python_version = lambda: \'.\'.join(map(str, sys.version_info[:3])); '
        'exec(sys.argv[1])" "$2"\n')
    script.chmod(0o755)
    return bin_dir


pytestmark = pytest.mark.skipif(MAKE is None, reason="make is not installed")


def test_an_unsupported_python3_is_named_with_the_supported_versions(tmp_path):
    result = _make(tmp_path, _fake_python(tmp_path / "bin", (3, 10)), "venv", "PYTHON=python3")
    assert result.returncode != 0
    assert "python3 is Python 3.10.0; this book needs 3.11, 3.12 or 3.13" in result.stderr


def test_no_supported_python_says_which_versions_to_install(tmp_path):
    result = _make(tmp_path, _fake_python(tmp_path / "bin", (3, 10)), "venv")
    assert result.returncode != 0
    assert "no supported Python found" in result.stderr and "3.11, 3.12 or 3.13" in result.stderr


def test_a_supported_python3_is_picked_when_python311_is_missing(tmp_path):
    bin_dir = _fake_python(tmp_path / "bin", (3, 12))
    result = _make(tmp_path, bin_dir, "-n", "venv")      # -n: print the commands, run none
    assert result.returncode == 0, result.stderr
    assert "python3 -m venv .venv" in result.stdout


def test_make_lab_adds_allow_root_only_for_root(tmp_path):
    bin_dir = _fake_python(tmp_path / "bin", (3, 11))
    (bin_dir / "id").symlink_to(shutil.which("id"))
    result = _make(tmp_path, bin_dir, "-n", "lab")
    assert ("--allow-root" in result.stdout) == (os.getuid() == 0), result.stdout
