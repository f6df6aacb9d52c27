"""The chapter contract (book/chapter_contract.md), checked on every chapter notebook."""
import re

import pytest

from nbcommon import EXERCISES, NOTEBOOKS, SOLUTIONS, chapter_notebooks, headings, read, tags

CHAPTERS = [p for p in chapter_notebooks(NOTEBOOKS) if not p.name.startswith("00_")]
SECTIONS = ["Intuition", "math", "NumPy", "PyTorch", "Cross-check", "Experiment",
            "Pitfalls", "Summary", "Interview questions", "Exercises"]
OPENING = ["**What you build:**", "**Prerequisites:**", "**Time:**", "**You will be able to:**"]
FORBIDDEN = ["urllib", "requests.get", "torch.hub", "load_dataset", "from_pretrained", "wget ",
             "download=True"]

ids = lambda p: p.name  # noqa: E731


@pytest.mark.parametrize("path", CHAPTERS, ids=ids)
def test_opening_cell(path):
    first = read(path).cells[0]
    assert first.cell_type == "markdown"
    number = int(path.name[:2])
    assert re.match(rf"^# {number}\. \S", first.source), "title must be '# N. Name'"
    for label in OPENING:
        assert label in first.source, f"opening cell lacks {label}"


@pytest.mark.parametrize("path", CHAPTERS, ids=ids)
def test_sections_in_order(path):
    found = headings(read(path))
    for h in found:
        assert re.match(r"^\d+\. ", h), f"level-2 heading not numbered: {h!r}"
    numbers = [int(h.split(".")[0]) for h in found]
    assert numbers == list(range(1, len(found) + 1)), f"sections numbered {numbers}"
    position = 0
    for word in SECTIONS:
        hits = [i for i, h in enumerate(found) if word.lower() in h.lower() and i >= position]
        assert hits, f"no section with {word!r} after section {position}: {found}"
        position = hits[0]


@pytest.mark.parametrize("path", CHAPTERS, ids=ids)
def test_interview_answers_fold(path):
    text = "\n".join(c.source for c in read(path).cells if c.cell_type == "markdown")
    assert text.count("<details>") >= 3 and text.count("<details>") == text.count("</details>")


@pytest.mark.parametrize("path", CHAPTERS, ids=ids)
def test_links_to_its_exercises(path):
    text = "\n".join(c.source for c in read(path).cells if c.cell_type == "markdown")
    assert f"../exercises/{path.name}" in text
    assert f"../solutions/{path.name}" in text
    assert (EXERCISES / path.name).exists() and (SOLUTIONS / path.name).exists()


@pytest.mark.parametrize("path", CHAPTERS, ids=ids)
def test_every_cell_has_slide_metadata(path):
    nb = read(path)
    types = [c.metadata.get("slideshow", {}).get("slide_type") for c in nb.cells]
    assert None not in types, "a cell without slideshow metadata"
    assert types.count("slide") >= len(headings(nb)), "each section should open a slide"


@pytest.mark.parametrize("path", CHAPTERS, ids=ids)
def test_cross_checks_and_experiments_assert(path):
    nb = read(path)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "torch" in code and "numpy" in code
    assert code.count("assert") >= 10, "a chapter asserts its claims"
    for word in FORBIDDEN:
        assert word not in code, f"{word!r}: notebooks download nothing"


@pytest.mark.parametrize("path", CHAPTERS, ids=ids)
def test_solution_and_exercise_titles(path):
    title = read(path).cells[0].source.splitlines()[0][2:]          # "N. Name"
    assert read(SOLUTIONS / path.name).cells[0].source.startswith(f"# Solutions: {title}")
    assert read(EXERCISES / path.name).cells[0].source.startswith(f"# Exercises: {title}")


@pytest.mark.parametrize("path", CHAPTERS, ids=ids)
def test_exercise_notebook_has_checks(path):
    nb = read(SOLUTIONS / path.name)
    checks = [c for c in nb.cells if "check" in tags(c)]
    stubs = [c for c in nb.cells if "# BEGIN SOLUTION" in c.source]
    assert len(checks) >= 4 and len(stubs) >= 4, "at least four exercises, each checked"


