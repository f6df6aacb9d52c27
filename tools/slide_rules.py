"""Check a chapter's deck against the slide rules of book/chapter_contract.md.

The deck is what the cells' `slideshow` metadata makes of the notebook: cells of type
`skip` and `notes` are not on a slide. These rules are checked on the notebook itself: the
size of the deck and of each cell, a figure in every section that teaches an idea, few
near-empty slides, questions for the room with answers in the notes, notes that are a talk
track, links that resolve, and a lecture plan (book/lectures/NN_name.md). Whether every slide
fits 1280 x 720, and where the links lead, is checked in a browser (tests/test_browser_decks.py).

    python tools/slide_rules.py notebooks/04_scaled_dot_product.ipynb   # prints problems
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from nbcommon import read, tags

MIN_SLIDES, MAX_SLIDES = 20, 40
MAX_WORDS = 60          # prose words per visible markdown cell
MAX_CODE_LINES = 12
MAX_CODE_COLUMNS = 80
MAX_OUTPUT_LINES = 12
HIDDEN = {"skip", "notes"}
OUTPUT_ONLY = "slide-output-only"

# A slide is near-empty when it has no figure, no code, no display math, fewer than
# NEAR_EMPTY_WORDS words and at most NEAR_EMPTY_OUTPUT output lines; a deck has at most
# MAX_NEAR_EMPTY of them (its title slide and its question slides aside).
NEAR_EMPTY_WORDS, NEAR_EMPTY_OUTPUT, MAX_NEAR_EMPTY = 25, 2, 3
# Sections whose point is code or a list need no figure; every other level-2 section has one.
NO_FIGURE_NEEDED = re.compile(r"NumPy|PyTorch|Cross-check|Summary|Interview questions|Exercises")
# A question for the room opens its slide with one of these and is answered in the next
# `notes` cell ("Answer: ..."); a deck has MIN_QUESTIONS to MAX_QUESTIONS of them.
QUESTION = re.compile(r"^\*\*(Predict|Check your understanding):\*\*")
ANSWER = re.compile(r"^\**Answer:?\**:?")
MIN_QUESTIONS, MAX_QUESTIONS = 2, 5
# Speaker notes: at most this share of the slides (the title aside) has none.
MAX_WITHOUT_NOTES = 0.25
# Speaker notes are what the lecturer says: they never point at cells (hidden on a slide)
# nor at the seed articles the book was planned from.
NOT_IN_NOTES = re.compile(
    r"\b(?:the|this|that|next|previous|following)\s+cells?\b|\bcells?\s+(?:below|above)\b"
    r"|\b[Ss]eed\s+(?:0\d\d|article|correction)|\bSeed correction")
LINK = re.compile(r"\]\(([^)\s]+)\)")
LABEL = re.compile(r"^\(([\w-]+)\)=\s*$", re.M)
IMAGE_MIME = ("image/png", "image/svg+xml", "image/jpeg")
LECTURES = Path(__file__).resolve().parent.parent / "book" / "lectures"
LECTURE_HEADINGS = ["## Plan for 90 minutes", "## To fit 50 minutes", "## Live demo",
                    "## Prompts for the room", "## Exercises to assign"]


def slide_type(cell) -> str:
    return cell.metadata.get("slideshow", {}).get("slide_type", "-")


def prose_words(markdown: str) -> int:
    """Words a lecturer would read aloud: display math, code, comments and labels removed."""
    text = re.sub(r"\$\$.*?\$\$", " ", markdown, flags=re.S)
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"^\([\w-]+\)=\s*$", " ", text, flags=re.M)      # MyST labels
    text = re.sub(r"<[^>]+>", " ", text)                              # HTML tags
    return len(re.findall(r"[A-Za-z0-9$`][^\s]*", text))


def output_lines(cell) -> int:
    n = 0
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            n += len(out.text.rstrip("\n").splitlines())
        elif out.output_type in ("execute_result", "display_data"):
            data = out.get("data", {})
            if "image/png" in data or "image/svg+xml" in data or "text/html" in data:
                continue
            n += len(str(data.get("text/plain", "")).rstrip("\n").splitlines())
    return n


def has_figure(cell) -> bool:
    """A visible figure: an image output, or an image in markdown."""
    if cell.cell_type == "markdown":
        return bool(re.search(r"!\[|<img\b|<svg\b", cell.source))
    return any(m in out.get("data", {}) for out in cell.get("outputs", []) for m in IMAGE_MIME)


def slides_of(nb) -> list[list[int]]:
    """The visible cells of each slide, as cell indices, in deck order."""
    slides: list[list[int]] = []
    for i, cell in enumerate(nb.cells):
        kind = slide_type(cell)
        if kind in HIDDEN:
            continue
        if kind in ("slide", "subslide") or not slides:
            slides.append([])
        slides[-1].append(i)
    return slides


def near_empty(nb, cells: list[int]) -> bool:
    words = outputs = 0
    for i in cells:
        cell = nb.cells[i]
        if has_figure(cell):
            return False
        if cell.cell_type == "code":
            if OUTPUT_ONLY not in tags(cell) and cell.source.strip():
                return False
            outputs += output_lines(cell)
        elif cell.cell_type == "markdown":
            if re.search(r"\$\$|\\begin\{", cell.source) or "<table" in cell.source \
                    or re.search(r"^\|.*\|\s*$", cell.source, re.M):
                return False
            words += prose_words(cell.source)
    return words < NEAR_EMPTY_WORDS and outputs <= NEAR_EMPTY_OUTPUT


def sections(nb) -> list[tuple[str, list[int]]]:
    """Level-2 sections: (heading, the indices of their cells)."""
    found: list[tuple[str, list[int]]] = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("## "):
                    found.append((line[3:].strip(), []))
        if found:
            found[-1][1].append(i)
    return found


def known_labels() -> set[str]:
    root = Path(__file__).resolve().parent.parent
    labels = set()
    for folder in ("notebooks", "exercises", "solutions", "book"):
        for f in (root / folder).rglob("*.md"):
            labels.update(LABEL.findall(f.read_text(encoding="utf-8")))
        for f in (root / folder).glob("*.ipynb"):
            for cell in read(f).cells:
                labels.update(LABEL.findall(cell.source))
    return labels


_LABELS: set[str] = set()


def _labels() -> set[str]:
    if not _LABELS:
        _LABELS.update(known_labels())
    return _LABELS


def link_problems(path: Path, source: str, labels: set[str]) -> list[str]:
    found = []
    for target in LINK.findall(source):
        if re.match(r"https?://|mailto:", target):
            continue
        file, _, anchor = target.partition("#")
        if file and not (path.parent / file).exists():
            found.append(f"a link to {target!r}, which does not exist")
        elif anchor and not file and anchor not in labels:
            found.append(f"a link to #{anchor}, which is not a label (`(chNN-word)=`)")
    return found


def lecture_problems(path: Path) -> list[str]:
    plan = LECTURES / f"{path.stem}.md"
    if not plan.exists():
        return [f"no lecture plan: book/lectures/{plan.name}"]
    text = plan.read_text(encoding="utf-8")
    found = []
    if not text.startswith("# Lecture plan: chapter "):
        found.append(f"{plan.name}: the first line is not '# Lecture plan: chapter N, Title'")
    heads = [h for h in re.findall(r"^## .*$", text, re.M)]
    got = [next((h for h in heads if h.startswith(want)), None) for want in LECTURE_HEADINGS]
    missing = [w for w, g in zip(LECTURE_HEADINGS, got) if g is None]
    if missing:
        found.append(f"{plan.name}: missing headings {missing}")
    else:
        plan90 = text.split(LECTURE_HEADINGS[0], 1)[1].split("\n## ", 1)[0]
        minutes = [int(m) for m in re.findall(r"^\|\s*(\d+)\s*(?:min)?\s*\|", plan90, re.M)]
        if not 80 <= sum(minutes) <= 90:
            found.append(f"{plan.name}: the 90-minute plan's minutes add up to {sum(minutes)} "
                         "(a table whose first column is minutes per part; 80 to 90 in all)")
    return found


def problems(path: Path) -> list[str]:
    nb = read(path)
    found = []
    types = [slide_type(c) for c in nb.cells]
    slides = sum(t in ("slide", "subslide") for t in types)
    if not MIN_SLIDES <= slides <= MAX_SLIDES:
        found.append(f"{slides} slides; a deck has {MIN_SLIDES} to {MAX_SLIDES}")
    if types and types[0] != "slide":
        found.append("the first cell (the title) must open a slide")
    for i, cell in enumerate(nb.cells):
        kind = slide_type(cell)
        if kind in HIDDEN:
            continue
        where = f"cell {i} ({cell.source.strip().splitlines()[0][:50] if cell.source.strip() else ''!r})"
        if cell.cell_type == "markdown":
            words = prose_words(cell.source)
            if i > 0 and words > MAX_WORDS:
                found.append(f"{where}: {words} words on a slide (at most {MAX_WORDS}); "
                             "shorten it or make it `notes`")
        elif cell.cell_type == "code":
            if OUTPUT_ONLY not in tags(cell):
                lines = cell.source.rstrip("\n").splitlines()
                if len(lines) > MAX_CODE_LINES:
                    found.append(f"{where}: {len(lines)} code lines on a slide (at most "
                                 f"{MAX_CODE_LINES}); `skip` it or tag it `{OUTPUT_ONLY}`")
                wide = max((len(l) for l in lines), default=0)
                if wide > MAX_CODE_COLUMNS:
                    found.append(f"{where}: a code line of {wide} characters on a slide "
                                 f"(at most {MAX_CODE_COLUMNS})")
            n = output_lines(cell)
            if n > MAX_OUTPUT_LINES:
                found.append(f"{where}: {n} output lines on a slide (at most {MAX_OUTPUT_LINES})")
    found += deck_problems(path, nb)
    return found


def deck_problems(path: Path, nb) -> list[str]:
    """The rules a lecturer needs beyond size: figures, fullness, questions, notes, links."""
    found = []
    slides = slides_of(nb)
    questions = [s for s in slides if nb.cells[s[0]].cell_type == "markdown"
                 and QUESTION.match(nb.cells[s[0]].source.strip())]
    empty = [s for s in slides[1:] if s not in questions and near_empty(nb, s)]
    if len(empty) > MAX_NEAR_EMPTY:
        firsts = ", ".join(str(s[0]) for s in empty)
        found.append(f"{len(empty)} near-empty slides (at most {MAX_NEAR_EMPTY}; no figure, no "
                     f"code, no display math, < {NEAR_EMPTY_WORDS} words): cells {firsts}")
    for heading, cells in sections(nb):
        if not NO_FIGURE_NEEDED.search(heading) and not any(
                slide_type(nb.cells[i]) not in HIDDEN and has_figure(nb.cells[i]) for i in cells):
            found.append(f"section {heading[:50]!r} has no figure on a slide")
        if "Interview questions" in heading:
            shown = [i for i in cells if nb.cells[i].cell_type == "markdown"
                     and slide_type(nb.cells[i]) not in HIDDEN
                     and nb.cells[i].source.count("?") >= 2 and "<details" not in nb.cells[i].source]
            if not shown:
                found.append("the interview questions are not on a slide (a visible cell that "
                             "lists them; the answers stay in `notes`)")
    starts = [s[0] for s in slides] + [len(nb.cells)]
    silent = [starts[k] for k in range(1, len(slides)) if not any(
        slide_type(nb.cells[i]) == "notes" for i in range(starts[k], starts[k + 1]))]
    if len(silent) > MAX_WITHOUT_NOTES * (len(slides) - 1):
        found.append(f"{len(silent)} of {len(slides) - 1} slides have no speaker notes (at most "
                     f"{MAX_WITHOUT_NOTES:.0%}): the slides opened by cells "
                     + ", ".join(map(str, silent)))
    if not MIN_QUESTIONS <= len(questions) <= MAX_QUESTIONS:
        found.append(f"{len(questions)} question slides (`**Predict:**` or `**Check your "
                     f"understanding:**`); a deck has {MIN_QUESTIONS} to {MAX_QUESTIONS}")
    for s in questions:
        following = [c for c in nb.cells[s[0] + 1:s[0] + 4] if slide_type(c) == "notes"]
        if not following or not ANSWER.match(following[0].source.strip()):
            found.append(f"cell {s[0]}: a question slide without an `Answer:` notes cell after it")
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and slide_type(cell) not in HIDDEN and has_figure(cell):
            alt = cell.metadata.get("mystnb", {}).get("image", {}).get("alt", "")
            if len(alt.split()) < 3:
                found.append(f"cell {i}: a figure on a slide without an alt text (cell metadata "
                             '"mystnb": {"image": {"alt": "..."}}, a sentence saying what it shows)')
    labels = _labels()
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown" or slide_type(cell) == "skip":
            continue
        if slide_type(cell) == "notes":
            bad = NOT_IN_NOTES.search(cell.source)
            if bad:
                found.append(f"cell {i}: notes mention {bad.group(0)!r} (cells are hidden on a "
                             "slide, and the seeds are not the lecture)")
        for p in link_problems(path, cell.source, labels):
            found.append(f"cell {i}: {p}")
    found += lecture_problems(path)
    return found


def main(argv: list[str]) -> int:
    bad = 0
    for arg in argv:
        for p in problems(Path(arg)):
            print(f"{arg}: {p}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
