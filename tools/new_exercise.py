"""Append the skeleton of a new exercise to a chapter's solution notebook.

    python tools/new_exercise.py solutions/04_scaled_dot_product.ipynb "Title" --kind derive
    make exercise NB=solutions/04_scaled_dot_product.ipynb TITLE="Title" KIND=derive

It appends, with the next exercise number, fresh cell ids (`cNNN`) and slide metadata:
1. the exercise's markdown: heading, kind and time, task (worded for the kind), `*Practises:*`,
   `*attnlab:*` and folded hints in tiers (the idea as a question; what must hold: a property or
   a tiny case, never the formula, the fix, the order or the code; for *implement*, a shape plan);
   the kind line ends with the exercise's set (`*Set:* core` or `*Set:* going further`);
2. for a *debug* exercise, the buggy function in a plain code cell, with its author's test;
3. the answer cell: a function (a short name: the title's first three words) whose body sits
   between `# BEGIN SOLUTION` and `# END SOLUTION` (an answer that is a value is still returned
   by a function: a stub raises NotImplementedError, and a raise at the top level of a cell
   would stop the stub test); a *predict, then measure* exercise also gets `prediction()` for
   the literal typed in first (the check reads it through `attnlab.toolkit.committed`, which
   refuses a prediction() that computes), a *derive* one a function of the configuration;
4. for a *debug* exercise, a "Your answer" markdown cell for the diagnosis;
5. a check cell tagged `check` that calls the function through `call_answer`, tests the type,
   then the values.

Every placeholder says `TODO`. `tests/test_contract.py` rejects a chapter or solution notebook
whose cells still hold one (outputs aside), and so does `--check`:

    python tools/new_exercise.py --check solutions/04_scaled_dot_product.ipynb

Then: write the answer and the checks, list wrong and right answers in
`tests/wrong_answers/NN_name.py`, add the exercise's minutes to the chapter's **Time:** line
(both sums, core and all) and to its solution opening's count, add it to the lecture plan's
"Exercises to assign" if it is core, keep the chapter's visible Exercises slide within 60 words,
run `make self-paced` (the table's rows follow the solutions), and run
`make chapter NB=notebooks/NN_name.ipynb` (book/chapter_contract.md, "Adding an exercise").
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


def leftover_todos(nb) -> list[tuple[int, str]]:
    """(cell index, line) for every source line that still holds the placeholder TODO."""
    return [(i, line.strip()) for i, cell in enumerate(nb.cells)
            for line in cell.source.splitlines() if re.search(r"\bTODO\b", line)]


def function_name(number: int, title: str) -> str:
    """A short name for the answer's function: the title's first three words, at most 30
    characters (`Share a prefix of a longer sequence` -> `share_a_prefix`)."""
    words = re.findall(r"[a-z0-9]+", title.lower())
    name = "_".join(words[:3])[:30].strip("_")
    if not name or not name[0].isalpha():
        name = f"exercise_{number}" + (f"_{name}" if name else "")
    return name


# The answer cell for each kind (book/chapter_contract.md, "Kinds"); the rest get ANSWER.
ANSWERS = {
    "debug": (
        "def {name}(x):\n"
        "    # BEGIN SOLUTION\n"
        "    raise NotImplementedError(\"TODO: the fixed version of {buggy}\")\n"
        "    # END SOLUTION"),
    "predict, then measure": (
        "def prediction():\n"
        "    # BEGIN SOLUTION\n"
        "    return None          # TODO: a literal (a number or a choice), typed in first\n"
        "    # END SOLUTION\n\n\n"
        "def {name}(x):\n"
        "    # BEGIN SOLUTION\n"
        "    raise NotImplementedError(\"TODO: the measurement\")\n"
        "    # END SOLUTION"),
    "derive": (
        "def {name}(config):\n"
        "    # BEGIN SOLUTION\n"
        "    raise NotImplementedError(\"TODO: the closed form, for any configuration\")\n"
        "    # END SOLUTION"),
}
ANSWER = ("def {name}(x):\n"
          "    # BEGIN SOLUTION\n"
          "    raise NotImplementedError(\"TODO: the solution\")\n"
          "    # END SOLUTION")
BUGGY = ("def {buggy}(x):\n"
         "    # TODO: a plausible implementation with one subtle bug: right shapes, a believable\n"
         "    # output, and it passes its author's test (below). The reader fixes it.\n"
         "    return x\n\n\n"
         "assert {buggy}(1.0) == 1.0           # TODO: the author's test, which the bug survives")
EXPLAIN = ("**Your answer:** what was wrong, and what symptom gives it away?\n\n"
           "<!-- BEGIN SOLUTION -->\n"
           "TODO: the bug and its symptom, in two sentences.\n"
           "<!-- END SOLUTION -->")
TASKS = {
    "debug": "TODO: what `{buggy}` should do, and the symptom a user reported. The reader\n"
             "writes the fixed version; the check accepts any correct fix and rejects every\n"
             "partial one.",
    "predict, then measure": ("TODO: the question. The reader first writes a literal in\n"
                              "`prediction()`, then the measurement; the check reads the\n"
                              "literal without running anything."),
    "derive": "TODO: the count or bound to derive, for any configuration; the check measures\n"
              "or counts it on several, awkward ones included.",
}
TASK = ("TODO: the task, in the book's notation. Say what the function takes and returns,\n"
        "with shapes.")


def skeleton(number: int, title: str, kind: str, chapter: str) -> list:
    name = function_name(number, title)
    buggy = f"{name}_buggy"
    task = TASKS.get(kind, TASK).format(buggy=buggy)
    plan = ("" if kind != "implement" else "\n\n<details><summary>Hint 3: a shape plan</summary>"
            "\n\nTODO: the shape of each intermediate array, in order (not the operations).\n"
            "</details>")
    markdown = f"""## Exercise {number}: {title}

