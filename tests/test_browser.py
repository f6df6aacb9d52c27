"""The built site and the slide decks, checked in a real browser (headless Chromium).

What a reader and a lecturer see, on a desktop (1400 x 900), on a phone (400 x 800) and on a
projector (1280 x 720):

- every page and every deck loads with no console error and no request outside the site;
- math is typeset (no raw TeX left on a page or a slide);
- at phone width the sidebar and the page contents open from their buttons;
- no page is wider than a 400 px phone;
- at 1400 px, a code cell whose lines are at most 100 columns does not scroll sideways;
- every image has an alt text a screen-reader user can use (not a hashed file name);
- every slide of every deck fits 1280 x 720.

The site is the build of test_book.py (fixture `book_build`, built once per session); the
decks are built by tools/make_slides.py into the site's slides/ folder, as published.
Playwright for Python drives Debian's Chromium (`apt-get install chromium`; another binary
with CHROMIUM=/path). Without either, these checks are skipped and the summary says why.
"""
from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import threading
from pathlib import Path

import pytest

from nbcommon import NOTEBOOKS, chapter_notebooks

DESKTOP = {"width": 1400, "height": 900}
PHONE = {"width": 400, "height": 800}
SLIDE_W, SLIDE_H = 1280, 720
# Chromium without the background services a closed network refuses (see .ci/run)
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage"]
HASHED = re.compile(r"(^|/)[0-9a-f]{16,}\.(png|jpe?g|svg|gif)$|\.(png|jpe?g|svg|gif)$", re.I)
RAW_TEX = re.compile(r"\$\$|\\(frac|sqrt|mathrm|mathbb|top|begin|sum|exp|le|ne)\b")


def _chromium() -> str | None:
    for candidate in [os.environ.get("CHROMIUM"), "chromium", "chromium-browser",
                      "google-chrome", "google-chrome-stable"]:
        if candidate and (path := shutil.which(candidate)):
            return path
    return None


def _why_skip() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install -r requirements.txt)"
    if _chromium() is None:
        return ("no Chromium found (CI: `apt-get install -y chromium`; or set CHROMIUM=/path "
                "to a Chromium or Chrome binary)")
    return None


WHY = _why_skip()
BROWSER_SUMMARY: dict = {}


@pytest.fixture(scope="module", autouse=True)
def _summary(browser_summary_path):
    """Record what the checks found (or why they did not run); tests/conftest.py prints it.

    The record is a file in the run's shared temporary folder, because under pytest-xdist this
    module runs on a worker while the summary is printed by the controller.
    """
    path = browser_summary_path
    if WHY:
        BROWSER_SUMMARY["SKIPPED"] = "the browser checks did not run: " + WHY
        path.write_text(json.dumps(BROWSER_SUMMARY))
        pytest.skip("browser checks skipped: " + WHY)
    yield
    path.write_text(json.dumps(BROWSER_SUMMARY))


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site(book_build, tmp_path_factory):
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
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(html)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/", html
    server.shutdown()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=_chromium(), args=ARGS)
        yield b
        b.close()


def _open(browser, base, viewport):
    """A page that records console errors and every request that leaves the site."""
    page = browser.new_page(viewport=viewport)
    page.errors, page.external = [], []
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("request", lambda r: page.external.append(r.url)
            if not r.url.startswith((base, "data:", "blob:", "about:")) else None)
    page.on("response", lambda r: page.errors.append(f"HTTP {r.status} {r.url}")
            if r.status >= 400 else None)
    return page


def _mathjax_done(page):
    page.evaluate("""async () => {
        if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
            await MathJax.startup.promise;
        }
    }""")


# --- the site ---------------------------------------------------------------------------------

CODE_FITS = """() => [...document.querySelectorAll('.cell_input pre, div.highlight pre')]
.map(pre => {
    const longest = Math.max(0, ...pre.textContent.split('\\n').map(l => l.length));
    const saved = pre.style.whiteSpace;
    pre.style.whiteSpace = 'pre';            // as if it did not wrap
    const over = pre.scrollWidth - pre.clientWidth;
    pre.style.whiteSpace = saved;
    return [longest, over];
})"""

IMAGES = """() => [...document.querySelectorAll('main img, article img')].map(
    i => [i.getAttribute('src'), i.getAttribute('alt') || ''])"""