EXERCISE_HEADING = re.compile(r"^## Exercise (\d+): \S", re.M)


def exercise_cells(nb):
    return [c for c in nb.cells if c.cell_type == "markdown" and EXERCISE_HEADING.search(c.source)]


@pytest.mark.parametrize("path", CHAPTERS, ids=ids)
def test_exercises_point_to_sections_and_fold_hints(path):
    """Each exercise names the section it practises, says whether attnlab may be used and
    keeps its hint folded; stubs carry no hint (book/chapter_contract.md, Exercises)."""
    nb = read(SOLUTIONS / path.name)
    cells = exercise_cells(nb)
    numbers = [int(EXERCISE_HEADING.search(c.source).group(1)) for c in cells]
    assert numbers == list(range(1, len(cells) + 1)), f"exercises numbered {numbers}"
    for c in cells:
        title = c.source.strip().splitlines()[0]
        assert re.search(r"\*Practises:\*.*\]\(#ch\d\d-[\w-]+\)", c.source), \
            f"{title}: no '*Practises:* [section K](#chNN-label)' line"
        assert "*attnlab:*" in c.source, f"{title}: no '*attnlab:*' line"
        assert re.search(r"<details>\s*<summary>Hint", c.source), f"{title}: no folded hint"
    for c in nb.cells:
        assert "# BEGIN SOLUTION (hint" not in c.source, "hints go in the markdown, folded"


QUESTION = re.compile(r"<details>\s*<summary>(.*?)</summary>(.*?)</details>", re.S)


@pytest.mark.parametrize("path", CHAPTERS, ids=ids)
def test_interview_questions_have_levels_and_links(path):
    import question_bank
    qs = question_bank.questions(read(path))
    assert len(qs) >= 5, f"{len(qs)} interview questions; a chapter has at least 5"
    for q in qs:
        assert q["level"], f"no [basic]/[intermediate]/[advanced] at the end of: {q['summary']!r}"
        assert "`" not in q["summary"], \
            f"backticks show literally inside <summary>; use <code>: {q['summary']!r}"
        assert re.search(r"\]\(#ch\d\d-[\w-]+\)", q["body"]), \
            f"the answer to {q['summary']!r} does not link to the section that backs it"


# --- exercises that teach (book/chapter_contract.md, "Exercises and solutions") -------------

KINDS = ("implement", "derive", "predict, then measure", "debug", "extend")
KIND_LINE = re.compile(r"^\*Kind:\* (.+?) · \*Time:\* (\d+) min · \*Set:\* (core|going further)\s*$",
                       re.M)
HINT_LABELS = ["Hint 1: the idea", "Hint 2: what must hold", "Hint 3: a shape plan"]
CORE_MAX_MINUTES = 30
HINT = re.compile(r"<details>\s*<summary>(Hint[^<]*)</summary>(.*?)</details>", re.S)
NUMBER_WORDS = ["No", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine",
                "Ten", "Eleven", "Twelve"]
def _solution_lines(nb) -> set[str]:
    """Normalised lines of the answers (between the solution markers), 20 characters or more."""
    lines, inside = set(), False
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for line in cell.source.splitlines():
            if "# BEGIN SOLUTION" in line:
                inside = True
            elif "# END SOLUTION" in line:
                inside = False
            elif inside and len(norm := " ".join(line.split())) >= 20:
                lines.add(norm)
    return lines


def _exercises(path):
    """The solution notebook and [(heading line, markdown source)] of its exercises."""
    nb = read(SOLUTIONS / path.name)
    return nb, [(c.source.strip().splitlines()[0], c.source) for c in exercise_cells(nb)]


