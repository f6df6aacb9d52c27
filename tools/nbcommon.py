"""Small helpers shared by the scripts in tools/ and by the tests.

The conventions they encode are written down in book/chapter_contract.md.
"""
from __future__ import annotations

import re
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
SOLUTIONS = ROOT / "solutions"
EXERCISES = ROOT / "exercises"
PACKAGE = ROOT / "attnlab"

EXPORT_MARKER = "# export"            # first line of a cell that goes into attnlab
CHAPTER_RE = re.compile(r"^(\d\d)_(\w+)\.ipynb$")


def book_language() -> str:
    """The edition the site tests build and check: en (`make test`) or zh_CN (`make test-zh`,
    which sets ATTN_BOOK_LANG; README, "The Chinese edition")."""
    import os
    return os.environ.get("ATTN_BOOK_LANG", "en")


# Chapters that need a package some platforms cannot install: {notebook stem: (module, why)}.
# Where the module is missing, `make test` skips the checks that execute the chapter, and says
# why (README, "Platforms"); every other chapter runs without it.
NEEDS = {"18_kernels": ("triton", "chapter 18 needs Triton, whose wheels exist for Linux on "
                                  "x86-64 only (requirements.txt)")}


def missing_requirement(notebook) -> str | None:
    """Why `notebook` (any NN_name.ipynb path) cannot run here, or None if it can."""
    import importlib.util
    need = NEEDS.get(Path(notebook).stem)
    if need is None:
        return None
    try:
        if importlib.util.find_spec(need[0]) is not None:
            return None
    except (ImportError, ValueError):     # a finder that refuses it, or a module set to None
        pass
    return f"{need[1]}; `{need[0]}` is not installed here"


def chapter_notebooks(folder: Path = NOTEBOOKS) -> list[Path]:
    """Numbered notebooks (NN_name.ipynb) in `folder`, in book order."""
    return sorted(p for p in folder.glob("*.ipynb") if CHAPTER_RE.match(p.name))


def module_name(notebook: Path) -> str:
    """notebooks/04_scaled_dot_product.ipynb -> 'scaled_dot_product'."""
    return CHAPTER_RE.match(notebook.name).group(2)


def read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def write(nb: nbformat.NotebookNode, path: Path) -> None:
    """Write a notebook the same way every time (stable JSON, newline at end)."""
    text = nbformat.writes(nb) + "\n"
    path.write_text(text, encoding="utf-8")


def tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def headings(nb, level: int = 2) -> list[str]:
    """Markdown headings of exactly `level` (## by default), in order."""
    prefix = "#" * level + " "
    out = []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        for line in cell.source.splitlines():
            if line.startswith(prefix):
                out.append(line[len(prefix):].strip())
    return out
