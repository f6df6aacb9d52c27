"""What the two browser test modules share: Chromium, the pages they open, the summary.

tests/test_browser.py checks the site's pages and tests/test_browser_decks.py the slide decks;
they are two modules so that pytest-xdist can run them on two workers at once. Both open the
site that tests/conftest.py builds once per run (fixture `book_build`).
"""
from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import threading
from contextlib import contextmanager

import pytest

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


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


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


def visit_all(browser, base, names, viewport, visit, tabs=3):
    """{name: visit(page, name)} for every page `base + name`, each loaded in a fresh document of
    one of `tabs` pages (viewport `viewport`, errors and outside requests recorded as `_open`
    does, cleared before each load) and handed to `visit` once the network has been idle 500 ms.

    The pages load side by side: while `visit` measures one, the next ones load. Much of a load
    is waiting (the 500 ms without requests that end it, the round trips between Playwright and
    the browser), which one page at a time spent idle: the site's 81 pages took a third less time
    this way. Each page is still loaded, waited for and measured as alone: its own tab, its own
    errors (a console error 300 ms after a load lands on that page and no other)."""
    names = list(names)
    pages = [_open(browser, base, viewport) for _ in range(max(1, min(tabs, len(names))))]
    loading: list = []

    def load(page):
        name = names.pop(0)
        page.set_viewport_size(viewport)
        page.errors.clear(); page.external.clear()
        page.goto(base + name, wait_until="commit")
        loading.append((page, name))

    found = {}
    try:
        for page in pages:
            if names:
                load(page)
        while loading:
            page, name = loading.pop(0)
            page.wait_for_load_state("networkidle")
            found[name] = visit(page, name)
            if names:
                load(page)
    finally:
        for page in pages:
            page.close()
    return found


def _mathjax_done(page):
    page.evaluate("""async () => {
        if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
            await MathJax.startup.promise;
        }
    }""")




WHY = _why_skip()


def _meaningless(alt: str) -> bool:
    alt = alt.strip()
    return (len(alt.split()) < 3 or bool(HASHED.search(alt))
            or alt.startswith("No description has been provided"))


@contextmanager
def serve(html):
    """The folder `html` served on 127.0.0.1; yields the base URL."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(html)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()


@contextmanager
def launched():
    """A headless Chromium (Debian's, through Playwright)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=_chromium(), args=ARGS)
        try:
            yield b
        finally:
            b.close()


@contextmanager
def summary(path, found: dict):
    """Write what a module found (or why it did not run) to `path` for tests/conftest.py to print.

    A file in the run's shared temporary folder, because under pytest-xdist a module runs on a
    worker while the summary is printed by the controller.
    """
    if WHY:
        found["SKIPPED"] = "the browser checks did not run: " + WHY
        path.write_text(json.dumps(found))
        pytest.skip("browser checks skipped: " + WHY)
    try:
        yield
    finally:
        path.write_text(json.dumps(found))
