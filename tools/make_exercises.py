"""Generate exercises/ from solutions/: one source, mirrored names.

In a solution notebook:
- code between `# BEGIN SOLUTION` and `# END SOLUTION` becomes
  `raise NotImplementedError("Exercise N (title) not done yet")`, indented like the
  marker, with N and the title from the `## Exercise N: title` heading above it (hints
  live folded in the exercise's markdown, not in the stub);
- markdown between `<!-- BEGIN SOLUTION -->` and `<!-- END SOLUTION -->` becomes
  `*Your answer here.*`;
- cells tagged `solution-only` are dropped;
- the title `# Solutions: N. Name` becomes `# Exercises: N. Name`, and the opening says that
  the check cells are folded;
- check cells (tag `check`) are folded: their input collapsed in JupyterLab
  (`jupyter.source_hidden`) and behind a toggle on the site (tag `hide-input`), since their code
  holds an independent reference that would give the answer away;
- outputs and execution counts are cleared.

    python tools/make_exercises.py           # (re)write exercises/
    python tools/make_exercises.py --check   # exit 1 if exercises/ is out of date
"""
from __future__ import annotations

import copy
import re
import sys

import nbformat

from nbcommon import EXERCISES, ROOT, SOLUTIONS, chapter_notebooks, read, tags

BEGIN = re.compile(r"^(\s*)# BEGIN SOLUTION\s*$")
EXERCISE = re.compile(r"^## Exercise (\d+):\s*(.+?)\s*$", re.M)
END = re.compile(r"^\s*# END SOLUTION\s*$")
MD_BLOCK = re.compile(r"<!-- BEGIN SOLUTION -->.*?<!-- END SOLUTION -->", re.S)
# Check cells are folded in the exercise notebook (JupyterLab: the input collapsed; the site: a
# "show code" toggle). Their code holds an independent reference, which is not a hint.
FOLD = "hide-input"
FOLDED_NOTE = ("*The check cells are folded: run them as they are. Their code holds an "
               "independent reference, so open one only after your own attempt, as you would "
               "a hint.*")


def stub_code(source: str, where: str, exercise: str = "Exercise") -> str:
    out, inside = [], False
    for line in source.splitlines():
        m = BEGIN.match(line)
        if m:
            if inside:
                raise ValueError(f"{where}: nested BEGIN SOLUTION")
            inside = True
            indent = m.group(1)
            message = f"{exercise} not done yet"
            line = f"{indent}raise NotImplementedError({message!r})"
            if len(line) > 100:                 # the book's 100 columns: split the message
                cut = message.rfind(" ", 0, 100 - len(indent) - 30)
                line = (f"{indent}raise NotImplementedError({message[:cut + 1]!r}\n"
                        f"{indent}                          {message[cut + 1:]!r})")
            out.append(line)
        elif END.match(line):
            if not inside:
                raise ValueError(f"{where}: END SOLUTION without BEGIN")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise ValueError(f"{where}: BEGIN SOLUTION without END")
    return "\n".join(out)


def exercise_from_solution(solution) -> nbformat.NotebookNode:
    nb = copy.deepcopy(solution)
    cells, exercise = [], None
    for i, cell in enumerate(nb.cells):
        m = EXERCISE.search(cell.source) if cell.cell_type == "markdown" else None
        if m:
            exercise = f"Exercise {m.group(1)} ({m.group(2)})"
        if "solution-only" in tags(cell):
            continue
        if cell.cell_type == "code":
            if "# BEGIN SOLUTION" in cell.source and exercise is None:
                raise ValueError(f"cell {i}: a solution before any '## Exercise N: title'")
            cell.source = stub_code(cell.source, f"cell {i}", exercise or "Exercise")
            cell.outputs = []
            cell.execution_count = None
            if "check" in tags(cell):           # folded, as the hints are: opened on purpose
                cell.metadata.setdefault("jupyter", {})["source_hidden"] = True
                cell.metadata["tags"] = [*cell.metadata["tags"], FOLD]
        elif cell.cell_type == "markdown":
            cell.source = MD_BLOCK.sub("*Your answer here.*", cell.source)
            if not cells:
                cell.source = re.sub(r"^# Solutions:", "# Exercises:", cell.source)
                cell.source += "\n\n" + FOLDED_NOTE
        cells.append(cell)
    nb.cells = cells
    return nb


def expected() -> dict:
    return {EXERCISES / p.name: nbformat.writes(exercise_from_solution(read(p))) + "\n"
            for p in chapter_notebooks(SOLUTIONS)}


def differences() -> list[str]:
    want = expected()
    problems = [f"out of date: {p.relative_to(ROOT)}" for p, text in want.items()
                if not p.exists() or p.read_text(encoding="utf-8") != text]
    problems += [f"no solution notebook for: {p.relative_to(ROOT)}"
                 for p in chapter_notebooks(EXERCISES) if p not in want]
    return problems


def main(argv: list[str]) -> int:
    if "--check" in argv:
        problems = differences()
        for p in problems:
            print(p)
        if problems:
            print("exercises/ is out of sync with solutions/: run `make exercises`.")
        return 1 if problems else 0
    EXERCISES.mkdir(exist_ok=True)
    for path, text in expected().items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
