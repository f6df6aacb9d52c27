"""Each chapter exports to a reveal.js deck that loads nothing from a CDN."""
import re

import pytest

import make_slides
from nbcommon import NOTEBOOKS, chapter_notebooks, read

CHAPTERS = [p for p in chapter_notebooks(NOTEBOOKS) if not p.name.startswith("00_")]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_deck_is_offline(path):
    html, _ = make_slides.exporter().from_notebook_node(read(path))
    assert html.count("<section") >= 10, "a deck of at least one slide per section"
    remote = re.findall(r"""(?:src|href)=["'](https?://[^"']+)""", html)
    assert remote == [], f"loads from the network: {remote[:3]}"
    for url in make_slides.URLS.values():
        assert url.split("?")[0] in html