*Kind:* {kind} · *Time:* TODO min · *Set:* TODO (core, or going further)

{task}

*Practises:* [section TODO](#ch{chapter}-TODO)

*attnlab:* TODO (allowed, or not allowed and why: the check notices it).

<details><summary>Hint 1: the idea</summary>

TODO: the idea, as a question.
</details>

<details><summary>Hint 2: what must hold</summary>

TODO: a property the answer must satisfy, or a tiny case to work by hand (never the formula
to type, the fix, the order or the code).
</details>{plan}"""
    answer = ANSWERS.get(kind, ANSWER).format(name=name, buggy=buggy)
    committed = ("from attnlab.toolkit import committed\n\n"
                 "predicted = committed(prediction)    # refuses a prediction() that computes\n"
                 if kind == "predict, then measure" else "")
    check = (committed + f"got = call_answer({name}, 1.0, why=\"TODO: what the call exercises\")\n"
             "assert isinstance(got, float), f\"expected a float, got {type(got).__name__}\"\n"
             f"assert got == 1.0, f\"{name}(1.0) = {{got}}, expected 1.0: \"\n"
             "       \"TODO (the likely cause)\"\n"
             f"print(\"Exercise {number}: TODO (what passed)\")")

    def cell(kind_of, source, tags=None):
        new = nbformat.v4.new_markdown_cell if kind_of == "md" else nbformat.v4.new_code_cell
        made = new(source)
        made.metadata["slideshow"] = {"slide_type": "slide" if kind_of == "md" and
                                      source.startswith("## Exercise") else "-"}
        if tags:
            made.metadata["tags"] = tags
        return made

    cells = [cell("md", markdown)]
    if kind == "debug":
        cells.append(cell("code", BUGGY.format(buggy=buggy)))
    cells.append(cell("code", answer))
    if kind == "debug":
        cells.append(cell("md", EXPLAIN))
    cells.append(cell("code", check, ["check"]))
    return cells


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", type=Path, help="solutions/NN_name.ipynb")
    parser.add_argument("title", nargs="?", help="the exercise's title")
    parser.add_argument("--check", action="store_true",
                        help="only list the lines that still hold a TODO (exit 1 if any)")
    parser.add_argument("--kind", default="implement", choices=KINDS)
    args = parser.parse_args(argv)
    path = args.notebook if args.notebook.is_absolute() else Path.cwd() / args.notebook
    if path.parent.resolve() != (ROOT / "solutions").resolve():
        parser.error(f"{args.notebook}: exercises are written in solutions/ (exercises/ is generated)")
    nb = read(path)
    if args.check:
        left = leftover_todos(nb)
        for index, line in left:
            print(f"{args.notebook}: cell {index}: {line}")
        return 1 if left else 0
    if not args.title:
        parser.error("a title is needed (or --check)")
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
