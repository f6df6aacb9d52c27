"""Exercise integrity: every check must fail on the untouched stub and pass on the solution.

The exercise notebooks are run as a learner who has not started would run them; their
check cells (tagged `check`) must all fail, and fail because they reached the stub's
NotImplementedError. The solutions' check cells pass under nbval, and are required to
run here too without error.
"""
import pytest
from nbclient import NotebookClient

from nbcommon import EXERCISES, SOLUTIONS, chapter_notebooks, missing_requirement, read, tags

PAIRS = [(EXERCISES / p.name, p) for p in chapter_notebooks(SOLUTIONS)]


def run(path):
    nb = read(path)
    # the kernel is stopped, not asked to shut down, once every cell has run: a graceful shutdown
    # of a kernel holding PyTorch took about 0.8 s, waited for and checked by nothing
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
                   shutdown_kernel="immediate",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb


def errors(cell):
    return [o for o in cell.get("outputs", []) if o.output_type == "error"]


@pytest.mark.parametrize("exercise,solution", PAIRS, ids=lambda p: p.name)
def test_checks_fail_on_stubs(exercise, solution):
    if missing_requirement(solution):
        pytest.skip(missing_requirement(solution))
    nb = run(exercise)
    checks = [c for c in nb.cells if c.cell_type == "code" and "check" in tags(c)]
    assert checks, "no check cells"
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        errs = errors(cell)
        if "check" in tags(cell):
            assert errs, f"check cell {i} passed on the untouched stub:\n{cell.source}"
            assert errs[0].ename == "NotImplementedError", (
                f"check cell {i} failed with {errs[0].ename}, not by reaching the stub")
        elif "raises-exception" not in tags(cell):
            assert not errs, f"non-check cell {i} raised {errs[0].ename}: call learner code only in checks"


@pytest.mark.parametrize("exercise,solution", PAIRS, ids=lambda p: p.name)
def test_checks_pass_on_solutions(exercise, solution):
    nb = read(solution)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and "check" in tags(cell):
            assert not errors(cell), f"stored solution check cell {i} failed"
            assert "assert" in cell.source, f"check cell {i} asserts nothing"
