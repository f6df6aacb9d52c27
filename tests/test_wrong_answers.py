"""Every exercise check catches the wrong answers a learner would plausibly write, and
accepts the right answers that differ from the solution in an allowed way.

For each chapter, `tests/wrong_answers/NN_name.py` holds two lists of
`(exercise number, why, code)`:

- WRONG: at least one of the exercise's check cells must then fail **with its own verdict**:
  an AssertionError raised by the check (its `assert`, or a checking helper it calls, such as
  `assert_close`), or an error the check raises on purpose with a `raise` statement of its
  own (a TypeError naming the type it expected). An error raised inside the learner's code,
  or a check that crashes by accident (a TypeError in its own f-string, a NumPy call on a
  tensor), is not a verdict and does not count; neither do NameError, SyntaxError or the
  stub's NotImplementedError. A check that wants to report a crash of the learner's code
  catches it and raises an AssertionError that names the likely cause.
- RIGHT: every check cell of the exercise must then pass.

How a case runs: the whole solution notebook runs once in one kernel; then, for each case,
its code runs (in place of nothing: it is executed after the solution, so a name that the
case does not redefine keeps the solution's value), then the exercise's check cells, then the
exercise's real solution cells again, to restore the state for the next case. Answer and
check cells are executed under their own file names (`<answer 3>`, `<check 2.1>`), so the
traceback tells whose code raised. The test prints, for every wrong answer, the check and the
message that caught it.
"""
from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from nbcommon import ROOT, SOLUTIONS, chapter_notebooks, missing_requirement, read, tags

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


# Defined in the kernel before the cases: runs a cell's source under its own file name and
# records how it failed, if it did, and whether that failure is the check's own verdict.
HARNESS = r"""
import json as _attn_json, linecache as _attn_linecache, traceback as _attn_tb
_attn_results = {}


def _attn_run(key, label, source):
    _attn_linecache.cache[label] = (len(source), None, source.splitlines(True), label)
    try:
        exec(compile(source, label, "exec"), globals())
    except BaseException as exc:            # noqa: BLE001 (the harness records everything)
        frames = _attn_tb.extract_tb(exc.__traceback__)
        mine = [f for f in frames if f.filename.startswith(("<answer", "<check"))]
        owner = mine[-1].filename if mine else ""
        by_check = owner.startswith("<check")
        line = (frames[-1].line or "").lstrip() if frames else ""
        verdict = (by_check and isinstance(exc, AssertionError)) or (
            by_check and frames[-1].filename == owner and line.startswith("raise"))
        _attn_results[key] = dict(ename=type(exc).__name__, message=str(exc)[:240],
                                  verdict=bool(verdict), where=owner)
    else:
        _attn_results[key] = None
"""


def code_cell(source: str, role: str, case: int = -1, index: int = -1):
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["harness"] = {"role": role, "case": case, "index": index}
    return cell


def wrapped(key: str, label: str, source: str, role: str, case: int, index: int = -1):
    return code_cell(f"_attn_run({key!r}, {label!r}, {source!r})", role, case, index)


def run_cases(solution: Path, cases: list[tuple[str, int, str, str]]):
    """Run the solution, then every case.

    Returns {case index: [(role, outcome), ...]}: the answer first, then each check, where
    outcome is None (it ran) or a dict with ename, message, verdict (the check's own) and where.
    """
    nb = read(solution)
    by_exercise = exercises(nb)
    cells = [code_cell(c.source, "setup") for c in nb.cells if c.cell_type == "code"]
    cells.append(code_cell(HARNESS, "setup"))
    for i, (_, number, _, code) in enumerate(cases):
        assert number in by_exercise, f"{solution.name} has no exercise {number}"
        parts = by_exercise[number]
        assert parts["check"], f"exercise {number} has no check cell"
        cells.append(wrapped(f"{i}:answer", f"<answer {number}>", code, "answer", i))
        cells += [wrapped(f"{i}:check:{k}", f"<check {number}.{k + 1}>", c.source, "check", i, k)
                  for k, c in enumerate(parts["check"])]
        cells += [code_cell(c.source, "restore", i) for c in parts["solution"]]
    cells.append(code_cell("print(_attn_json.dumps(_attn_results))", "report"))
    run_nb = nbformat.v4.new_notebook(cells=cells, metadata=nb.metadata)
    NotebookClient(run_nb, timeout=600, kernel_name="python3", allow_errors=True,
                   shutdown_kernel="immediate",     # as tests/test_exercises.py: nothing waits for it
                   resources={"metadata": {"path": str(solution.parent)}}).execute()
    recorded = None
    for cell in run_nb.cells:
        info = cell.metadata["harness"]
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if info["role"] in ("setup", "restore"):
            assert not errors, (f"{info['role']} cell failed ({errors[0].ename}: "
                                f"{errors[0].evalue}):\n{cell.source[:300]}")
        if info["role"] == "report":
            recorded = json.loads("".join(o.text for o in cell.outputs if o.output_type == "stream"))
    assert recorded is not None, "the harness recorded nothing"
    results: dict[int, list] = {}
    for key, outcome in recorded.items():
        case, role, *index = key.split(":")
        results.setdefault(int(case), []).append((role, int(index[0]) if index else -1, outcome))
    return {case: [(role, outcome) for role, _, outcome in sorted(rows, key=lambda r: (
        r[0] != "answer", r[1]))] for case, rows in results.items()}


