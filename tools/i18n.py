"""The Chinese edition's catalogues: refresh them after an English edit, and check them.

    python tools/i18n.py refresh   # extract the English, update locale/, fill what is known,
                                   # then list what is new or fuzzy (`make locale`)
    python tools/i18n.py report    # list untranslated and fuzzy messages (exit 1 if any)
    python tools/i18n.py lint      # check every translation keeps the English's code, formulas,
                                   # links and markup, and still parses (exit 1 on a problem)

One catalogue per page: locale/zh_CN/LC_MESSAGES/<page>.po, where <page> is the page's path
without its suffix (notebooks/04_scaled_dot_product, book/glossary). A message is a paragraph,
heading, list item, table cell or question of the English page, in markdown; its translation is
parsed again as markdown when the Chinese site is built (README, "The Chinese edition").

`refresh` fills two kinds of message itself, and never marks them fuzzy:
- a message with no words to translate (a formula, a number, a code span), kept as it is;
- a message translated already on another page (a hint title, a recurring heading), copied.
"""
from __future__ import annotations

import argparse
import collections
import datetime as dt
import functools
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LANG = "zh_CN"
LOCALE = ROOT / "locale"
CATALOGUES = LOCALE / LANG / "LC_MESSAGES"
POT = ROOT / "_build" / "gettext"
FIXED_DATE = dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc)  # headers stay the same


def _babel():
    from babel.messages.pofile import read_po, write_po
    return read_po, write_po


def page_of(path: Path, base: Path = CATALOGUES) -> str:
    return path.relative_to(base).with_suffix("").as_posix()


def read(path: Path):
    read_po, _ = _babel()
    with open(path, "rb") as f:
        return read_po(f, locale=LANG if path.suffix == ".po" else None)


def write(catalog, path: Path) -> None:
    _, write_po = _babel()
    catalog.project, catalog.version = "Attention, Executed", ""
    catalog.copyright_holder = "The Attention, Executed authors"
    catalog.msgid_bugs_address = ""
    catalog.creation_date = catalog.revision_date = FIXED_DATE
    catalog.last_translator = catalog.language_team = "The Attention, Executed authors"
    catalog.fuzzy = False
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        write_po(f, catalog, width=76, ignore_obsolete=True, include_previous=False)


def catalogues() -> dict[str, Path]:
    """{page: path of its .po}."""
    return {page_of(p): p for p in sorted(CATALOGUES.rglob("*.po"))}


# -- what a translation must keep ------------------------------------------------------------
def has_words(text: str) -> bool:
    """Whether a message has English words outside code, formulas, link targets and tags."""
    s = re.sub(r"(`+).+?\1", " ", text, flags=re.S)
    s = re.sub(r"\$\$.+?\$\$", " ", s, flags=re.S)
    s = re.sub(r"\$[^$]+\$", " ", s)
    s = re.sub(r"\]\([^)]*\)", "]", s)
    s = re.sub(r"<[^>]+>", " ", s)
    s = re.sub(r"https?://\S+", " ", s)
    return re.search(r"[A-Za-z]{2,}", s) is not None


def _parts(text: str) -> dict:
    """The parts of a message a translation must keep: code, math, link targets, roles, tags."""
    code = [m.group(2) for m in re.finditer(r"(`+)(.+?)\1", text, re.S)]
    rest = re.sub(r"(`+)(.+?)\1", " ", text, flags=re.S)
    display = re.findall(r"\$\$.+?\$\$", rest, re.S)
    rest = re.sub(r"\$\$.+?\$\$", " ", rest, flags=re.S)
    inline = re.findall(r"\$[^$]+\$", rest)
    rest = re.sub(r"\$[^$]+\$", " ", rest)
    return {
        "code": collections.Counter(code),
        "formulas": collections.Counter(display + inline),
        "link targets": collections.Counter(re.findall(r"\]\(([^)\s]+)\)", rest)),
        "roles": collections.Counter(re.findall(r"\{[a-z:-]+\}", rest)),
        "HTML tags": collections.Counter(re.findall(r"</?[a-zA-Z][^>]*>", rest)),
        "bold markers": collections.Counter({"**": len(re.findall(r"\*\*", rest))}),
    }