RAW_TEXT = """() => {
    const root = document.querySelector('main') || document.body;
    const clone = root.cloneNode(true);
    clone.querySelectorAll('pre, code, script, style, mjx-container, .MathJax, mjx-assistive-mml')
        .forEach(n => n.remove());
    return clone.textContent;
}"""


@pytest.fixture(scope="module")
def pages(site, browser):
    """Every page of the site at desktop and at phone width: what the checks need.

    Each page is loaded once, at 1400 x 900, and then narrowed to 400 x 800 in place: the
    layout is recomputed for the phone width as it would be on a phone (the site's CSS
    decides it from the viewport alone), without loading and typesetting the page again.
    """
    base, html = site
    names = sorted(p.relative_to(html).as_posix() for p in html.rglob("*.html")
                   if not p.relative_to(html).as_posix().startswith(("_", "slides/")))
    found = {}
    page = _open(browser, base, DESKTOP)
    for name in names:
        page.set_viewport_size(DESKTOP)
        page.errors.clear(); page.external.clear()
        page.goto(base + name, wait_until="networkidle")
        _mathjax_done(page)
        info = {
            "code": page.evaluate(CODE_FITS), "images": page.evaluate(IMAGES),
            "text": page.evaluate(RAW_TEXT),
        }
        page.set_viewport_size(PHONE)
        page.wait_for_function(f"window.innerWidth === {PHONE['width']}")
        info["phone_width"] = page.evaluate("document.documentElement.scrollWidth")
        info["errors"], info["external"] = list(page.errors), list(page.external)
        found[name] = info
    page.close()
    BROWSER_SUMMARY["pages checked"] = f"{len(found)} (each at 1400 x 900, then at 400 x 800)"
    BROWSER_SUMMARY["console errors (pages)"] = sum(len(v["errors"]) for v in found.values())
    BROWSER_SUMMARY["external requests (pages)"] = sum(len(v["external"]) for v in found.values())
    widest = max(found.items(), key=lambda kv: kv[1]["phone_width"])
    BROWSER_SUMMARY["widest page at 400 px"] = f"{widest[1]['phone_width']} px ({widest[0]})"
    return found


def test_pages_have_no_console_errors(pages):
    bad = {name: v["errors"][:3] for name, v in pages.items() if v["errors"]}
    assert not bad, f"console errors on {len(bad)} pages: {bad}"


def test_pages_load_nothing_from_outside(pages):
    bad = {name: v["external"][:3] for name, v in pages.items() if v["external"]}
    assert not bad, f"requests outside the site on {len(bad)} pages: {bad}"


def test_math_is_typeset(pages):
    bad = {}
    for name, v in pages.items():
        if m := RAW_TEX.search(v["text"]):
            bad[name] = v["text"][max(0, m.start() - 60):m.end() + 20]
    assert not bad, f"raw TeX left on {len(bad)} pages: {bad}"


def test_no_page_is_wider_than_a_phone(pages):
    bad = {name: v["phone_width"] for name, v in pages.items() if v["phone_width"] > PHONE["width"]}
    assert not bad, f"pages wider than {PHONE['width']} px: {bad}"


def test_code_up_to_100_columns_does_not_scroll_on_a_desktop(pages):
    bad = {name: [o for n, o in v["code"] if n <= 100 and o > 1]
           for name, v in pages.items()}
    bad = {k: v for k, v in bad.items() if v}
    total = sum(len(v["code"]) for v in pages.values())
    BROWSER_SUMMARY["code blocks checked at 1400 px"] = total
    assert not bad, f"code blocks (<= 100 columns) that would scroll at 1400 px: {bad}"


def _meaningless(alt: str) -> bool:
    alt = alt.strip()
    return (len(alt.split()) < 3 or bool(HASHED.search(alt))
            or alt.startswith("No description has been provided"))


def test_images_have_meaningful_alt_text(pages):
    bad = {}
    for name, v in pages.items():
        for src, alt in v["images"]:
            if _meaningless(alt):
                bad.setdefault(name, []).append(alt or f"(no alt) {src}")
    n = sum(len(v["images"]) for v in pages.values())
    BROWSER_SUMMARY["images checked"] = f"{n}, {sum(map(len, bad.values()))} without a usable alt"
    assert not bad, (f"images whose alt text is missing or a file name, on {len(bad)} pages "
                     f"(cell metadata \"mystnb\": {{\"image\": {{\"alt\": ...}}}}): "
                     f"{ {k: v[:2] for k, v in bad.items()} }")


