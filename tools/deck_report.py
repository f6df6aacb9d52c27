"""Measure chapters' decks in headless Chromium, slide by slide, as tests/test_browser_decks.py does.

Builds only the decks named into a temporary folder (the site is not needed: links are not
followed here), opens each at 1280 x 720 and prints one line per slide: its number, how much of
the slide its content covers, `NEAR-EMPTY` (tools/deck_measure.py says what that means),
`OVERFLOW` when it is taller or wider than the slide, `WIDE-CODE` when a code block scrolls, and
its title. Exits 1 when a deck has more near-empty slides than the test allows.

    python tools/deck_report.py notebooks/05_masks.ipynb [notebooks/06_...ipynb ...]
"""
from __future__ import annotations

import contextlib
import io
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import make_slides  # noqa: E402
from deck_measure import COVER, MAX_NEAR_EMPTY, SLIDE_H, SLIDE_W, measure_deck, near_empty  # noqa: E402


def main(argv: list[str]) -> int:
    from browserlib import WHY, _open, launched, serve

    if not argv:
        print(__doc__)
        return 2
    if WHY:
        print("cannot measure:", WHY)
        return 2
    status = 0
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "slides"
        with contextlib.redirect_stdout(io.StringIO()):
            make_slides.main([*argv, "--out", str(out)])
        with serve(Path(tmp)) as base, launched() as browser:
            page = _open(browser, base, {"width": SLIDE_W, "height": SLIDE_H})
            for nb in argv:
                name = Path(nb).name.replace(".ipynb", ".slides.html")
                slides = measure_deck(page, base + "slides/" + name)
                empty = near_empty(slides)
                print(f"== {name}: {len(slides)} slides, {len(empty)} near-empty "
                      f"(at most {MAX_NEAR_EMPTY}; content box under {COVER:.0%} of the slide, "
                      f"no figure): {empty}")
                for i, s in enumerate(slides, 1):
                    marks = [m for m, on in [
                        ("NEAR-EMPTY", i in empty),
                        ("OVERFLOW", s["height"] > SLIDE_H or s["width"] > SLIDE_W),
                        ("WIDE-CODE", s["wide_code"] > 0),
                        ("question", s["question"])] if on]
                    print(f"{i:3d}  cover {s['cover']:4.0%}  fig {s['figures']}  "
                          f"{' '.join(marks):22s} {s['title']}")
                if page.errors:
                    print("console errors:", page.errors[:5])
                page.errors.clear()
                status |= len(empty) > MAX_NEAR_EMPTY
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
