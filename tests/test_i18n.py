"""The Chinese edition's catalogues (locale/zh_CN/LC_MESSAGES/), checked without building.

Fast, so `make test` runs them: every page has a catalogue, every message is translated and not
fuzzy, and every translation keeps the English's code, formulas, link targets and markup and
still parses. That the catalogues match the English as it is now (a fresh extraction) and that
the Chinese site builds and reads well is `make test-zh` (tests/zh/).
"""
from __future__ import annotations

import functools
import re

import pytest
from babel.messages.catalog import Catalog

import i18n
from nbcommon import ROOT


@functools.lru_cache(maxsize=None)
def entries() -> tuple:
    """(page, msgid, msgstr, fuzzy) of every message of every catalogue, read once."""
    return tuple((page, m.id, m.string, m.fuzzy) for page, path in i18n.catalogues().items()
                 for m in i18n.read(path) if m.id)


def toc_pages() -> set[str]:
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    pages = set(re.findall(r"(?:file|root):\s*(\S+)", toc))
    for pattern in re.findall(r"glob:\s*(\S+)", toc):
        pages |= {p.relative_to(ROOT).with_suffix("").as_posix() for p in ROOT.glob(pattern + ".*")}
    return pages


def test_every_page_has_a_catalogue_and_every_catalogue_a_page():
    have = set(i18n.catalogues())
    assert toc_pages() - have == set(), "pages without a catalogue: run `make locale`"
    assert have - toc_pages() == set(), "catalogues of pages the book no longer has"


def test_every_message_is_translated_and_none_is_fuzzy():
    gaps = [f"{page} ({'fuzzy' if fuzzy else 'new'}): {i18n._short(msgid)}"
            for page, msgid, msgstr, fuzzy in entries() if fuzzy or not msgstr]
    assert not gaps, (f"{len(gaps)} messages without a translation (`make locale` lists them; "
                      "README, \"The Chinese edition\"):\n" + "\n".join(gaps[:40]))


def test_translations_keep_code_formulas_links_and_markup():
    bad = [f"{page}: {p}\n    English: {i18n._short(msgid)}"
           for page, msgid, msgstr, fuzzy in entries() if msgstr and not fuzzy
           for p in i18n.lint_entry(msgid, msgstr)]
    assert not bad, f"{len(bad)} problems:\n" + "\n".join(bad[:30])


ENGLISH = ("**What you build:** `sdpa_np` computes $\\mathrm{softmax}(QK^\\top/\\sqrt{D})V$; "
           "see [section 6](#ch04-scaling).")
RIGHT = [
    "**你将构建**：`sdpa_np` 计算 $\\mathrm{softmax}(QK^\\top/\\sqrt{D})V$；见[第 6 节](#ch04-scaling)。",
    "见[第 6 节](#ch04-scaling)：`sdpa_np` 计算 $\\mathrm{softmax}(QK^\\top/\\sqrt{D})V$ "
    "（**你将构建**的函数）。",
]
WRONG = {
    "code translated": "**你将构建**：`点积` 计算 $\\mathrm{softmax}(QK^\\top/\\sqrt{D})V$；见[第 6 节](#ch04-scaling)。",
    "formula changed": "**你将构建**：`sdpa_np` 计算 $\\mathrm{softmax}(QK^T/\\sqrt{D})V$；见[第 6 节](#ch04-scaling)。",
    "link target changed": "**你将构建**：`sdpa_np` 计算 $\\mathrm{softmax}(QK^\\top/\\sqrt{D})V$；见[第 6 节](#ch04-scale)。",
    "link lost": "**你将构建**：`sdpa_np` 计算 $\\mathrm{softmax}(QK^\\top/\\sqrt{D})V$；见第 6 节。",
    "bold does not parse": "**你将构建：**函数 `sdpa_np` 计算 $\\mathrm{softmax}(QK^\\top/\\sqrt{D})V$；见[第 6 节](#ch04-scaling)。",
    "bold dropped": "你将构建：`sdpa_np` 计算 $\\mathrm{softmax}(QK^\\top/\\sqrt{D})V$；见[第 6 节](#ch04-scaling)。",
}


