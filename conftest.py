"""pytest set-up for `make test` (tests/ plus nbval on notebooks/ and solutions/)."""
import os
import sys

import pytest
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tools"))   # the generator scripts, for the sync tests

# Chapter 18's kernels run in Triton's interpreter where there is no CUDA device. Triton reads
# TRITON_INTERPRET when it decorates a function, its own library included, i.e. at its first
# import, which any test (or torch, probing for Triton) may trigger: so it is set before any runs.
if "TRITON_INTERPRET" not in os.environ:
    import torch
    if not torch.cuda.is_available():
        os.environ["TRITON_INTERPRET"] = "1"

_notebook_seconds = defaultdict(float)


def pytest_runtest_logreport(report):
    """Add up nbval's per-cell times into one figure per notebook."""
    path = report.nodeid.split("::")[0]
    if path.endswith(".ipynb"):
        _notebook_seconds[path] += report.duration


def pytest_terminal_summary(terminalreporter):
    if not _notebook_seconds:
        return
    terminalreporter.section("execution time per notebook (nbval, all cells)")
    for path, seconds in sorted(_notebook_seconds.items()):
        flag = "  OVER THE 60 s BUDGET" if seconds > 60 else ""
        terminalreporter.write_line(f"{seconds:6.1f} s  {path}{flag}")


# pytest-xdist (`make test`, --dist loadscope) hands out whole modules (and notebooks) in
# collection order. The longest ones go first, so that no worker starts one of them last
# while the other sits idle: the wrong-answer harness on one worker; on the other the site's
# build and its pages (tests/test_browser.py), then the decks (which need the built site: they
# find it built and do not wait for it), then the stubs. Everything else fills in behind them.
LONGEST_FIRST = ["tests/test_wrong_answers.py", "tests/test_browser.py",
                 "tests/test_browser_decks.py", "tests/test_exercises.py"]


def pytest_configure(config):
    # loadscope would otherwise hand out the modules with the most tests first (its default
    # --loadscope-reorder), whatever the collection order: the two browser modules (8 tests
    # each) then started last, together, and one waited for the other's build of the site.
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(session, config, items):
    from nbcommon import missing_requirement
    for item in items:                  # nbval's cells of a chapter this platform cannot run
        path = item.nodeid.split("::")[0]
        reason = path.endswith(".ipynb") and missing_requirement(path)
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))

    def rank(item):
        path = item.nodeid.split("::")[0]
        return LONGEST_FIRST.index(path) if path in LONGEST_FIRST else len(LONGEST_FIRST)
    items.sort(key=rank)                # stable: the order inside each module is kept
