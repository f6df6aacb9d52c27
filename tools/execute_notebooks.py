"""Re-run notebooks top to bottom in fresh kernels and store their outputs in place.

Unlike `nbconvert --execute --inplace`, this writes no timestamps and joins printed
output that the kernel happened to send in several chunks, and it leaves a cell's stored
outputs alone when the cell's source is unchanged and the new outputs differ from them only as
`make test` allows (`keep_unchanged`): numbers after the mark `≈`, the output of a cell marked
`# NBVAL_IGNORE_OUTPUT` (a timing, a version), and a figure whose pixels barely moved. So a
refresh changes the file only where an output really changed.

    python tools/execute_notebooks.py                    # notebooks/ and solutions/
    python tools/execute_notebooks.py notebooks/04_*.ipynb
"""
from __future__ import annotations

import base64
import io
import os
import re
import sys
import time
from pathlib import Path

from nbclient import NotebookClient

from nbcommon import NOTEBOOKS, ROOT, SOLUTIONS, chapter_notebooks, read, write


def merge_streams(outputs: list) -> list:
    """Join consecutive stdout (or stderr) chunks: how the kernel splits them depends on timing."""
    merged = []
    for out in outputs:
        if (merged and out.output_type == "stream" and merged[-1].output_type == "stream"
                and merged[-1].name == out.name):
            merged[-1].text += out.text
        else:
            merged.append(out)
    return merged


NOISE = re.compile(r"(?<=\u2248)-?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?")   # as nbval_sanitize.cfg


def _text(out) -> str | None:
    if out.output_type == "stream":
        return out.text
    if out.output_type in ("execute_result", "display_data"):
        return out.get("data", {}).get("text/plain")
    return None


def _same_picture(a: str, b: str, tolerance=8 / 255, share=0.002) -> bool:
    """Two base64 PNGs of the same size whose pixels differ by more than `tolerance` in under
    `share` of the pixels (antialiasing of a line that moved by a rounding error)."""
    if a == b:
        return True
    import matplotlib.image as mpimg
    import numpy as np
    x, y = (mpimg.imread(io.BytesIO(base64.b64decode(s)), format="png") for s in (a, b))
    if x.shape != y.shape:
        return False
    return float((np.abs(x - y).max(axis=-1) > tolerance).mean()) < share


def _equivalent(old: list, new: list) -> bool:
    """The outputs are the same up to what nbval's sanitizer and the figure tolerance allow."""
    if len(old) != len(new):
        return False
    for a, b in zip(old, new):
        if a.output_type != b.output_type or _text(a) is None and _text(b) is not None:
            return False
        ta, tb = _text(a), _text(b)
        if ta is not None and NOISE.sub("(noise)", ta) != NOISE.sub("(noise)", tb):
            return False
        pa, pb = (o.get("data", {}).get("image/png") for o in (a, b))
        if (pa is None) != (pb is None) or (pa is not None and not _same_picture(pa, pb)):
            return False
        if a.output_type == "error" and (a.ename, a.evalue) != (b.ename, b.evalue):
            return False
    return True


def keep_unchanged(old_nb, new_nb) -> int:
    """Put back the stored outputs of every code cell whose source is unchanged and whose new
    outputs are equivalent to them (or whose outputs are volatile by its own marker, with the
    same number and kinds of outputs). Returns how many cells kept their stored outputs."""
    before = {c.get("id"): c for c in old_nb.cells if c.cell_type == "code"}
    kept = 0
    for cell in new_nb.cells:
        old = before.get(cell.get("id"))
        if cell.cell_type != "code" or old is None or old.source != cell.source:
            continue
        volatile = cell.source.startswith("# NBVAL_IGNORE_OUTPUT") and \
            [o.output_type for o in old.outputs] == [o.output_type for o in cell.outputs]
        if volatile or _equivalent(old.outputs, cell.outputs):
            cell.outputs = old.outputs
            kept += 1
    return kept


def execute(path: Path) -> float:
    nb = read(path)
    stored = read(path)
    start = time.perf_counter()
    NotebookClient(nb, timeout=600, kernel_name="python3", record_timing=False,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    seconds = time.perf_counter() - start
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = merge_streams(cell.outputs)
    keep_unchanged(stored, nb)
    write(nb, path)
    return seconds


# `make test` re-runs the notebooks with these set (other kernels than the native ones);
# outputs are stored with the native kernels, so a refresh never inherits them.
TEST_ONLY_KERNELS = ("ATEN_CPU_CAPABILITY", "NPY_DISABLE_CPU_FEATURES")


def main(argv: list[str]) -> int:
    os.environ.setdefault("OMP_NUM_THREADS", "1")   # as in the Makefile: same outputs every run
    for name in TEST_ONLY_KERNELS:
        os.environ.pop(name, None)
    paths = [Path(a).resolve() for a in argv] or (
        chapter_notebooks(NOTEBOOKS) + chapter_notebooks(SOLUTIONS))
    for path in paths:
        seconds = execute(path)
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        print(f"{seconds:6.1f} s  {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
