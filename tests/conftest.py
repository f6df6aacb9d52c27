"""Fixtures shared by the tests that need the built site (test_book.py, test_browser.py).

The book is built once per test session, so the browser test checks the very build whose
warnings test_book.py rejected, and `make test` does not build the site twice.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nbcommon import ROOT

JB = Path(sys.executable).parent / "jupyter-book"


@pytest.fixture(scope="session")
def book_build(tmp_path_factory):
    """(CompletedProcess of `jupyter-book build -W -n --keep-going`, path of the HTML).

    ATTN_BOOK_HTML=/path/to/_build/html reuses a site built before (to re-run the browser
    checks quickly while working on the site); `make test` always builds afresh.
    """
    if os.environ.get("ATTN_BOOK_HTML"):
        html = Path(os.environ["ATTN_BOOK_HTML"])
        return subprocess.CompletedProcess([], 0, "reused " + str(html), ""), html
    out = tmp_path_factory.mktemp("book")
    result = subprocess.run(
        [str(JB), "build", str(ROOT), "-W", "-n", "--keep-going", "--path-output", str(out)],
        capture_output=True, text=True, timeout=1800)
    return result, out / "_build" / "html"


def pytest_terminal_summary(terminalreporter):
    summary = getattr(terminalreporter.config, "attn_browser_summary", None)
    if not summary:
        return
    terminalreporter.section("browser checks (tests/test_browser.py)")
    for key, value in summary.items():
        terminalreporter.write_line(f"{key}: {value}")