@pytest.mark.parametrize("path", CHAPTERS, ids=ids)
def test_exercises_state_kind_time_and_set(path):
    _, cells = _exercises(path)
    kinds = []
    for title, src in cells:
        m = KIND_LINE.search(src)
        assert m, (f"{title}: no '*Kind:* derive · *Time:* 10 min · *Set:* core' (or '*Set:* "
                   "going further') line under the heading")
        assert m.group(1) in KINDS, f"{title}: kind {m.group(1)!r} is not one of {KINDS}"
        kinds.append(m.group(1))
    others = [k for k in kinds if k != "implement"]
    assert len(others) >= 2, (f"kinds {kinds}: at least two exercises must be derive, predict, "
                              "then measure, debug or extend")


def _sets(path) -> tuple[list[int], int, int]:
    """(numbers of the core exercises, their minutes, the minutes of all exercises)."""
    _, cells = _exercises(path)
    lines = [KIND_LINE.search(src) for _, src in cells]
    core = [i + 1 for i, m in enumerate(lines) if m and m.group(3) == "core"]
    minutes = [int(m.group(2)) if m else 0 for m in lines]
    return core, sum(minutes[i - 1] for i in core), sum(minutes)


@pytest.mark.parametrize("path", CHAPTERS, ids=ids)
def test_core_set_is_small_and_not_only_implement(path):
    """2-3 core exercises per chapter, about half an hour at most, at least one that is not
    *implement*; the rest are going further (issue 26: a chapter and its core set fit a sitting)."""
    _, cells = _exercises(path)
    core, core_minutes, _ = _sets(path)
    assert 2 <= len(core) <= 3, f"core set {core}: mark 2 or 3 exercises '*Set:* core'"
    assert core_minutes <= CORE_MAX_MINUTES, (
        f"the core set (exercises {core}) takes {core_minutes} min; at most {CORE_MAX_MINUTES}")
    kinds = [KIND_LINE.search(cells[i - 1][1]).group(1) for i in core]
    assert any(k != "implement" for k in kinds), f"core set {core} is all implement: {kinds}"


def _numbers(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"\d+", text)]


@pytest.mark.parametrize("path", CHAPTERS, ids=ids)
def test_openings_name_the_core_set(path):
    """The chapter's **Time:** line gives both sums and names the core set; so does the
    solution notebook's opening."""
    core, core_minutes, total = _sets(path)
    m = re.search(r"\*\*Time:\*\*[^\n]*?(\d+) minutes for the exercises \((\d+) for the core "
                  r"set, exercises ([\d, and]+)\)", read(path).cells[0].source)
    assert m, ("the opening **Time:** line reads '..., N minutes for the exercises (M for the "
               "core set, exercises 1 and 4); ...'")
    assert (int(m.group(1)), int(m.group(2)), _numbers(m.group(3))) == (total, core_minutes, core), (
        f"the **Time:** line says {m.group(0)!r}; the exercises add up to {total} min, the core "
        f"set is exercises {core}, {core_minutes} min")
    opening = read(SOLUTIONS / path.name).cells[0].source
    m = re.search(r"core set[^.]*", opening)
    assert m and set(core) <= set(_numbers(m.group(0))), (
        f"the opening of solutions/{path.name} should name the core set (exercises {core})")


@pytest.mark.parametrize("path", CHAPTERS, ids=ids)
def test_predictions_are_committed(path):
    """A *predict, then measure* exercise reads its prediction through toolkit.committed (which
    refuses a prediction() that computes), or says plainly that the check cannot tell."""
    nb = read(SOLUTIONS / path.name)
    starts = [i for i, c in enumerate(nb.cells)
              if c.cell_type == "markdown" and EXERCISE_HEADING.search(c.source)]
    for k, start in enumerate(starts):
        head = nb.cells[start].source
        if KIND_LINE.search(head).group(1) != "predict, then measure":
            continue
        cells = nb.cells[start:starts[k + 1] if k + 1 < len(starts) else len(nb.cells)]
        checked = any("committed(" in c.source for c in cells if "check" in tags(c))
        assert checked or "cannot tell" in head, (
            f"{head.splitlines()[0]}: read prediction() with committed(...) in a check, or say "
            "that the check cannot tell a prediction from a measurement")


