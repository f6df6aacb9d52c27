"""The Chinese site, as built by `make test-zh` (ATTN_BOOK_LANG=zh_CN; fixture `book_build`).

tests/test_book.py and tests/test_browser.py run on it too (the same checks as the English
site: no warning, untranslated messages included, no console error, phone width, math typeset,
the language button). Here: what only the Chinese site has to show.
"""
from __future__ import annotations

import json
import re
from urllib.parse import unquote, urlsplit

import pytest

from browserlib import WHY, _open, launched, serve, DESKTOP
from nbcommon import book_language

pytestmark = pytest.mark.skipif(book_language() == "en",
                                reason="the Chinese site: `make test-zh` builds it")
CJK = re.compile(r"[\u4e00-\u9fff]")
HREF = re.compile(r'\shref="([^"]+)"')


@pytest.fixture(scope="module")
def html(book_build):
    result, html = book_build
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return html


def test_it_is_the_chinese_edition(html):
    home = (html / "book" / "intro.html").read_text(encoding="utf-8")
    assert '<html lang="zh-CN"' in home
    text = re.sub(r"<[^>]+>", " ", home)
    # the home page says what stays in English (the decks, the notebooks in JupyterLab)
    assert "中文版" in text and "JupyterLab" in text and "英文" in text


def test_every_link_inside_the_chinese_site_resolves(html):
    """Relative links lead to a file of the Chinese site; only the language buttons leave it."""
    broken, leaving = [], []
    for page in html.rglob("*.html"):
        rel = page.relative_to(html).as_posix()
        if rel.startswith("_"):
            continue
        for href in HREF.findall(page.read_text(encoding="utf-8")):
            parts = urlsplit(href)
            if parts.scheme or href.startswith(("#", "//", "mailto:", "javascript:")):
                continue
            target = (page.parent / unquote(parts.path)).resolve()
            if not str(target).startswith(str(html.resolve())):
                leaving.append((rel, href))
            elif parts.path and not target.exists():
                broken.append((rel, href))
    assert not broken, f"{len(broken)} links to nothing: {broken[:10]}"
    expected = {(rel, "../" * rel.count("/") + "../" + rel) for rel, _ in leaving}
    assert set(leaving) <= expected, f"links out of the Chinese site: {sorted(set(leaving) - expected)[:10]}"


def test_the_search_index_splits_chinese_words(html):
    """Without jieba, Sphinx's Chinese search indexes only Latin words."""
    index = (html / "searchindex.js").read_text(encoding="utf-8")
    terms = json.loads(index[index.index("(") + 1:index.rindex(")")])["terms"]
    for word in ("注意力", "掩码", "缓存"):
        assert word in terms, f"{word!r} is not in the search index"
    docs = terms["注意力"]
    assert (len(docs) if isinstance(docs, list) else 1) > 20


@pytest.mark.skipif(WHY is not None, reason=f"browser checks skipped: {WHY}")
def test_a_chinese_search_finds_pages(html):
    with serve(html) as base, launched() as browser:
        page = _open(browser, base, DESKTOP)
        page.goto(base + "search.html?q=%E6%8E%A9%E7%A0%81", wait_until="networkidle")  # 掩码
        page.wait_for_function("document.querySelectorAll('#search-results li').length > 0",
                               timeout=20000)
        found = page.evaluate("[...document.querySelectorAll('#search-results li a')]"
                              ".map(a => a.getAttribute('href'))")
        errors = list(page.errors)
        page.close()
    assert any("05_masks" in f for f in found), found[:10]
    assert not errors, errors
