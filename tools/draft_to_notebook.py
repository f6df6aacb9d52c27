"""Authoring aid: turn a py:percent draft into a notebook with slide metadata.

A draft is plain Python in which `# %%` starts a code cell and `# %% [markdown]`
a markdown cell (its lines written as `# text`). Options may follow on the same
line: `tags=["check"]`, `slide="skip"`, `alt="what the figure shows"`. Once converted, the notebook is the
source: edit it in Jupyter, not the draft (drafts are not kept in the repo).

Slides: a cell starting with a `#`/`##` heading opens a slide; any other markdown
cell opens a sub-slide (so each explanation and the code under it share a screen);
code cells continue the current one; `slide=` overrides.

    python tools/draft_to_notebook.py draft.py notebooks/04_scaled_dot_product.ipynb
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import nbformat

from nbcommon import write

HEADER = re.compile(r"^# %%(?P<md> \[markdown\])?(?P<opts>.*)$")
OPTION = re.compile(r'(\w+)=(\[[^\]]*\]|"[^"]*")')


def slide_type(cell) -> str:
    lines = [l for l in cell.source.strip().splitlines() if not re.match(r"^\([\w-]+\)=$", l)]
    first = lines[0] if lines else ""                  # a MyST label line does not count
    if cell.cell_type == "markdown" and re.match(r"^#{1,2} ", first):
        return "slide"
    if cell.cell_type == "markdown":
        return "subslide"
    return "-"


def parse(text: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    blocks: list[tuple[bool, dict, list[str]]] = []
    for line in text.splitlines():
        m = HEADER.match(line)
        if m:
            opts = {k: json.loads(v) for k, v in OPTION.findall(m.group("opts"))}
            blocks.append((bool(m.group("md")), opts, []))
        elif blocks:
            blocks[-1][2].append(line)
    for is_md, opts, lines in blocks:
        while lines and not lines[-1].strip():
            lines.pop()
        if is_md:
            body = "\n".join(re.sub(r"^# ?", "", l) for l in lines)
            cell = nbformat.v4.new_markdown_cell(body)
        else:
            cell = nbformat.v4.new_code_cell("\n".join(lines))
        if opts.get("tags"):
            cell.metadata["tags"] = opts["tags"]
        if opts.get("alt"):                      # alt text of the figure the cell draws
            cell.metadata["mystnb"] = {"image": {"alt": opts["alt"]}}
        cell.metadata["slideshow"] = {"slide_type": opts.get("slide", slide_type(cell))}
        nb.cells.append(cell)
    nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)",
                                 "language": "python", "name": "python3"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def main(argv: list[str]) -> int:
    src, dst = Path(argv[0]), Path(argv[1])
    nb = parse(src.read_text(encoding="utf-8"))
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"c{i:03d}"
    write(nb, dst)
    print(f"wrote {dst} ({len(nb.cells)} cells)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
