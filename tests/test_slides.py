"""Each chapter exports to a reveal.js deck that a lecturer can use offline.

The deck follows the slide rules of book/chapter_contract.md ("Slides"): tools/slide_rules.py
checks them on the notebook; tests/test_browser.py checks in Chromium that every slide fits.
"""
import functools
import re

import nbformat
import pytest

import make_slides
import slide_rules
from nbcommon import NOTEBOOKS, chapter_notebooks, read

CHAPTERS = [p for p in chapter_notebooks(NOTEBOOKS) if not p.name.startswith("00_")]
deck = functools.lru_cache(maxsize=None)(make_slides.export)   # each chapter exported once


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_deck_is_offline(path):
    html = deck(path)
    assert html.count("<section") >= 10, "a deck of at least one slide per section"
    remote = re.findall(r"""(?:src|href|import)\s*=?\s*["'](https?://[^"']+)""", html)
    assert remote == [], f"loads from the network: {remote[:3]}"
    assert "fonts.googleapis" not in html and "mermaid" not in html.lower().replace(
        "mermaid_js_url", "")
    for url in make_slides.URLS.values():
        assert url.split("?")[0] in html


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_deck_is_titled_by_its_chapter_without_prompts(path):
    html = deck(path)
    title = re.search(r"<title>(.*?)</title>", html, re.S).group(1)
    assert "Notebook" not in title and title.startswith(make_slides.chapter_title(read(path))[:20])
    assert not re.search(r"In&nbsp;\[\d*\]:|In \[\d*\]:", html), "input prompts on the slides"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_slide_rules(path):
    found = slide_rules.problems(path)
    assert not found, f"{len(found)} slide-rule violations (tools/slide_rules.py):\n" + \
        "\n".join(found[:20])


def _cell(kind, source, slide="-", tags=(), outputs=None, alt=None):
    if kind == "markdown":
        cell = nbformat.v4.new_markdown_cell(source)
    else:
        cell = nbformat.v4.new_code_cell(source)
        cell.outputs = outputs or []
        cell.execution_count = 1
    cell.metadata["slideshow"] = {"slide_type": slide}
    if tags:
        cell.metadata["tags"] = list(tags)
    if alt:
        cell.metadata["mystnb"] = {"image": {"alt": alt}}
    return cell


def test_deck_features_on_a_made_up_chapter(tmp_path):
    """Notes, output-only cells, one-line errors, split opening, labels, alt texts."""
    png = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQ"
           "AAAABJRU5ErkJggg==")
    error = nbformat.v4.new_output(
        "error", ename="ValueError", evalue="mask must be boolean; got float32",
        traceback=["\x1b[31m---------\x1b[0m", "Traceback (most recent call last)",
                   "  File \"x.py\", line 3", "\x1b[31mValueError\x1b[0m: mask must be boolean"])
    nb = nbformat.v4.new_notebook(cells=[
        _cell("markdown", "# 9. Made up\n\n**What you build:** a deck.\n\n"
                          "**Prerequisites:** none.\n\n**Time:** 5 minutes.\n\n"
                          "**You will be able to:**\n- test a deck", slide="slide"),
        _cell("markdown", "(ch99-label)=\n## 1. Intuition", slide="slide"),
        _cell("markdown", "Read this aloud at length.", slide="notes"),
        _cell("code", "secret_setup = 1", tags=["slide-output-only"], alt="A one-pixel test figure",
              outputs=[nbformat.v4.new_output("display_data", data={"image/png": png,
                                                                     "text/plain": "<Figure>"})]),
        _cell("code", "raise ValueError('x')", tags=["raises-exception"], outputs=[error]),
    ])
    path = tmp_path / "99_made_up.ipynb"
    nbformat.write(nb, path)
    html = make_slides.export(path)
    assert "<title>9. Made up - slides" in html
    assert '<aside class="notes">' in html and "Read this aloud" in html
    assert "Prerequisites:" in html.split('<aside class="notes">', 1)[1], "prerequisites in notes"
    assert "secret_setup" not in html, "a slide-output-only cell shows its code"
    assert 'alt="A one-pixel test figure"' in html
    assert "ValueError: mask must be boolean; got float32" in html
    assert "Traceback" not in html and "x.py" not in html, "an error shows only its last line"
    assert "(ch99-label)=" not in html, "MyST labels are for the site, not the deck"


