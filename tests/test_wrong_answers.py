"""Every exercise check catches the wrong answers a learner would plausibly write, and
accepts the right answers that differ from the solution in an allowed way.

For each chapter, `tests/wrong_answers/NN_name.py` holds two lists of
`(exercise number, why, code)`:

- WRONG: `code` replaces the solution cell of that exercise; at least one of the
  exercise's check cells must then fail, and fail *in the check* (an AssertionError or
  another error the check raises), not with NameError, SyntaxError or the stub's
  NotImplementedError, which would mean the wrong answer never ran;
- RIGHT: `code` replaces the solution cell; every check cell of the exercise must pass.

The solution notebook runs once in one kernel; each case then runs its code and the
exercise's checks, and the real solution cells are run again to restore the state.
"""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from nbcommon import ROOT, SOLUTIONS, chapter_notebooks, read, tags

LISTS = ROOT / "tests" / "wrong_answers"
EXERCISE = re.compile(r"^## Exercise (\d+):", re.M)
NOT_CAUGHT = {"NameError", "SyntaxError", "IndentationError", "NotImplementedError"}


def load_lists(path: Path):
    spec = importlib.util.spec_from_file_location(f"wrong_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(getattr(module, "WRONG", [])), list(getattr(module, "RIGHT", []))


def exercises(nb) -> dict[int, dict[str, list]]:
    """Exercise number -> its solution cells and check cells (cell objects, in order)."""
    found: dict[int, dict[str, list]] = {}
    current = None
    for cell in nb.cells:
        m = EXERCISE.search(cell.source) if cell.cell_type == "markdown" else None
        if m:
            current = int(m.group(1))
            found[current] = {"solution": [], "check": []}
        elif cell.cell_type == "code" and current is not None:
            if "check" in tags(cell):
                found[current]["check"].append(cell)
            elif "# BEGIN SOLUTION" in cell.source:
                found[current]["solution"].append(cell)
    return found


def code_cell(source: str, role: str, case: int = -1, index: int = -1):
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["harness"] = {"role": role, "case": case, "index": index}
    return cell


def run_cases(solution: Path, cases: list[tuple[str, int, str, str]]):
    """Run the solution, then every case; returns {case index: [(role, error name or None)]}."""
    nb = read(solution)
    by_exercise = exercises(nb)
    cells = [code_cell(c.source, "setup") for c in nb.cells if c.cell_type == "code"]
    for i, (_, number, _, code) in enumerate(cases):
        assert number in by_exercise, f"{solution.name} has no exercise {number}"
        parts = by_exercise[number]
        assert parts["check"], f"exercise {number} has no check cell"
        cells.append(code_cell(code, "answer", i))
        cells += [code_cell(c.source, "check", i, k) for k, c in enumerate(parts["check"])]
        cells += [code_cell(c.source, "restore", i) for c in parts["solution"]]
    run_nb = nbformat.v4.new_notebook(cells=cells, metadata=nb.metadata)
    NotebookClient(run_nb, timeout=600, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(solution.parent)}}).execute()
    results: dict[int, list] = {}
    for cell in run_nb.cells:
        info = cell.metadata["harness"]
        errors = [o.ename for o in cell.outputs if o.output_type == "error"]
        if info["role"] in ("setup", "restore"):
            assert not errors, f"{info['role']} cell failed ({errors[0]}):\n{cell.source[:300]}"
            continue
        results.setdefault(info["case"], []).append((info["role"], errors[0] if errors else None))
    return results


CHAPTERS = [p for p in chapter_notebooks(SOLUTIONS)]


@pytest.mark.parametrize("solution", CHAPTERS, ids=lambda p: p.name)
def test_checks_catch_wrong_answers(solution):
    lists = LISTS / f"{solution.stem}.py"
    assert lists.exists(), f"no list of wrong answers: tests/wrong_answers/{lists.name}"
    wrong, right = load_lists(lists)
    numbers = set(exercises(read(solution)))
    missing = numbers - {n for n, _, _ in wrong}
    assert not missing, f"exercises without any listed wrong answer: {sorted(missing)}"
    cases = [("WRONG", n, why, code) for n, why, code in wrong]
    cases += [("RIGHT", n, why, code) for n, why, code in right]
    results = run_cases(solution, cases)
    problems = []
    for i, (kind, number, why, _) in enumerate(cases):
        outcome = results[i]
        answer_error = outcome[0][1]
        checks = [err for role, err in outcome[1:]]
        label = f"{kind} exercise {number} ({why})"
        if answer_error:
            problems.append(f"{label}: the answer cell itself raised {answer_error}")
        elif kind == "WRONG":
            caught = [e for e in checks if e and e not in NOT_CAUGHT]
            if not caught:
                problems.append(f"{label}: passed the checks (errors: {checks})")
        elif any(checks):
            problems.append(f"{label}: rejected by a check ({checks})")
    print(f"{solution.name}: {len(wrong)} wrong answers caught, {len(right)} right ones accepted"
          if not problems else "")
    assert not problems, "\n".join(problems)
