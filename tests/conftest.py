"""Fixtures shared by the tests that need the built site (test_book.py, test_browser.py).

The book is built once per test run, so the browser test checks the very build whose
warnings test_book.py rejected, and `make test` does not build the site twice. Under
pytest-xdist (`make test` runs two workers) the first worker that needs the site builds it
into the run's shared temporary folder, under a file lock; the other waits and reuses it.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from filelock import FileLock

from nbcommon import ROOT, book_language

JB = Path(sys.executable).parent / "jupyter-book"


def shared_tmp(tmp_path_factory) -> Path:
    """The temporary folder of the whole run: the same for every xdist worker."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def book_build(tmp_path_factory):
    """(CompletedProcess of `jupyter-book build -W -n --keep-going`, path of the HTML).

    ATTN_BOOK_HTML=/path/to/_build/html reuses a site built before (to re-run the browser
    checks quickly while working on the site); `make test` always builds afresh.
    ATTN_BOOK_LANG=zh_CN builds the Chinese edition instead (`make test-zh`: tools/build_book.py,
    with warnings, untranslated messages included, as errors), so the same checks run on it.
    """
    if os.environ.get("ATTN_BOOK_HTML"):
        html = Path(os.environ["ATTN_BOOK_HTML"])
        return subprocess.CompletedProcess([], 0, "reused " + str(html), ""), html
    root = shared_tmp(tmp_path_factory)
    out, record = root / "book", root / "book.json"
    with FileLock(str(root / "book.lock")):
        if not record.exists():
            out.mkdir(exist_ok=True)
            command = [str(JB), "build", str(ROOT), "-W", "-n", "--keep-going",
                       "--path-output", str(out)]
            if book_language() != "en":
                command = [sys.executable, str(ROOT / "tools" / "build_book.py"), "--lang",
                           book_language(), "--out", str(out)]
            result = subprocess.run(command, capture_output=True, text=True, timeout=1800)
            record.write_text(json.dumps([result.returncode, result.stdout, result.stderr]))
        code, stdout, stderr = json.loads(record.read_text())
    return subprocess.CompletedProcess([], code, stdout, stderr), out / "_build" / "html"


@pytest.fixture(scope="session")
def browser_summary_dir(tmp_path_factory) -> Path:
    """Where the browser tests leave their summaries (browser_summary_*.json) for the controller."""
    return shared_tmp(tmp_path_factory)


def pytest_terminal_summary(terminalreporter):
    """The browser checks' summaries, written by test_browser*.py (on whichever worker)."""
    base = terminalreporter.config._tmp_path_factory.getbasetemp()
    for name, title in [("pages", "the site"), ("decks", "the slide decks")]:
        path = base / f"browser_summary_{name}.json"
        if not path.exists():
            continue
        terminalreporter.section(f"browser checks: {title} (tests/test_browser*.py)")
        for key, value in json.loads(path.read_text()).items():
            terminalreporter.write_line(f"{key}: {value}")