def judge(cases, results):
    """(problems, report lines): what went wrong, and who caught each wrong answer."""
    problems, report = [], []
    for i, (kind, number, why, _) in enumerate(cases):
        (_, answer), *checks = results[i]
        label = f"{kind} exercise {number} ({why})"
        if answer:
            problems.append(f"{label}: the answer cell itself raised {answer['ename']}: "
                            f"{answer['message']}")
            continue
        failed = [(k, o) for k, (_, o) in enumerate(checks) if o]
        if kind == "WRONG":
            caught = [(k, o) for k, o in failed if o["verdict"] and o["ename"] not in NOT_CAUGHT]
            if caught:
                k, o = caught[0]
                report.append(f"  caught  {label}: check {number}.{k + 1}, "
                              f"{o['ename']}: {o['message'][:120]}")
            else:
                seen = "; ".join(f"check {number}.{k + 1} {o['ename']} in {o['where']} (not a "
                                 f"verdict): {o['message'][:100]}" for k, o in failed)
                problems.append(f"{label}: no check gave a verdict" + (f" ({seen})" if seen else
                                                                       " (every check passed)"))
        elif failed:
            problems.append(f"{label}: rejected by " + "; ".join(
                f"check {number}.{k + 1}, {o['ename']}: {o['message'][:120]}" for k, o in failed))
        else:
            report.append(f"  accepted {label}")
    return problems, report


CHAPTERS = [p for p in chapter_notebooks(SOLUTIONS)]


@pytest.mark.parametrize("solution", CHAPTERS, ids=lambda p: p.name)
def test_checks_catch_wrong_answers(solution):
    lists = LISTS / f"{solution.stem}.py"
    assert lists.exists(), f"no list of wrong answers: tests/wrong_answers/{lists.name}"
    if missing_requirement(solution):
        pytest.skip(missing_requirement(solution))
    wrong, right = load_lists(lists)
    numbers = set(exercises(read(solution)))
    missing = numbers - {n for n, _, _ in wrong}
    assert not missing, f"exercises without any listed wrong answer: {sorted(missing)}"
    cases = [("WRONG", n, why, code) for n, why, code in wrong]
    cases += [("RIGHT", n, why, code) for n, why, code in right]
    results = run_cases(solution, cases)
    problems, report = judge(cases, results)
    print(f"{solution.name}: {len(wrong)} wrong answers, {len(right)} right ones")
    print("\n".join(report))
    assert not problems, "\n".join(problems)


def test_only_a_checks_own_verdict_counts(tmp_path):
    """The harness on a made-up chapter: an assertion or a deliberate raise in a check counts;
    an error inside the learner's code, or a check crashing in its own message, does not."""
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell

    def check(source):
        cell = code(source)
        cell.metadata["tags"] = ["check"]
        return cell

    nb = nbformat.v4.new_notebook(cells=[
        md("## Exercise 1: double"),
        code("# BEGIN SOLUTION\ndef double(x):\n    return 2 * x\n# END SOLUTION"),
        check("out = double(3)\nif not isinstance(out, int):\n"
              "    raise TypeError(f'double should return an int, got {type(out).__name__}')\n"
              "assert out == 6, f'double(3) = {out}, expected 6'"),
        md("## Exercise 2: a letter"),
        code("# BEGIN SOLUTION\ndef letter():\n    return 'x'\n# END SOLUTION"),
        check("n = letter()\nassert len(n) == 1, f'letter() = {n:d}'   # a bug in the message"),
    ])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path / "99_made_up.ipynb"
    nbformat.write(nb, path)
    cases = [("WRONG", 1, "triples", "def double(x):\n    return 3 * x"),
             ("WRONG", 1, "a float", "def double(x):\n    return 2.0 * x"),
             ("WRONG", 1, "raises inside", "def double(x):\n    raise ValueError('oops')"),
             ("WRONG", 2, "two letters", "def letter():\n    return 'xy'"),
             ("RIGHT", 1, "x + x", "def double(x):\n    return x + x")]
    problems, report = judge(cases, run_cases(path, cases))
    assert any("triples" in r and "check 1.1, AssertionError: double(3) = 9" in r for r in report)
    assert any("a float" in r and "check 1.1, TypeError: double should return" in r for r in report)
    assert any("raises inside" in p and "ValueError in <answer 1>" in p for p in problems)
    assert any("two letters" in p and "ValueError in <check 2.1>" in p for p in problems)
    assert any("accepted RIGHT exercise 1 (x + x)" in r for r in report)
    assert len(problems) == 2, problems
