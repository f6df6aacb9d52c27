"""Re-run notebooks top to bottom in fresh kernels and store their outputs in place.

Unlike `nbconvert --execute --inplace`, this writes no timestamps and joins printed
output that the kernel happened to send in several chunks, so a refresh only changes
the file where an output really changed.

    python tools/execute_notebooks.py                    # notebooks/ and solutions/
    python tools/execute_notebooks.py notebooks/04_*.ipynb
"""
from __future__ import annotations

import os
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


def execute(path: Path) -> float:
    nb = read(path)
    start = time.perf_counter()
    NotebookClient(nb, timeout=600, kernel_name="python3", record_timing=False,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    seconds = time.perf_counter() - start
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = merge_streams(cell.outputs)
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
