"""nbval compares stored outputs, but a notebook stored without outputs passes while
comparing nothing. These tests make sure every notebook nbval sees was really executed
top to bottom in one fresh kernel, and that only volatile cells escape the comparison."""
import re

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


# A small number printed with its digits (1.1e-16, 3.0e-08) is rounding noise: it differs from
# one CPU to another, so a stored output must either print the verdict of the comparison
# ("agrees to 1e-12") or mark the number as noise with "≈" (attnlab.toolkit.approx), which
# nbval compares by pattern (tools/nbval_sanitize.cfg). Tolerances without a decimal point
# (1e-12) are not matched. book/chapter_contract.md, "Outputs on any CPU".
RAW_NOISE = re.compile(r"(?<![≈\w.+-])[-+]?\d\.\d+e-\d+")   # a sign after ≈ is marked too


def _printed_text(cell) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            parts.append(out.text)
        elif out.output_type in ("execute_result", "display_data"):
            parts.append(str(out.get("data", {}).get("text/plain", "")))
    return "".join(parts)


@pytest.mark.parametrize("path", EXECUTED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_unmarked_rounding_noise_in_outputs(path):
    bad = []
    for i, cell in enumerate(code_cells(read(path))):
        if cell.source.lstrip().startswith(IGNORE):
            continue
        bad += [f"code cell {i}: {m.group(0)!r}" for m in RAW_NOISE.finditer(_printed_text(cell))]
    assert not bad, ("small numbers printed with their digits (rounding noise; print the verdict "
                     "or mark them with approx(): '≈'): " + ", ".join(bad[:8]))


def test_the_noise_pattern_flags_digits_and_spares_tolerances_and_marked_noise():
    assert RAW_NOISE.search("max |diff| = 1.1e-16") and RAW_NOISE.search("gap 3.0e-08,")
    assert RAW_NOISE.search("bias -1.7e-02") and RAW_NOISE.search("(-2.5e-05)")
    for fine in ["agrees to 1e-12", "max |diff| ≈1.1e-16", "tolerance 1e-06", "x1.5e-3y",
                 "kurtosis ≈-1.7e-02"]:
        assert not RAW_NOISE.search(fine), fine


MACHINE_PATH = re.compile(r"(/work/|/tmp/|/root/|/home/|/usr/|site-packages|[A-Z]:\\\\)")


def _all_output_text(cell) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            parts.append(out.text)
        elif out.output_type == "error":
            parts.append("\n".join(out.get("traceback", [])))
        else:
            parts.append(str(out.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


@pytest.mark.parametrize("path", EXECUTED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_machine_path_in_outputs(path):
    """No stored output shows where the notebook ran (a warning's file path, a traceback): it
    would differ on every reader's machine, and nbval would fail on it there."""
    bad = [f"code cell {i}: {m.group(0)!r}" for i, cell in enumerate(read(path).cells)
           if cell.cell_type == "code" for m in [MACHINE_PATH.search(_all_output_text(cell))] if m]
    assert not bad, "outputs that show a machine path: " + ", ".join(bad[:5])


def test_the_machine_path_pattern():
    assert MACHINE_PATH.search("/work/main/.venv/lib/python3.11/site-packages/tqdm/auto.py:21")
    assert MACHINE_PATH.search("/tmp/ciclone/x.py") and not MACHINE_PATH.search("chapter 4/5")