_MD = None


def _unparsed_emphasis(text: str) -> list[str]:
    """Text runs that still hold a `*` after markdown parsing: emphasis that did not parse."""
    global _MD
    if _MD is None:
        from markdown_it import MarkdownIt
        from mdit_py_plugins.dollarmath import dollarmath_plugin
        _MD = MarkdownIt("commonmark").use(dollarmath_plugin, allow_space=True,
                                           double_inline=True)
    found = []

    def walk(tokens):
        for t in tokens:
            if t.type == "text" and re.search(r"(^|[^\\])\*", t.content):
                found.append(t.content)
            if t.children:
                walk(t.children)
    walk(_MD.parse(text))
    return found


BLOCK_START = re.compile(r"^(\d+[.)]\s|[-+*]\s|#|>)")


def lint_entry(msgid: str, msgstr: str) -> list[str]:
    """What is wrong with one translation ([] if nothing)."""
    if msgstr == msgid:     # kept as it is: Sphinx leaves the English node untouched
        return []
    problems = []
    english, chinese = _parts(msgid), _parts(msgstr)
    for kind in english:
        if english[kind] != chinese[kind]:
            lost = list((english[kind] - chinese[kind]).elements())[:3]
            added = list((chinese[kind] - english[kind]).elements())[:3]
            problems.append(f"{kind} differ (only in the English: {lost}; only in the "
                            f"translation: {added})")
    if _unparsed_emphasis(msgstr) and not _unparsed_emphasis(msgid):
        problems.append("an emphasis marker does not parse (Chinese punctuation just inside "
                        "`**`: move it outside)")
    if BLOCK_START.match(msgstr):
        problems.append("starts like a list item, heading or quote, so it would not render as "
                        "the English does: escape its first mark ('4\\. ' for '4. ')")
    return problems


# -- the glossary is the rule --------------------------------------------------------------------
def glossary() -> list[tuple[str, list[str]]]:
    """[(English term, [its Chinese renderings])] from book/glossary.md's headings,
    `English term, other name (中文 / 另一中文)`; one entry per English name."""
    terms = []
    text = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    for line in text.splitlines():
        m = re.match(r"^([^\s:].*?) \(([^)]*[\u4e00-\u9fff][^)]*)\)\s*$", line)
        if not m:
            continue
        chinese = [z.strip() for z in re.split(r"[,，、；;/]", m.group(2)) if z.strip()]
        for name in re.split(r",\s*", re.sub(r"\s*\([^)]*\)", "", m.group(1))):
            if name.strip():
                terms.append((name.strip(), chinese))
    return terms


@functools.lru_cache(maxsize=None)
def _term_pattern(english: str):
    return re.compile(r"(?<![A-Za-z])" + re.escape(english.lower()) + r"s?(?![A-Za-z])")


def term_problems(msgid: str, msgstr: str, terms) -> list[str]:
    """Glossary terms of several words that the English uses and the translation renders
    neither with the glossary's Chinese nor in English."""
    if msgstr == msgid:
        return []
    found = []
    low = msgid.lower()
    for english, chinese in terms:
        if len(re.findall(r"[A-Za-z0-9]+", english)) < 2:
            continue        # one-word terms (kernel, decode) have senses the glossary is not
        if english.lower() not in low:
            continue
        pattern = _term_pattern(english)
        if pattern.search(low) and not any(z in msgstr for z in chinese) \
                and english.lower() not in msgstr.lower():
            found.append(f"{english!r} is not {' / '.join(chinese)}")
    return found


