"""The built site, checked in a real browser (headless Chromium).

What a reader sees, on a desktop (1400 x 900) and on a phone (400 x 800):

- every page loads with no console error and no request outside the site;
- math is typeset (no raw TeX left on a page);
- at phone width the sidebar and the page contents open from their buttons;
- no page is wider than a 400 px phone;
- at 1400 px, a code cell whose lines are at most 100 columns does not scroll sideways;
- every image has an alt text a screen-reader user can use (not a hashed file name).

The site is the build of test_book.py (fixture `book_build`, built once per run). The decks
are checked by tests/test_browser_decks.py. Playwright for Python drives Debian's Chromium
(`apt-get install chromium`; another binary with CHROMIUM=/path). Without either, these checks
are skipped and the summary says why.
"""
from __future__ import annotations

import pytest

from browserlib import (DESKTOP, PHONE, RAW_TEX, _meaningless, _mathjax_done, _open,
                        launched, serve, summary, visit_all)
from nbcommon import NOTEBOOKS, book_language, chapter_notebooks

BROWSER_SUMMARY: dict = {}


@pytest.fixture(scope="module", autouse=True)
def _summary(browser_summary_dir):
    with summary(browser_summary_dir / "browser_summary_pages.json", BROWSER_SUMMARY):
        yield


@pytest.fixture(scope="module")
def site(book_build):
    """The built site, served on 127.0.0.1: (base URL, folder)."""
    result, html = book_build
    if result.returncode != 0 or not (html / "index.html").exists():
        pytest.fail("the book did not build (see test_book.py)")
    with serve(html) as base:
        yield base, html


@pytest.fixture(scope="module")
def browser():
    with launched() as b:
        yield b


CODE_FITS = """() => [...document.querySelectorAll('.cell_input pre, div.highlight pre')]
.map(pre => {
    const longest = Math.max(0, ...pre.textContent.split('\\n').map(l => l.length));
    const saved = pre.style.whiteSpace;
    pre.style.whiteSpace = 'pre';            // as if it did not wrap
    const over = pre.scrollWidth - pre.clientWidth;
    pre.style.whiteSpace = saved;
    return [longest, over];
})"""

# the figures of the page; the theme's header (launch buttons' logos, beside their names) aside
IMAGES = """() => [...document.querySelectorAll('main img, article img')]
    .filter(i => !i.closest('.bd-header-article')).map(
    i => [i.getAttribute('src'), i.getAttribute('alt') || ''])"""

# the header button to the same page in the other edition (_ext/attn_i18n.py): (href, target)
LANGUAGE_BUTTON = """() => { const a = document.querySelector('a[class*="btn-language-button"]');
    return a ? [a.getAttribute('href'), a.getAttribute('target') || ''] : null; }"""

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
    A few pages load side by side (browserlib.visit_all), each in its own tab.
    """
    base, html = site
    names = sorted(p.relative_to(html).as_posix() for p in html.rglob("*.html")
                   if not p.relative_to(html).as_posix().startswith(("_", "slides/")))

    def visit(page, name):
        _mathjax_done(page)
        info = {
            "code": page.evaluate(CODE_FITS), "images": page.evaluate(IMAGES),
            "text": page.evaluate(RAW_TEXT),
        }
        page.set_viewport_size(PHONE)
        page.wait_for_function(f"window.innerWidth === {PHONE['width']}")
        info["phone_width"] = page.evaluate("document.documentElement.scrollWidth")
        info["language"] = page.evaluate(LANGUAGE_BUTTON)
        info["errors"], info["external"] = list(page.errors), list(page.external)
        return info

    found = visit_all(browser, base, names, DESKTOP, visit)
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


def test_every_page_links_to_itself_in_the_other_edition(pages):
    """English page P links to zh/P, Chinese page zh/P back to P, in the same tab."""
    english = book_language() == "en"
    bad = {}
    for name, v in pages.items():
        if name == "index.html":        # the redirect to the home page, no template
            continue
        up = "../" * name.count("/")
        want = up + ("zh/" + name if english else "../" + name)
        if v["language"] != [want, ""]:
            bad[name] = v["language"]
    BROWSER_SUMMARY["language buttons checked"] = len(pages) - 1
    assert not bad, f"language buttons that do not lead to the same page ({len(bad)}): " + str(
        dict(list(bad.items())[:5]))


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


