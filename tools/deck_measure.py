"""How a slide of a deck is measured in the browser, shared by tests/test_browser_decks.py and
tools/deck_report.py, so that a maintainer sees before committing what the test will see.

A slide is measured at 1280 x 720 after its figures have loaded and MathJax has typeset it.
Besides its size and what it shows, the measure records how much of the slide its content
covers, as a lecturer sees it: the box around every line of text, formula, code line and figure
(not around the block elements, which span the slide's width however short their text).

A slide is **near-empty** when it has no figure and that box covers less than a quarter of the
slide: a heading and a short print in the top-left corner, the rest white. The title slide and
questions for the room (short on purpose) are not counted.
"""
from __future__ import annotations

SLIDE_W, SLIDE_H = 1280, 720
COVER = 0.25        # a slide whose content box covers less than this, without a figure, is near-empty
MAX_NEAR_EMPTY = 3  # ... and a deck has at most this many

SLIDE_LIST = """() => Reveal.getSlides().map(s => {
    const i = Reveal.getIndices(s); return [i.h, i.v || 0]; })"""

MEASURE = """async ([h, v]) => {
    const W = SLIDE_WIDTH, H = SLIDE_HEIGHT;
    Reveal.slide(h, v);
    const s = Reveal.getCurrentSlide();
    await Promise.all([...s.querySelectorAll('img')].map(i => i.complete ? null :
        new Promise(r => { i.onload = i.onerror = r; })));
    await new Promise(r => (window.MathJax && MathJax.Hub)
        ? MathJax.Hub.Queue(() => { window.fitFigures(s); r(); }) : (window.fitFigures(s), r()));
    const text = s.innerText;
    const scale = Reveal.getScale() || 1, box0 = s.getBoundingClientRect();
    const shown = [...s.children].filter(c => c.tagName !== 'ASIDE');
    const bottom = Math.max(0, ...shown.map(c => (c.getBoundingClientRect().bottom - box0.top) / scale));
    // the box around what is drawn: text lines, formulas, figures
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    const add = r => { if (r.width < 1 || r.height < 1) return;
        x0 = Math.min(x0, r.left); y0 = Math.min(y0, r.top);
        x1 = Math.max(x1, r.right); y1 = Math.max(y1, r.bottom); };
    const walker = document.createTreeWalker(s, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
        const n = walker.currentNode;
        if (!n.textContent.trim() || n.parentElement.closest('aside, script, style, .MathJax_Preview'))
            continue;
        const range = document.createRange(); range.selectNodeContents(n);
        [...range.getClientRects()].forEach(add);
    }
    s.querySelectorAll('img, svg, canvas, table').forEach(e => {
        if (!e.closest('aside')) add(e.getBoundingClientRect()); });
    const cover = x1 > x0 ? ((x1 - x0) / scale) * ((y1 - y0) / scale) / (W * H) : 0;
    const figures = [...s.querySelectorAll('img')].filter(i => !i.closest('aside')).length;
    return {height: s.scrollHeight, width: s.scrollWidth, filled: bottom / H, cover: cover,
            figures: figures,
            question: /^(Predict|Check your understanding):/.test(text.trim()),
            scales: [...s.querySelectorAll('img')].filter(i => i.naturalHeight)
                .map(i => i.getBoundingClientRect().height / scale / i.naturalHeight),
            wide_code: [...s.querySelectorAll('pre')]
                .filter(p => p.scrollWidth > p.clientWidth + 1).length,
            prompt: /In\\s*\\[\\d*\\]:/.test(text),
            alts: [...s.querySelectorAll('img')].map(i => i.getAttribute('alt') || ''),
            title: ([...s.querySelectorAll('h1, h2, h3')].find(h => !h.closest('aside'))
                    || {textContent: ''}).textContent.slice(0, 60)};
}""".replace("SLIDE_WIDTH", str(SLIDE_W)).replace("SLIDE_HEIGHT", str(SLIDE_H))


def near_empty(slides: list[dict]) -> list[int]:
    """Slide numbers (1-based) of a deck's near-empty slides, its title and questions aside."""
    return [i + 1 for i, s in enumerate(slides)
            if i and not s["question"] and not s["figures"] and s["cover"] < COVER]


# MathJax 2 pauses 50 ms between the phases of every typesetting call (processSectionDelay, so that
# a page being typeset stays responsive), four pauses per call; the deck re-renders each part of a
# slide on every slide change, so measuring was mostly waiting. Once the deck is loaded (its first
# typesetting done with the pauses, as a reader gets it), the measuring sets the pause to 0: every
# call does the same work and ends in the same page, only without the waits. The 554 slides of
# chapters 1-16, measured both ways in one browser: identical measures, errors, titles and text,
# in 85 s instead of 282 s.
# The arrow-key, print and speaker-view tests leave the pause as it is.
NO_PAUSES = """() => { if (window.MathJax && MathJax.Hub) { MathJax.Hub.processSectionDelay = 0; } }"""


def measure_loaded(page) -> list[dict]:
    """Every slide of the deck that `page` has loaded, measured (its viewport: 1280 x 720)."""
    page.wait_for_selector("body[data-deck-ready]", timeout=30000)
    page.evaluate(NO_PAUSES)
    return [page.evaluate(MEASURE, hv) for hv in page.evaluate(SLIDE_LIST)]


def measure_deck(page, url: str) -> list[dict]:
    """Every slide of the deck at `url`, measured (the page's viewport: 1280 x 720)."""
    page.goto(url, wait_until="networkidle")
    return measure_loaded(page)