def _made_up_deck(good: bool):
    """A small chapter whose deck breaks (good=False) or keeps (good=True) the lecturer rules."""
    png = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQ"
           "AAAABJRU5ErkJggg==")
    figure = [nbformat.v4.new_output("display_data", data={"image/png": png,
                                                            "text/plain": "<Figure>"})]
    words = " ".join(["word"] * 30)
    cells = [_cell("markdown", "# 9. Made up\n\n**What you build:** a deck.", slide="slide"),
             _cell("markdown", "## 1. Intuition", slide="slide"),
             _cell("code", "plot()", tags=["slide-output-only"], outputs=figure,
                   alt="A one-pixel figure that stands for a plot" if good else None),
             _cell("markdown", f"Says something. {words}", slide="notes")]
    for k in range(4):      # one-line slides
        cells.append(_cell("markdown", f"One line {k}." + (f" {words}" if good else ""),
                           slide="slide"))
        cells.append(_cell("markdown", "Talk.", slide="notes"))
    cells += [_cell("markdown", f"## 2. Experiment: a measurement. {words}", slide="slide"),
              _cell("code", "plot()", tags=["slide-output-only"], outputs=figure if good else [],
                    alt="A one-pixel figure that stands for a plot"),
              _cell("markdown", "Talk.", slide="notes")]
    for k in range(2):
        cells.append(_cell("markdown", f"**Predict:** what happens {k}?", slide="slide"))
        cells.append(_cell("markdown", "Answer: this." if good else "It does.", slide="notes"))
    link = "[section 1](#ch04-scaling)" if good else "[section 1](#ch99-nowhere)"
    cells.append(_cell("markdown", f"## 3. Interview questions\n\n- Why? {link}\n- How?",
                       slide="slide"))
    cells.append(_cell("markdown", "As the cell below shows." if not good else "Ask both.",
                       slide="notes"))
    return nbformat.v4.new_notebook(cells=cells)


def test_lecturer_rules_fail_on_a_bad_deck_and_pass_on_a_good_one(tmp_path, monkeypatch):
    monkeypatch.setattr(slide_rules, "LECTURES", tmp_path)
    bad_path, good_path = tmp_path / "98_bad.ipynb", tmp_path / "99_good.ipynb"
    nbformat.write(_made_up_deck(False), bad_path)
    nbformat.write(_made_up_deck(True), good_path)
    (tmp_path / "99_good.md").write_text(
        "# Lecture plan: chapter 99, Good\n\n## Plan for 90 minutes\n\n| minutes | part |\n"
        "|---|---|\n| 40 | one |\n| 45 | two |\n\n## To fit 50 minutes\n\nskip two\n\n"
        "## Live demo\n\nx\n\n## Prompts for the room\n\ny\n\n## Exercises to assign\n\nz\n")
    bad = "\n".join(slide_rules.deck_problems(bad_path, read(bad_path)))
    for expected in ["near-empty slides", "a figure on a slide without an alt text",
                     "section '2. Experiment: a measurement.",
                     "without an `Answer:` notes cell", "notes mention 'the cell'",
                     "#ch99-nowhere, which is not a label", "no lecture plan"]:
        assert expected in bad, f"not caught: {expected}\n{bad}"
    assert slide_rules.deck_problems(good_path, read(good_path)) == []
    (tmp_path / "99_good.md").write_text("# Lecture plan: chapter 99, Good\n\n"
                                         "## Plan for 90 minutes\n\n| 20 | one |\n")
    short = "\n".join(slide_rules.deck_problems(good_path, read(good_path)))
    assert "missing headings" in short


def test_deck_links_point_to_published_pages():
    pages = {"ch04-scaling": "../notebooks/04_scaled_dot_product.html"}
    assert make_slides.published("#ch04-scaling", "notebooks", pages) == \
        "../notebooks/04_scaled_dot_product.html#ch04-scaling"
    assert make_slides.published("05_masks.ipynb", "notebooks", pages) == \
        "../notebooks/05_masks.html"
    assert make_slides.published("../exercises/05_masks.ipynb#x", "notebooks", pages) == \
        "../exercises/05_masks.html#x"
    assert make_slides.published("../book/notation.md", "notebooks", pages) == \
        "../book/notation.html"
    assert make_slides.published("https://arxiv.org/abs/1706.03762", "notebooks", pages) == \
        "https://arxiv.org/abs/1706.03762"