def _solution_blocks(nb) -> list[str]:
    """The code of every answer, between the solution markers, dedented."""
    import textwrap
    blocks, inside, lines = [], False, []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for line in cell.source.splitlines():
            if "# BEGIN SOLUTION" in line:
                inside, lines = True, []
            elif "# END SOLUTION" in line:
                inside = False
                blocks.append(textwrap.dedent("\n".join(lines)))
            elif inside:
                lines.append(line)
    return blocks


def _code_fragments(nb) -> set[str]:
    """The code of each answer line (its comment cut off), normalised, 15 characters or more."""
    found = set()
    for block in _solution_blocks(nb):
        for line in block.splitlines():
            code = " ".join(line.split("#")[0].split())
            if len(code) >= 15:
                found.add(code)
    return found


def _solution_only_names(path, nb) -> set[str]:
    """Names the answers define (variables, functions, arguments) that appear nowhere in the
    exercise notebook or the chapter: a hint naming one hands over the answer's structure."""
    import ast
    defined = set()
    for block in _solution_blocks(nb):
        try:
            tree = ast.parse(block)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                defined.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                defined.add(node.name)
            elif isinstance(node, ast.arg):
                defined.add(node.arg)
    seen = set()
    for other in (read(EXERCISES / path.name), read(path)):
        for cell in other.cells:
            seen |= set(re.findall(r"[A-Za-z_]\w*", cell.source))
    return {n for n in defined - seen if len(n) > 1}


@pytest.mark.parametrize("path", CHAPTERS, ids=ids)
def test_hints_come_in_tiers_without_the_answer(path):
    """Hints in tiers (the idea; what must hold; for *implement*, a shape plan), none of which is
    the answer: no line of the answer's code, no identifier only the answer defines, no code
    block (issue 26; book/chapter_contract.md, Exercises)."""
    nb, cells = _exercises(path)
    answer, fragments = _solution_lines(nb), _code_fragments(nb)
    private = _solution_only_names(path, nb)
    for title, src in cells:
        kind = KIND_LINE.search(src).group(1) if KIND_LINE.search(src) else None
        hints = HINT.findall(src)
        labels = [" ".join(h[0].split()) for h in hints]
        want = HINT_LABELS[:3] if kind == "implement" else HINT_LABELS[:2]
        assert labels == want, f"{title}: hints {labels}; a {kind} exercise folds {want}"
        for label, body in hints:
            flat = " ".join(body.split())
            given = [line for line in map(lambda s: " ".join(s.split()), body.splitlines())
                     if line in answer] + [f for f in fragments if f in flat]
            assert not given, f"{title}, {label}: the hint gives a line of the answer: {given[0]!r}"
            lifted = [span for span in re.findall(r"`([^`]+)`", body)
                      if len(span) >= 8 and re.search(r"[()\[\]=+*/@-]", span)
                      and any(span.replace(" ", "") in f.replace(" ", "") for f in fragments)]
            assert not lifted, f"{title}, {label}: the hint quotes the answer's code: {lifted[0]!r}"
            spans = " ".join(re.findall(r"`([^`]+)`", body))
            named = sorted(n for n in private
                           if re.search(rf"\b{re.escape(n)}\b", spans)
                           or ("_" in n and re.search(rf"\b{re.escape(n)}\b", body)))
            assert not named, (f"{title}, {label}: the hint names {named}, which only the answer "
                               "defines")
            fences = re.findall(r"```.*?```", body, re.S)
            assert not fences, f"{title}, {label}: a code block in a hint; give the idea"


def _exercise_minutes(path) -> int | None:
    m = re.search(r"\*\*Time:\*\*[^\n]*?(\d+) minutes for the exercises", read(path).cells[0].source)
    return int(m.group(1)) if m else None


