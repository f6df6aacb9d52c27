"""Generate exercises/ from solutions/: one source, mirrored names.

In a solution notebook:
- code between `# BEGIN SOLUTION (hint: ...)` and `# END SOLUTION` becomes
  `raise NotImplementedError("...hint...")`, indented like the marker;
- markdown between `<!-- BEGIN SOLUTION -->` and `<!-- END SOLUTION -->` becomes
  `*Your answer here.*`;
- cells tagged `solution-only` are dropped;
- the title `# Solutions: N. Name` becomes `# Exercises: N. Name`;
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

BEGIN = re.compile(r"^(\s*)# BEGIN SOLUTION(?:\s*\(hint:\s*(.*)\))?\s*$")
END = re.compile(r"^\s*# END SOLUTION\s*$")
MD_BLOCK = re.compile(r"<!-- BEGIN SOLUTION -->.*?<!-- END SOLUTION -->", re.S)


def stub_code(source: str, where: str) -> str:
    out, inside = [], False
    for line in source.splitlines():
        m = BEGIN.match(line)
        if m:
            if inside:
                raise ValueError(f"{where}: nested BEGIN SOLUTION")
            inside = True
            indent, hint = m.group(1), (m.group(2) or "").strip()
            message = "Exercise not done yet" + (f" (hint: {hint})" if hint else "")
            out.append(f"{indent}raise NotImplementedError({message!r})")
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
    cells = []
    for i, cell in enumerate(nb.cells):
        if "solution-only" in tags(cell):
            continue
        if cell.cell_type == "code":
            cell.source = stub_code(cell.source, f"cell {i}")
            cell.outputs = []
            cell.execution_count = None
        elif cell.cell_type == "markdown":
            cell.source = MD_BLOCK.sub("*Your answer here.*", cell.source)
            if not cells:
                cell.source = re.sub(r"^# Solutions:", "# Exercises:", cell.source)
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
