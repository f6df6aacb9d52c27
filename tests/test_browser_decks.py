"""The slide decks, checked in a real browser (headless Chromium), as a lecturer uses them.

On a projector (1280 x 720): every deck loads with no console error and no request outside the
site, is titled by its chapter, shows no `In [n]:` prompt and no raw TeX, gives its figures
an alt text, and every slide fits 1280 x 720; figures grow to use their slide and few slides
are near-empty (tools/deck_measure.py); the arrow keys walk every slide, sub-slides included; every link on a slide or
in the notes leads to a page (and a section) of the published site; the speaker view shows
each formula of the notes once; the print view gives one PDF page per slide.

The decks are built by tools/make_slides.py into the built site's slides/ folder, as
published (the site: fixture `book_build`). Skipped without Chromium, as tests/test_browser.py.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from browserlib import (RAW_TEX, SLIDE_H, SLIDE_W, _meaningless, _open, launched, serve, summary,
                        visit_all)
from deck_measure import COVER, MAX_NEAR_EMPTY, SLIDE_LIST, measure_loaded, near_empty
from nbcommon import chapter_notebooks


BROWSER_SUMMARY: dict = {}


@pytest.fixture(scope="module", autouse=True)
def _summary(browser_summary_dir):
    with summary(browser_summary_dir / "browser_summary_decks.json", BROWSER_SUMMARY):
        yield


@pytest.fixture(scope="module")
def site(book_build):
    """The built site with the decks in slides/, served on 127.0.0.1: (base URL, folder)."""
    import make_slides

    result, html = book_build
    if result.returncode != 0 or not (html / "index.html").exists():
        pytest.fail("the book did not build (see test_book.py)")
    decks = html / "slides"
    # ATTN_DECK_SOURCES=folder: decks of the notebooks in that folder (to try slide types on a
    # scratch copy of a chapter); by default every chapter in notebooks/ but 00_.
    sources = os.environ.get("ATTN_DECK_SOURCES")
    chapters = chapter_notebooks(Path(sources)) if sources else make_slides.deck_notebooks()
    try:
        make_slides.main([*map(str, chapters), "--out", str(decks)])
    except Exception as exc:            # e.g. npm cannot reach its registry
        pytest.fail(f"make_slides.py could not build the decks: {exc}")
    with serve(html) as base:
        yield base, html


@pytest.fixture(scope="module")
def browser():
    with launched() as b:
        yield b


SLIDE_TEXT = """() => {
    const clone = document.querySelector('.reveal .slides').cloneNode(true);
    clone.querySelectorAll('pre, code, script, style, .MathJax, .MathJax_CHTML, .MathJax_Preview, '
        + '.mjx-chtml, aside.notes').forEach(n => n.remove());
    return clone.textContent;
}"""


@pytest.fixture(scope="module")
def decks(site, browser):
    """Every slide of every deck, measured at 1280 x 720."""
    base, html = site

    def visit(page, name):
        slides = measure_loaded(page)
        page.evaluate("() => new Promise(r => MathJax.Hub.Queue(r))")
        return {"slides": slides, "errors": list(page.errors), "external": list(page.external),
                "title": page.title(), "text": page.evaluate(SLIDE_TEXT)}

    # two decks side by side (browserlib.visit_all): the next one loads while one is measured
    names = ["slides/" + deck.name for deck in sorted((html / "slides").glob("*.slides.html"))]
    found = {name.removeprefix("slides/"): d for name, d in
             visit_all(browser, base, names, {"width": SLIDE_W, "height": SLIDE_H}, visit,
                       tabs=2).items()}
    BROWSER_SUMMARY["slides checked"] = sum(len(d["slides"]) for d in found.values())
    BROWSER_SUMMARY["slides per deck"] = ", ".join(
        f"{name.split('_')[0]}: {len(d['slides'])}" for name, d in found.items())
    tallest = max(((s["height"], name, i + 1) for name, d in found.items()
                   for i, s in enumerate(d["slides"])), default=(0, "-", 0))
    BROWSER_SUMMARY["tallest slide"] = (f"{tallest[0]} px for a {SLIDE_H} px slide "
                                        f"({tallest[1]}, slide {tallest[2]})")
    over = {name.split("_")[0]: sum(s["height"] > SLIDE_H or s["width"] > SLIDE_W
                                    for s in d["slides"]) for name, d in found.items()}
    BROWSER_SUMMARY["slides taller or wider than 1280 x 720"] = (
        f"{sum(over.values())} (" + ", ".join(f"{k}: {v}" for k, v in over.items()) + ")")
    sparse = {name.split("_")[0]: len(near_empty(d["slides"])) for name, d in found.items()}
    BROWSER_SUMMARY[f"near-empty slides (no figure, content box under {COVER:.0%})"] = (
        f"{sum(sparse.values())} (" + ", ".join(f"{k}: {v}" for k, v in sparse.items()) + ")")
    scales = [x for d in found.values() for s in d["slides"] for x in s["scales"]]
    if scales:
        BROWSER_SUMMARY["figures on slides"] = (
            f"{len(scales)}, shown at {min(scales):.2f}x to {max(scales):.2f}x their stored size "
            f"(median {sorted(scales)[len(scales) // 2]:.2f}x)")
    BROWSER_SUMMARY["console errors (decks)"] = sum(len(d["errors"]) for d in found.values())
    BROWSER_SUMMARY["external requests (decks)"] = sum(len(d["external"]) for d in found.values())
    return found


def test_decks_load_offline_without_errors(decks):
    assert decks, "no deck was built"
    bad = {name: d["errors"][:3] + d["external"][:3] for name, d in decks.items()
           if d["errors"] or d["external"]}
    assert not bad, f"console errors or requests outside the site: {bad}"


def test_decks_are_titled_by_chapter_without_prompts_or_raw_tex(decks):
    for name, d in decks.items():
        assert "Notebook" not in d["title"] and re.match(r"\d+\. ", d["title"]), (name, d["title"])
        assert not any(s["prompt"] for s in d["slides"]), f"{name}: an In [n]: prompt shows"
        raw = RAW_TEX.search(d["text"])
        assert not raw, f"{name}: raw TeX on a slide: {raw.group(0)!r}"


def test_deck_figures_have_meaningful_alt_text(decks):
    bad = {name: [a for s in d["slides"] for a in s["alts"] if _meaningless(a)]
           for name, d in decks.items()}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, f"figures on slides without a usable alt text: {bad}"


def test_every_slide_fits_1280_by_720(decks):
    bad = [f"{name} slide {i + 1} ({s['title']!r}): {s['width']} x {s['height']} px"
           + (f", {s['wide_code']} code blocks wider than the slide" if s["wide_code"] else "")
           for name, d in decks.items() for i, s in enumerate(d["slides"])
           if s["height"] > SLIDE_H or s["width"] > SLIDE_W or s["wide_code"]]
    assert not bad, f"{len(bad)} slides do not fit {SLIDE_W} x {SLIDE_H}:\n" + "\n".join(bad[:40])


def test_print_view_gives_one_pdf_page_per_slide(site, browser, decks, tmp_path):
    """reveal.js's print view (deck.html?print-pdf), printed to PDF as a lecturer would."""
    base, _ = site
    name, deck = next(iter(decks.items()))
    page = _open(browser, base, {"width": SLIDE_W, "height": SLIDE_H})
    page.goto(base + "slides/" + name + "?print-pdf", wait_until="networkidle")
    page.wait_for_selector("body[data-deck-ready]", timeout=30000)
    page.wait_for_timeout(1000)
    pages = page.evaluate("document.querySelectorAll('.pdf-page').length")
    pdf = tmp_path / "deck.pdf"
    page.pdf(path=str(pdf), width=f"{SLIDE_W}px", height=f"{SLIDE_H}px", print_background=True)
    errors = list(page.errors)
    page.close()
    in_pdf = len(re.findall(rb"/Type\s*/Page(?!s)", pdf.read_bytes()))
    BROWSER_SUMMARY["print view"] = f"{name}: {in_pdf} PDF pages for {len(deck['slides'])} slides"
    assert not errors, errors
    assert pages == len(deck["slides"]) == in_pdf, (pages, len(deck["slides"]), in_pdf)


