"""Rewrite the exercise columns of book/self_paced.md from the solution notebooks.

Each exercise's kind line says its minutes and its set (`*Kind:* derive · *Time:* 10 min ·
*Set:* core`); the table gives, per chapter, the minutes of the core set and of all exercises.
tests/test_contract.py checks that the table, the chapter's **Time:** line and the exercises
agree; after adding or changing an exercise, run this (`make self-paced`) and commit the page.

    python tools/self_paced.py           # rewrites the page
    python tools/self_paced.py --check   # exit 1 if the page is out of date
"""
from __future__ import annotations

import re
import sys

from nbcommon import ROOT, SOLUTIONS, read

PAGE = ROOT / "book" / "self_paced.md"
KIND_LINE = re.compile(r"^\*Kind:\* .+? · \*Time:\* (\d+) min · \*Set:\* (core|going further)\s*$",
                       re.M)
HEADER = "| chapter | read and run | core exercises | all exercises | on a first read you may skip |"


def sums(name: str) -> tuple[int, int] | None:
    """(core minutes, all minutes) of a chapter's exercises, or None if it has no solutions."""
    path = SOLUTIONS / name
    if not path.exists():
        return None
    found = [m for c in read(path).cells if c.cell_type == "markdown"
             for m in KIND_LINE.finditer(c.source)]
    return (sum(int(m.group(1)) for m in found if m.group(2) == "core"),
            sum(int(m.group(1)) for m in found))


def rewritten(text: str) -> str:
    out = []
    for line in text.splitlines():
        m = re.search(r"\(\.\./notebooks/(\d\d_[\w]+\.ipynb)\)", line)
        if line.startswith("| chapter |"):
            line = HEADER
        elif line.startswith("|---"):
            line = "|---|---|---|---|---|"
        elif m and line.startswith("|"):
            cols = [c.strip() for c in line.strip().strip("|").split("|")]
            skip = cols[-1]
            found = sums(m.group(1))
            core, every = (f"{found[0]} min", f"{found[1]} min") if found else ("none", "none")
            line = f"| {cols[0]} | {cols[1]} | {core} | {every} | {skip} |"
        out.append(line)
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    old = PAGE.read_text(encoding="utf-8")
    new = rewritten(old)
    if "--check" in argv:
        if new != old:
            print(f"{PAGE.relative_to(ROOT)} is out of date: run make self-paced")
            return 1
        return 0
    PAGE.write_text(new, encoding="utf-8")
    print(f"rewrote the exercise columns of {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