@pytest.mark.parametrize("path", CHAPTERS, ids=ids)
def test_exercise_times_add_up(path):
    _, cells = _exercises(path)
    total = sum(int(KIND_LINE.search(src).group(2)) for _, src in cells)
    assert _exercise_minutes(path) == total, (
        f"the opening cell's **Time:** gives {_exercise_minutes(path)} minutes for the exercises; "
        f"their *Time:* lines add up to {total}")


@pytest.mark.parametrize("path", CHAPTERS, ids=ids)
def test_times_agree_with_the_self_paced_page(path):
    """The chapter's opening **Time:** line and its row of book/self_paced.md say the same."""
    from nbcommon import ROOT
    row = next((line for line in (ROOT / "book" / "self_paced.md").read_text().splitlines()
                if f"(../notebooks/{path.name})" in line), None)
    assert row, f"book/self_paced.md has no row for {path.name}"
    cols = [c.strip() for c in row.strip("|").split("|")]
    m = re.search(r"\*\*Time:\*\* about (\d+) minutes( to read and run)?", read(path).cells[0].source)
    assert m, "the opening cell's **Time:** line reads 'about N minutes to read and run, ...'"
    assert cols[1].startswith(f"{m.group(1)} min"), (
        f"self_paced.md says {cols[1]!r} to read and run; the chapter says {m.group(1)} minutes")
    core, core_minutes, total = _sets(path)
    assert cols[2:4] == [f"{core_minutes} min", f"{total} min"], (
        f"self_paced.md says {cols[2:4]} for the core set and all exercises; the chapter's "
        f"exercises say {core_minutes} min and {total} min")


@pytest.mark.parametrize("path", CHAPTERS, ids=ids)
def test_solution_opening_counts_its_exercises(path):
    nb = read(SOLUTIONS / path.name)
    n = len(exercise_cells(nb))
    assert nb.cells[0].source.split("\n\n")[1].startswith(f"{NUMBER_WORDS[n]} exercises on"), (
        f"the opening cell of solutions/{path.name} should say '{NUMBER_WORDS[n]} exercises on'")


@pytest.mark.parametrize("path", CHAPTERS, ids=ids)
def test_no_placeholder_left(path):
    """No TODO of the exercise skeleton (tools/new_exercise.py) is left in the chapter or its
    solutions (cell sources only: a figure's base64 may spell anything)."""
    import new_exercise
    for nb_path in (path, SOLUTIONS / path.name):
        left = new_exercise.leftover_todos(read(nb_path))
        assert not left, f"{nb_path.name}: placeholders left: {left[:3]}"


def test_new_exercise_skeleton_per_kind(tmp_path):
    """The skeleton of each kind has the cells that kind needs, a short function name, its
    TODOs (which --check then reports), and lines of at most 100 columns."""
    import new_exercise
    for kind in new_exercise.KINDS:
        cells = new_exercise.skeleton(7, "Share a prefix of a much longer sequence", kind, "12")
        types = [c.cell_type for c in cells]
        assert types == (["markdown", "code", "code", "markdown", "code"] if kind == "debug"
                         else ["markdown", "code", "code"]), (kind, types)
        assert "check" in cells[-1].metadata["tags"]
        assert "def share_a_prefix(" in "".join(c.source for c in cells)
        assert ("def prediction():" in cells[1].source) == (kind == "predict, then measure")
        assert ("committed(prediction)" in cells[-1].source) == (kind == "predict, then measure")
        labels = re.findall(r"<summary>(Hint \d)", cells[0].source)
        assert labels == (["Hint 1", "Hint 2", "Hint 3"] if kind == "implement"
                          else ["Hint 1", "Hint 2"]), (kind, labels)
        assert "*Set:*" in cells[0].source, kind
        assert all(len(line) <= 100 for c in cells for line in c.source.splitlines()), kind
    import nbformat
    nb = nbformat.v4.new_notebook(cells=cells)
    assert new_exercise.leftover_todos(nb)