def test_few_slides_are_near_empty(decks):
    """A slide a lecturer stands in front of is used: at most a few are a heading and a short
    print in the top-left corner, the rest white (tools/deck_measure.py; tools/deck_report.py
    prints the measure of each slide). A question for the room is short on purpose."""
    bad = {name: near_empty(d["slides"]) for name, d in decks.items()}
    bad = {k: v for k, v in bad.items() if len(v) > MAX_NEAR_EMPTY}
    assert not bad, (f"decks with more than {MAX_NEAR_EMPTY} near-empty slides (no figure, "
                     f"content box under {COVER:.0%} of the slide; slide numbers): {bad}")


def test_arrow_keys_walk_every_slide(site, browser, decks):
    """The lecture plan says the arrow keys move on: from a slide with sub-slides, the right
    arrow goes to its first sub-slide, not past it."""
    base, _ = site
    name, deck = next(((n, d) for n, d in decks.items() if len(d["slides"]) > 2), (None, None))
    page = _open(browser, base, {"width": SLIDE_W, "height": SLIDE_H})
    page.goto(base + "slides/" + name, wait_until="networkidle")
    page.wait_for_selector("body[data-deck-ready]", timeout=30000)
    order = page.evaluate(SLIDE_LIST)
    seen = [tuple(page.evaluate("() => { const i = Reveal.getIndices(); return [i.h, i.v || 0]; }"))]
    for _ in range(len(order) - 1):
        page.keyboard.press("ArrowRight")
        seen.append(tuple(page.evaluate(
            "() => { const i = Reveal.getIndices(); return [i.h, i.v || 0]; }")))
    page.close()
    assert [list(s) for s in seen] == order, f"{name}: the right arrow skips slides"
    assert any(v for _, v in seen), f"{name} has no sub-slides to walk; pick another deck"


