"""book/empirical_claims.md, the list the contract asks for ("Empirical claims survive a
referee"): a section for every chapter whose experiments were refereed, each claim a table row
with what was varied and what the attempts to break it gave, and every script it names present."""
import re

from nbcommon import ROOT

PAGE = ROOT / "book" / "empirical_claims.md"
REFEREED = [4, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]


def sections():
    text = PAGE.read_text(encoding="utf-8")
    parts = re.split(r"^## Chapter (\d+): .*$", text, flags=re.M)
    return {int(n): body for n, body in zip(parts[1::2], parts[2::2])}


def rows(body):
    lines = [l for l in body.splitlines() if l.startswith("|")]
    return [[c.strip() for c in l.strip("|").split("|")] for l in lines[2:]]   # no header


def test_every_refereed_chapter_has_its_claims():
    found = sections()
    assert sorted(found) == REFEREED, f"sections for chapters {sorted(found)}"
    for chapter, body in found.items():
        claims = rows(body)
        assert claims, f"chapter {chapter}: no claim listed"
        for cells in claims:
            assert len(cells) == 4, f"chapter {chapter}: a row needs 4 cells: {cells[:1]}"
            claim, varied, _, attempts = cells
            assert claim and varied and attempts, f"chapter {chapter}: empty cell in {claim[:60]}"


def test_scripts_named_exist():
    text = PAGE.read_text(encoding="utf-8")
    for script in set(re.findall(r"`experiments/([\w.]+\.py)`", text)):
        assert (ROOT / "experiments" / script).exists(), f"{script} is named but missing"
