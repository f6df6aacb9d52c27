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
KIND_LINE = re.compile(r"^\*Kind:\* (.+?) · \*Time:\* (\d+) min\s*$", re.M)
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
def test_exercises_state_kind_and_time(path):
    _, cells = _exercises(path)
    kinds = []
    for title, src in cells:
        m = KIND_LINE.search(src)
        assert m, f"{title}: no '*Kind:* derive · *Time:* 10 min' line under the heading"
        assert m.group(1) in KINDS, f"{title}: kind {m.group(1)!r} is not one of {KINDS}"
        kinds.append(m.group(1))
    others = [k for k in kinds if k != "implement"]
    assert len(others) >= 2, (f"kinds {kinds}: at least two exercises must be derive, predict, "
                              "then measure, debug or extend")


@pytest.mark.parametrize("path", CHAPTERS, ids=ids)
def test_hints_come_in_tiers_without_the_code(path):
    nb, cells = _exercises(path)
    answer = _solution_lines(nb)
    for title, src in cells:
        hints = HINT.findall(src)
        labels = [h[0].split(":")[0].strip() for h in hints]
        assert labels[:2] == ["Hint 1", "Hint 2"], (
            f"{title}: hints {labels}; fold them as 'Hint 1: the idea', then 'Hint 2: ...'")
        for label, body in hints:
            given = [line for line in map(lambda s: " ".join(s.split()), body.splitlines())
                     if line in answer]
            assert not given, f"{title}, {label}: the hint gives a line of the answer: {given[0]!r}"
            fences = re.findall(r"```.*?```", body, re.S)
            assert all(f.count("\n") <= 2 for f in fences), (
                f"{title}, {label}: a code block in a hint; give the idea or the equation")


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
    minutes = _exercise_minutes(path)
    if minutes is not None:
        assert cols[2] == f"{minutes} min", (
            f"self_paced.md says {cols[2]!r} for the exercises; the chapter says {minutes} minutes")


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
        assert all(len(line) <= 100 for c in cells for line in c.source.splitlines()), kind
    import nbformat
    nb = nbformat.v4.new_notebook(cells=cells)
    assert new_exercise.leftover_todos(nb)
