"""Check a chapter's deck against the slide rules of book/chapter_contract.md.

The deck is what the cells' `slideshow` metadata makes of the notebook: cells of type
`skip` and `notes` are not on a slide. These rules are checked on the notebook itself;
whether every slide fits 1280 x 720 is checked in a browser (tests/test_browser.py).

    python tools/slide_rules.py notebooks/04_scaled_dot_product.ipynb   # prints problems
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from nbcommon import read, tags

MIN_SLIDES, MAX_SLIDES = 20, 40
MAX_WORDS = 60          # prose words per visible markdown cell
MAX_CODE_LINES = 12
MAX_CODE_COLUMNS = 80
MAX_OUTPUT_LINES = 12
HIDDEN = {"skip", "notes"}
OUTPUT_ONLY = "slide-output-only"


def slide_type(cell) -> str:
    return cell.metadata.get("slideshow", {}).get("slide_type", "-")


def prose_words(markdown: str) -> int:
    """Words a lecturer would read aloud: display math, code, comments and labels removed."""
    text = re.sub(r"\$\$.*?\$\$", " ", markdown, flags=re.S)
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"^\([\w-]+\)=\s*$", " ", text, flags=re.M)      # MyST labels
    text = re.sub(r"<[^>]+>", " ", text)                              # HTML tags
    return len(re.findall(r"[A-Za-z0-9$`][^\s]*", text))


def output_lines(cell) -> int:
    n = 0
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            n += len(out.text.rstrip("\n").splitlines())
        elif out.output_type in ("execute_result", "display_data"):
            data = out.get("data", {})
            if "image/png" in data or "image/svg+xml" in data or "text/html" in data:
                continue
            n += len(str(data.get("text/plain", "")).rstrip("\n").splitlines())
    return n


def problems(path: Path) -> list[str]:
    nb = read(path)
    found = []
    types = [slide_type(c) for c in nb.cells]
    slides = sum(t in ("slide", "subslide") for t in types)
    if not MIN_SLIDES <= slides <= MAX_SLIDES:
        found.append(f"{slides} slides; a deck has {MIN_SLIDES} to {MAX_SLIDES}")
    if types and types[0] != "slide":
        found.append("the first cell (the title) must open a slide")
    for i, cell in enumerate(nb.cells):
        kind = slide_type(cell)
        if kind in HIDDEN:
            continue
        where = f"cell {i} ({cell.source.strip().splitlines()[0][:50] if cell.source.strip() else ''!r})"
        if cell.cell_type == "markdown":
            words = prose_words(cell.source)
            if i > 0 and words > MAX_WORDS:
                found.append(f"{where}: {words} words on a slide (at most {MAX_WORDS}); "
                             "shorten it or make it `notes`")
        elif cell.cell_type == "code":
            if OUTPUT_ONLY not in tags(cell):
                lines = cell.source.rstrip("\n").splitlines()
                if len(lines) > MAX_CODE_LINES:
                    found.append(f"{where}: {len(lines)} code lines on a slide (at most "
                                 f"{MAX_CODE_LINES}); `skip` it or tag it `{OUTPUT_ONLY}`")
                wide = max((len(l) for l in lines), default=0)
                if wide > MAX_CODE_COLUMNS:
                    found.append(f"{where}: a code line of {wide} characters on a slide "
                                 f"(at most {MAX_CODE_COLUMNS})")
            n = output_lines(cell)
            if n > MAX_OUTPUT_LINES:
                found.append(f"{where}: {n} output lines on a slide (at most {MAX_OUTPUT_LINES})")
    return found


def main(argv: list[str]) -> int:
    bad = 0
    for arg in argv:
        for p in problems(Path(arg)):
            print(f"{arg}: {p}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