def test_sidebars_open_at_phone_width(site, browser):
    base, _ = site
    page = _open(browser, base, PHONE)
    chapter = chapter_notebooks(NOTEBOOKS)[-1].with_suffix(".html").name
    page.goto(base + "notebooks/" + chapter, wait_until="networkidle")
    nav = "#pst-primary-sidebar-modal nav.bd-docs-nav a, #pst-primary-sidebar nav.bd-docs-nav a"
    assert not page.locator(nav).first.is_visible(), "the sidebar is open before a click"
    page.locator("button.primary-toggle:visible").first.click()
    page.wait_for_timeout(500)
    links = page.locator(nav)
    opened = any(links.nth(i).is_visible() for i in range(min(links.count(), 5)))
    assert opened, "the sidebar toggle does not open the table of contents at 400 px"
    page.reload(wait_until="networkidle")      # closed again, as a reader finds it
    toc = "#pst-secondary-sidebar-modal a, .bd-sidebar-secondary nav a"
    page.locator("button.secondary-toggle:visible").first.click()
    page.wait_for_timeout(500)
    links = page.locator(toc)
    opened = any(links.nth(i).is_visible() for i in range(min(links.count(), 5)))
    assert opened, "the page-contents toggle does not open the page's contents at 400 px"
    assert not page.errors, page.errors
    page.close()


def test_no_extra_top_bar_and_one_search_box(site, browser):
    """pydata-sphinx-theme 0.17 added a full-width header holding only a search button, and the
    search page then showed three search boxes."""
    base, _ = site
    page = _open(browser, base, DESKTOP)
    page.goto(base + "search.html", wait_until="networkidle")
    header = page.evaluate("""() => { const h = document.querySelector('header.bd-header');
        return h ? h.getBoundingClientRect().height : 0; }""")
    boxes = page.evaluate("""() => [...document.querySelectorAll(
        'input[type=search], input[name=q]')]
        .filter(i => i.offsetParent !== null).length""")
    page.close()
    assert header == 0, f"a top bar of {header} px above the page"
    assert boxes <= 2, f"{boxes} visible search boxes on the search page"


# --- the decks --------------------------------------------------------------------------------

SLIDE_LIST = """() => Reveal.getSlides().map(s => {
    const i = Reveal.getIndices(s); return [i.h, i.v || 0]; })"""
MEASURE = """async ([h, v]) => {
    Reveal.slide(h, v);
    const s = Reveal.getCurrentSlide();
    await Promise.all([...s.querySelectorAll('img')].map(i => i.complete ? null :
        new Promise(r => { i.onload = i.onerror = r; })));
    await new Promise(r => (window.MathJax && MathJax.Hub)
        ? MathJax.Hub.Queue(() => { window.fitFigures(s); r(); }) : (window.fitFigures(s), r()));
    const text = s.innerText;
    return {height: s.scrollHeight, width: s.scrollWidth,
            wide_code: [...s.querySelectorAll('pre')]
                .filter(p => p.scrollWidth > p.clientWidth + 1).length,
            prompt: /In\\s*\\[\\d*\\]:/.test(text),
            alts: [...s.querySelectorAll('img')].map(i => i.getAttribute('alt') || ''),
            title: (s.querySelector('h1, h2, h3') || {textContent: ''}).textContent.slice(0, 60)};
}"""
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
    found = {}
    page = _open(browser, base, {"width": SLIDE_W, "height": SLIDE_H})
    for deck in sorted((html / "slides").glob("*.slides.html")):
        page.errors.clear(); page.external.clear()
        page.goto(base + "slides/" + deck.name, wait_until="networkidle")
        page.wait_for_selector("body[data-deck-ready]", timeout=30000)
        slides = [page.evaluate(MEASURE, hv) for hv in page.evaluate(SLIDE_LIST)]
        page.evaluate("() => new Promise(r => MathJax.Hub.Queue(r))")
        found[deck.name] = {"slides": slides, "errors": list(page.errors),
                            "external": list(page.external), "title": page.title(),
                            "text": page.evaluate(SLIDE_TEXT)}
    page.close()
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