@pytest.mark.parametrize("translation", RIGHT)
def test_lint_accepts_right_translations(translation):
    assert i18n.lint_entry(ENGLISH, translation) == []


@pytest.mark.parametrize("why", WRONG)
def test_lint_catches_broken_translations(why):
    assert i18n.lint_entry(ENGLISH, WRONG[why]), why


def test_lint_catches_a_heading_that_would_become_a_list():
    assert i18n.lint_entry("4. Scaled dot-product attention", "4. 缩放点积注意力")
    assert i18n.lint_entry("4. Scaled dot-product attention", "4\\. 缩放点积注意力") == []
    assert i18n.lint_entry("4. FlashAttention", "4. FlashAttention") == []   # kept: not parsed


def test_summary_questions_and_html_keep_their_tags():
    english = "With a KV cache, why is <code>is_causal=True</code> wrong? [advanced]"
    assert i18n.lint_entry(english, "有 KV 缓存时，为什么 <code>is_causal=True</code> 是错的？[advanced]") == []
    assert i18n.lint_entry(english, "有 KV 缓存时，为什么 is_causal=True 是错的？[advanced]")


def test_refresh_keeps_formulas_copies_known_messages_and_leaves_the_rest(tmp_path):
    known = next(m for path in i18n.catalogues().values() for m in i18n.read(path)
                 if m.id and m.string and not m.fuzzy and i18n.has_words(m.id))
    catalog = Catalog(locale=i18n.LANG)
    formula = "$$\nA = \\mathrm{softmax}(S)\n$$"
    catalog.add(formula)
    catalog.add(known.id)
    catalog.add("A sentence no page of the book has written yet.")
    path = tmp_path / "page.po"
    i18n.write(catalog, path)
    i18n.fill([path])
    got = {m.id: m.string for m in i18n.read(path) if m.id}
    assert got[formula] == formula
    assert got[known.id] == known.string
    assert got["A sentence no page of the book has written yet."] == ""


def test_an_english_edit_leaves_a_fuzzy_message_that_the_checks_reject():
    """What `make locale` does after an English edit: babel's update, as sphinx-intl runs it."""
    old = Catalog(locale=i18n.LANG)
    old.add("Dividing by the square root of D keeps the scores' variance at 1.",
            string="除以 D 的平方根让分数的方差保持为 1。")
    template = Catalog()
    template.add("Dividing by the square root of D keeps the scores' variance near 1.")
    old.update(template)
    untranslated, fuzzy = i18n.missing(old)
    assert fuzzy == ["Dividing by the square root of D keeps the scores' variance near 1."]
    assert untranslated == []


# Where a glossary term's words also occur in their plain sense, the plain Chinese is right too.
PLAIN_SENSE = {"No positional encoding": ["没有位置编码", "没有位置信息"],
               "FLOPs per token": ["每个 token"]}   # "32,768 FLOPs per token": a unit


def test_the_glossary_is_the_rule_for_its_terms():
    """A glossary term of several words is rendered with the glossary's Chinese (or kept in
    English). One-word terms (kernel, decode) have senses the glossary does not cover (a
    convolution kernel, to decode a string), so they are left to the second reader."""
    terms = [(en, zh + PLAIN_SENSE.get(en, [])) for en, zh in i18n.glossary()]
    bad = [f"{page}: {p}\n    {i18n._short(msgstr)}"
           for page, msgid, msgstr, fuzzy in entries() if msgstr and not fuzzy
           for p in i18n.term_problems(msgid, msgstr, terms)]
    assert not bad, f"{len(bad)} glossary terms rendered otherwise:\n" + "\n".join(bad[:20])


def test_the_glossary_check_can_fail():
    terms = i18n.glossary()
    english = "Grouped-query attention shares each key head among several query heads."
    assert i18n.term_problems(english, "分组查询注意力让多个查询头共享一个键头。", terms) == []
    assert i18n.term_problems(english, "分组式查询注意力让多个查询头共享一个键头。", terms)
    assert i18n.term_problems(english, "Grouped-query attention 让多个查询头共享一个键头。", terms) == []
