"""Append the skeleton of a new exercise to a chapter's solution notebook.

    python tools/new_exercise.py solutions/04_scaled_dot_product.ipynb "Title" --kind derive
    make exercise NB=solutions/04_scaled_dot_product.ipynb TITLE="Title" KIND=derive

It appends, with the next exercise number, fresh cell ids (`cNNN`) and slide metadata:
1. the exercise's markdown: heading, kind and time, task, `*Practises:*`, `*attnlab:*` and two
   folded hints (the idea, then the key equation; never the code);
2. the answer cell: a function whose body sits between `# BEGIN SOLUTION` and
   `# END SOLUTION` (an answer that is a value is still returned by a function: a stub raises
   NotImplementedError, and a raise at the top level of a cell would stop the stub test);
3. a check cell tagged `check` that calls the function, tests the type, then the values.

Every placeholder says `TODO`; `tests/test_contract.py` rejects a notebook that still holds
one. Then: write the answer and the checks, list wrong and right answers in
`tests/wrong_answers/NN_name.py`, and run `make chapter NB=notebooks/NN_name.ipynb`
(book/chapter_contract.md, "Adding an exercise").
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat

from nbcommon import ROOT, read, write

KINDS = ("implement", "derive", "predict, then measure", "debug", "extend")
EXERCISE = re.compile(r"^## Exercise (\d+):", re.M)
CELL_ID = re.compile(r"^c(\d{3,})$")


def next_ids(nb, n: int) -> list[str]:
    used = [int(m.group(1)) for c in nb.cells if (m := CELL_ID.match(c.get("id", "")))]
    start = max(used, default=0) + 1
    return [f"c{start + i:03d}" for i in range(n)]


def skeleton(number: int, title: str, kind: str, chapter: str) -> list:
    name = re.sub(r"\W+", "_", title.lower()).strip("_") or f"exercise_{number}"
    markdown = f"""## Exercise {number}: {title}

*Kind:* {kind} · *Time:* TODO min

TODO: the task, in the book's notation. Say what the function takes and returns, with shapes.

*Practises:* [section TODO](#ch{chapter}-TODO)

*attnlab:* TODO (allowed, or not allowed and why: the check notices it).

<details><summary>Hint 1: the idea</summary>

TODO: the idea, in words.
</details>

<details><summary>Hint 2: the key equation</summary>

TODO: the equation or invariant the answer rests on (never the code).
</details>"""
    answer = f"""def {name}(x):
    # BEGIN SOLUTION
    raise NotImplementedError("TODO: the solution")
    # END SOLUTION"""
    check = f"""got = {name}(1.0)                                   # TODO: a small hand-checked case
assert isinstance(got, float), f"expected a float, got {{type(got).__name__}}"
assert got == 1.0, f"{name}(1.0) = {{got}}, expected 1.0: TODO (name the likely cause)"
print("Exercise {number}: TODO (what passed)")"""
    md = nbformat.v4.new_markdown_cell(markdown)
    md.metadata["slideshow"] = {"slide_type": "slide"}
    code = nbformat.v4.new_code_cell(answer)
    code.metadata["slideshow"] = {"slide_type": "-"}
    chk = nbformat.v4.new_code_cell(check)
    chk.metadata["slideshow"] = {"slide_type": "-"}
    chk.metadata["tags"] = ["check"]
    return [md, code, chk]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", type=Path, help="solutions/NN_name.ipynb")
    parser.add_argument("title", help="the exercise's title")
    parser.add_argument("--kind", default="implement", choices=KINDS)
    args = parser.parse_args(argv)
    path = args.notebook if args.notebook.is_absolute() else Path.cwd() / args.notebook
    if path.parent.resolve() != (ROOT / "solutions").resolve():
        parser.error(f"{args.notebook}: exercises are written in solutions/ (exercises/ is generated)")
    nb = read(path)
    numbers = [int(m.group(1)) for c in nb.cells if c.cell_type == "markdown"
               for m in EXERCISE.finditer(c.source)]
    number = max(numbers, default=0) + 1
    cells = skeleton(number, args.title, args.kind, path.name[:2])
    for cell, cell_id in zip(cells, next_ids(nb, len(cells))):
        cell["id"] = cell_id
    nb.cells.extend(cells)
    write(nb, path)
    print(f"appended exercise {number} ({args.title}) to {args.notebook}: cells "
          + ", ".join(c["id"] for c in cells)
          + f"\nnext: replace every TODO, add its wrong answers to tests/wrong_answers/{path.stem}.py,"
          + f" then: make chapter NB=notebooks/{path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