def _links(html: str) -> list[str]:
    """Every link of the deck's slides and notes that points into the site."""
    body = html.split('<div class="slides">', 1)[-1]
    hrefs = re.findall(r'<a\s[^>]*href="([^"]+)"', body)
    return [h for h in hrefs if not re.match(r"[a-z]+:|#/|#$", h)]


def test_links_lead_to_published_pages(site, decks):
    """A link on a slide or in the notes opens a page of the site, at the section it names."""
    _, html = site
    bad, count = [], 0
    ids: dict = {}
    for name in decks:
        for href in _links((html / "slides" / name).read_text(encoding="utf-8")):
            count += 1
            file, _, anchor = href.partition("#")
            target = (html / "slides" / file).resolve() if file else html / "slides" / name
            if not target.is_file():
                bad.append(f"{name}: {href} (no such page)")
                continue
            if anchor:
                if target not in ids:
                    ids[target] = set(re.findall(r'id="([^"]+)"', target.read_text("utf-8")))
                if anchor not in ids[target]:
                    bad.append(f"{name}: {href} (no #{anchor} on that page)")
    BROWSER_SUMMARY["links in decks"] = f"{count}, {len(bad)} going nowhere"
    assert count, "no links found in the decks: the check would pass on nothing"
    assert not bad, f"{len(bad)} links in decks go nowhere:\n" + "\n".join(bad[:30])


SPEAKER_MATH = """() => {
    const notes = document.querySelector('.speaker-controls-notes');
    if (!notes) { return null; }
    const shown = e => e.getClientRects().length > 0 && getComputedStyle(e).display !== 'none';
    return {formulas: notes.querySelectorAll('script[type^="math/tex"]').length,
            glyphs: [...notes.querySelectorAll('.mjx-math')].filter(shown).length,
            mathml: [...notes.querySelectorAll('math')].filter(shown).length};
}"""


def test_speaker_view_shows_each_formula_once(site, browser, decks):
    """Press S as a lecturer does, then walk on: the notes of every slide with a formula show
    it once, on the slide where S was pressed and on each slide stepped to afterwards (the
    speaker window's copy of the notes must not lose its formulas on a slide change)."""
    base, html = site
    with_math = {}
    for name in decks:
        text = (html / "slides" / name).read_text(encoding="utf-8")
        notes = re.findall(r'<aside class="notes">(.*?)</aside>', text, re.S)
        with_math[name] = [i for i, n in enumerate(notes) if "\\(" in n or "$" in n]
    if not any(with_math.values()):
        pytest.fail("no deck has a formula in its notes: nothing to check")
    name = max(with_math, key=lambda n: len(with_math[n]))     # the deck with the most
    page = _open(browser, base, {"width": SLIDE_W, "height": SLIDE_H})
    page.goto(base + "slides/" + name, wait_until="networkidle")
    page.wait_for_selector("body[data-deck-ready]", timeout=30000)
    where = page.evaluate("""(ks) => ks.map(k => { const a = document.querySelectorAll('aside.notes')[k];
        const s = a.closest('section'); const i = Reveal.getIndices(s); return [i.h, i.v || 0]; })""",
                          with_math[name])
    stops = where[:1] + where[1:][::max(1, len(where) // 6)][:6]    # the first, then up to 6 more
    page.evaluate("([h, v]) => Reveal.slide(h, v)", stops[0])
    page.evaluate("() => new Promise(r => MathJax.Hub.Queue(r))")
    with page.expect_popup() as popup:
        page.keyboard.press("s")
    speaker = popup.value
    speaker.wait_for_selector(".speaker-controls-notes", timeout=30000)
    seen, bad = [], []
    for i, hv in enumerate(stops):
        if i:
            page.evaluate("([h, v]) => Reveal.slide(h, v)", hv)
            page.evaluate("() => new Promise(r => MathJax.Hub.Queue(r))")
        speaker.wait_for_timeout(1500)
        found = speaker.evaluate(SPEAKER_MATH)
        seen.append((tuple(hv), found))
        if not (found and found["formulas"] and found["glyphs"] == 0
                and found["mathml"] == found["formulas"]):
            bad.append(f"slide {hv}: {found}")
    speaker.close()
    page.close()
    BROWSER_SUMMARY["speaker view"] = (f"{name}: {len(stops)} slides with formulas in their notes, "
                                       f"stepped to with the speaker view open; {len(bad)} lost them")
    assert len(stops) >= 2, f"{name}: too few slides with formulas in the notes to step through"
    assert not bad, (f"{name}: each formula of the notes should show once in the speaker view, "
                     "on every slide stepped to:\n" + "\n".join(bad))
