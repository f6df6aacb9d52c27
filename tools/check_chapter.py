"""One chapter end to end: refresh it, then run every check of `make test` that concerns it.

    python tools/check_chapter.py notebooks/04_scaled_dot_product.ipynb
    make chapter NB=notebooks/04_scaled_dot_product.ipynb         (the same)
    make chapter NB=notebooks/04_scaled_dot_product.ipynb REFRESH=0   (checks only)

1. refresh (unless --no-refresh): `attnlab/` from the notebooks, the chapter and its solution
   notebook re-executed in fresh kernels with the native kernels, `exercises/` and the
   question bank regenerated, as `make refresh NB=...` does;
2. pytest, on the portable kernels of `make test`: nbval on the chapter and its solution,
   the chapter's unit tests (tests/test_<name>.py, or tests/test_<name>_*.py for a chapter
   whose tests come in parts), and the chapter's cases of the contract, slide, stored-output, exercise and wrong-answer tests, plus the sync tests.

The browser test and the book build are not run (they take minutes; `make test` runs them).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from nbcommon import CHAPTER_RE, NOTEBOOKS, ROOT, SOLUTIONS, module_name

PORTABLE = {"ATEN_CPU_CAPABILITY": "default", "NPY_DISABLE_CPU_FEATURES": "X86_V3"}
PER_CHAPTER = ["test_contract.py", "test_slides.py", "test_stored_outputs.py",
               "test_exercises.py", "test_wrong_answers.py"]


def run(cmd: list[str], env: dict | None = None) -> None:
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, cwd=ROOT, env=env, check=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", type=Path, help="notebooks/NN_name.ipynb")
    parser.add_argument("--no-refresh", action="store_true", help="run the checks only")
    args = parser.parse_args(argv)
    name = args.notebook.name
    if not CHAPTER_RE.match(name) or not (NOTEBOOKS / name).exists():
        parser.error(f"{args.notebook}: not a chapter in notebooks/ (NN_name.ipynb)")
    chapter, solution = NOTEBOOKS / name, SOLUTIONS / name
    py = sys.executable
    tools = ROOT / "tools"
    if not args.no_refresh:
        run([py, str(tools / "export_package.py")])
        run([py, str(tools / "execute_notebooks.py"), str(chapter),
             *([str(solution)] if solution.exists() else [])])
        run([py, str(tools / "export_package.py")])
        run([py, str(tools / "make_exercises.py")])
        run([py, str(tools / "question_bank.py")])
    env = dict(os.environ, OMP_NUM_THREADS="1", **PORTABLE)
    tests = ROOT / "tests"                     # test_<name>.py, or one file per part of it
    units = [str(u) for u in [tests / f"test_{module_name(chapter)}.py",
                              *sorted(tests.glob(f"test_{module_name(chapter)}_*.py"))]
             if u.exists()]
    stem = chapter.stem
    selection = [str(ROOT / "tests" / f) for f in PER_CHAPTER]
    cmd = [py, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rA", "--tb=short",
           "--nbval", "--nbval-current-env", "--nbval-sanitize-with",
           str(tools / "nbval_sanitize.cfg"), str(chapter),
           *([str(solution)] if solution.exists() else []),
           str(ROOT / "tests" / "test_sync.py"), *units,
           *selection, "-k", f"{stem} or test_sync or test_{module_name(chapter)}"]
    run(cmd, env)
    print(f"make chapter: {name} passed its own checks. Not run here (minutes each): the book "
          "build (tests/test_book.py) and the browser checks of the page and the deck "
          "(tests/test_browser.py, tests/test_browser_decks.py); `make test` runs them.")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except subprocess.CalledProcessError as exc:
        sys.exit(exc.returncode)
