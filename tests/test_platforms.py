"""Chapter 18 needs Triton, which installs on Linux x86-64 only; nothing else may need it.

Where Triton is missing, `make test` skips the checks that execute chapter 18 and says why
(tools/nbcommon.py NEEDS, conftest.py); these tests hide Triton from a fresh interpreter and
check both halves of that promise.
"""
import subprocess
import sys

from nbcommon import NEEDS, NOTEBOOKS, PACKAGE, ROOT, chapter_notebooks, missing_requirement, read

# A finder placed first on sys.meta_path that refuses to import triton, as on macOS or Windows.
HIDE_TRITON = """
import sys
class _NoTriton:
    def find_spec(self, name, path=None, target=None):
        if name == "triton" or name.startswith("triton."):
            raise ModuleNotFoundError("No module named 'triton' (hidden by the test)")
sys.meta_path.insert(0, _NoTriton())
"""


def run_hidden(code, timeout=300):
    return subprocess.run([sys.executable, "-c", HIDE_TRITON + code], cwd=ROOT, text=True,
                          capture_output=True, timeout=timeout)


def test_only_chapter_18_needs_triton():
    assert set(NEEDS) == {"18_kernels"}
    users = [p.name for p in chapter_notebooks(NOTEBOOKS)
             if any("import triton" in c.source for c in read(p).cells)]
    assert users == ["18_kernels.ipynb"], users
    modules = sorted(p.stem for p in PACKAGE.glob("*.py")
                     if p.stem not in ("__init__", "kernels"))
    result = run_hidden("import importlib\n"
                        f"for m in {modules!r}: importlib.import_module('attnlab.' + m)\n"
                        "print('imported', len(" + repr(modules) + "))")
    assert result.returncode == 0, result.stderr[-2000:]
    assert f"imported {len(modules)}" in result.stdout


def test_chapter_18_is_skipped_with_its_reason_without_triton():
    result = run_hidden(
        "import pytest\n"
        "sys.exit(pytest.main(['--nbval', '--nbval-current-env', '-p', 'no:cacheprovider',"
        " '-q', '-rs', 'notebooks/18_kernels.ipynb', 'solutions/18_kernels.ipynb',"
        " 'tests/test_exercises.py', '-k', '18_kernels and not pass_on_solutions']"
        " + __import__('glob').glob('tests/test_kernels_*.py')))\n")
    out = result.stdout
    assert result.returncode == 0, out[-3000:] + result.stderr[-2000:]
    assert "passed" not in out.splitlines()[-1] and "failed" not in out.splitlines()[-1], out[-500:]
    assert "Linux on x86-64" in out and "`triton` is not installed here" in out, out[-2000:]


def test_missing_requirement_names_the_reason(monkeypatch):
    import importlib.util
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "triton" else real(name, *a))
    assert "Linux on x86-64" in missing_requirement(NOTEBOOKS / "18_kernels.ipynb")
    assert missing_requirement(NOTEBOOKS / "13_flash_attention.ipynb") is None
