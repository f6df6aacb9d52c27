"""The Chinese catalogues against the English as it is now (`make test-zh`).

A fresh extraction of every page's messages (Sphinx's gettext builder, about 20 s) is compared
with locale/zh_CN/LC_MESSAGES/: an English edit that no catalogue translates yet (a new or
reworded paragraph) fails here, naming the page and the English text; `make locale` then lists
it as new or fuzzy. A catalogue entry the English no longer has fails too (`make locale` drops
it), so the catalogues never drift from the pages.
"""
from __future__ import annotations

import pytest

import i18n


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    return i18n.extract(tmp_path_factory.mktemp("gettext"))


def test_every_english_message_is_translated(fresh):
    gaps = i18n.stale(fresh)
    lines = [f"{page}: {i18n._short(m)}" for page, ids in gaps.items() for m in ids]
    assert not lines, (f"{len(lines)} English messages without a Chinese translation (run "
                       "`make locale`, translate what it lists):\n" + "\n".join(lines[:40]))


def test_no_catalogue_holds_messages_the_english_dropped(fresh):
    extracted = {i18n.page_of(p, fresh): {m.id for m in i18n.read(p) if m.id}
                 for p in fresh.rglob("*.pot")}
    extra = []
    for page, path in i18n.catalogues().items():
        extra += [f"{page}: {i18n._short(m.id)}" for m in i18n.read(path)
                  if m.id and m.id not in extracted.get(page, set())]
    assert not extra, (f"{len(extra)} catalogue entries no page has any more (`make locale` "
                       "removes them):\n" + "\n".join(extra[:20]))
