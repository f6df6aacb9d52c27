"""Re-run notebooks top to bottom in fresh kernels and store their outputs in place.

Unlike `nbconvert --execute --inplace`, this writes no timestamps, so a refresh
only changes the file where an output really changed.

    python tools/execute_notebooks.py                    # notebooks/ and solutions/
    python tools/execute_notebooks.py notebooks/04_*.ipynb
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from nbclient import NotebookClient

from nbcommon import NOTEBOOKS, ROOT, SOLUTIONS, chapter_notebooks, read, write


def execute(path: Path) -> float:
    nb = read(path)
    start = time.perf_counter()
    NotebookClient(nb, timeout=600, kernel_name="python3", record_timing=False,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    seconds = time.perf_counter() - start
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    write(nb, path)
    return seconds


def main(argv: list[str]) -> int:
    paths = [Path(a).resolve() for a in argv] or (
        chapter_notebooks(NOTEBOOKS) + chapter_notebooks(SOLUTIONS))
    for path in paths:
        seconds = execute(path)
        print(f"{seconds:6.1f} s  {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
