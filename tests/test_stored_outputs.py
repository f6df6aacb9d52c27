"""nbval compares stored outputs, but a notebook stored without outputs passes while
comparing nothing. These tests make sure every notebook nbval sees was really executed
top to bottom in one fresh kernel, and that only volatile cells escape the comparison."""
import pytest

from nbcommon import NOTEBOOKS, SOLUTIONS, chapter_notebooks, read, tags

EXECUTED = chapter_notebooks(NOTEBOOKS) + chapter_notebooks(SOLUTIONS)
IGNORE = "# NBVAL_IGNORE_OUTPUT"


def code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]


@pytest.mark.parametrize("path", EXECUTED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_executed_top_to_bottom(path):
    cells = code_cells(read(path))
    assert cells, "a notebook without code cells"
    counts = [c.execution_count for c in cells]
    assert counts == list(range(1, len(cells) + 1)), (
        f"execution counts {counts[:8]}...: run `make refresh NB={path.parent.name}/{path.name}`")


@pytest.mark.parametrize("path", EXECUTED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_errors_only_where_tagged(path):
    for i, cell in enumerate(code_cells(read(path))):
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if "raises-exception" in tags(cell):
            assert errors, f"code cell {i} is tagged raises-exception but raised nothing"
        else:
            assert not errors, f"code cell {i} stored an error: {errors[0].get('ename')}"


@pytest.mark.parametrize("path", EXECUTED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_few_cells_escape_comparison(path):
    cells = code_cells(read(path))
    ignored = [c for c in cells if IGNORE in c.source]
    # timings and versions only: a handful per notebook at most
    assert len(ignored) <= max(3, len(cells) // 10), f"{len(ignored)} cells ignore their output"
    for c in ignored:
        assert c.source.lstrip().startswith(IGNORE), "the marker must be the first line"


@pytest.mark.parametrize("path", EXECUTED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_cells_assert_something(path):
    """A notebook that checks nothing is a defect: chapters assert their claims."""
    source = "\n".join(c.source for c in code_cells(read(path)))
    assert source.count("assert") >= 3