# -- the state of the catalogues ----------------------------------------------------------------
def missing(catalog) -> tuple[list[str], list[str]]:
    """(untranslated msgids, fuzzy msgids) of a catalogue."""
    untranslated, fuzzy = [], []
    for m in catalog:
        if not m.id:
            continue
        if m.fuzzy:
            fuzzy.append(m.id)
        elif not m.string:
            untranslated.append(m.id)
    return untranslated, fuzzy


def stale(pot_dir: Path) -> dict[str, list[str]]:
    """{page: English messages of a fresh extraction that its catalogue does not translate}."""
    have = catalogues()
    out = {}
    for pot in sorted(pot_dir.rglob("*.pot")):
        page = page_of(pot, pot_dir)
        known = {}
        if page in have:
            known = {m.id: m for m in read(have[page]) if m.id}
        gaps = [m.id for m in read(pot) if m.id and (
            m.id not in known or known[m.id].fuzzy or not known[m.id].string)]
        if gaps:
            out[page] = gaps
    return out


def _short(text: str, n: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n - 3] + "..."


def report(limit: int = 5) -> int:
    """Print untranslated and fuzzy messages per page; the number of them."""
    total = 0
    for page, path in catalogues().items():
        untranslated, fuzzy = missing(read(path))
        if not untranslated and not fuzzy:
            continue
        total += len(untranslated) + len(fuzzy)
        print(f"{page}: {len(untranslated)} new, {len(fuzzy)} fuzzy")
        for kind, ids in (("new", untranslated), ("fuzzy", fuzzy)):
            for msgid in ids[:limit]:
                print(f"    {kind}: {_short(msgid)}")
    print(f"{total} messages to translate" if total else "every message is translated")
    return total


def lint() -> int:
    bad = 0
    for page, path in catalogues().items():
        for m in read(path):
            if m.id and m.string and not m.fuzzy:
                for problem in lint_entry(m.id, m.string):
                    bad += 1
                    print(f"{page}: {problem}\n    English: {_short(m.id)}")
    print(f"{bad} problems" if bad else "every translation keeps its code, formulas and markup")
    return bad


# -- refresh -----------------------------------------------------------------------------------
def extract(out: Path) -> Path:
    """Build the message templates (.pot) of every page into OUT/_build/gettext."""
    subprocess.run([sys.executable, str(ROOT / "tools" / "build_book.py"), "--builder",
                    "gettext", "--out", str(out)], check=True, cwd=ROOT)
    return out / "_build" / "gettext"


def fill(paths) -> int:
    """Fill, in place, messages with no words (kept) and messages translated elsewhere."""
    memory = {}
    for path in catalogues().values():
        for m in read(path):
            if m.id and m.string and not m.fuzzy:
                memory.setdefault(m.id, m.string)
    filled = 0
    for path in paths:
        catalog, changed = read(path), False
        for m in catalog:
            if not m.id or (m.string and not m.fuzzy):
                continue
            known = m.id if not has_words(m.id) else memory.get(m.id)
            if known:
                m.string, changed = known, True
                m.flags.discard("fuzzy")
                filled += 1
        write(catalog, path)
    return filled


def refresh() -> int:
    pot = extract(ROOT / "_build" / "i18n")
    subprocess.run([sys.executable, "-m", "sphinx_intl", "update", "-p", str(pot), "-d",
                    str(LOCALE), "-l", LANG, "--line-width", "76"], check=True, cwd=ROOT,
                   stdout=subprocess.DEVNULL)
    pages = {page_of(p, pot) for p in pot.rglob("*.pot")}
    for page, path in catalogues().items():
        if page not in pages:           # a page that left the book
            path.unlink()
            print(f"removed {path.relative_to(ROOT)} (the page is gone)")
    filled = fill(catalogues().values())
    print(f"filled {filled} messages (no words to translate, or translated on another page)")
    return report()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["refresh", "report", "lint"])
    args = parser.parse_args(argv)
    if args.command == "refresh":
        refresh()
        return 0
    if args.command == "report":
        return 1 if report() else 0
    return 1 if lint() else 0


if __name__ == "__main__":
    sys.exit(main())
