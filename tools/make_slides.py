"""Export every chapter notebook as a reveal.js deck that works offline.

nbconvert's slides load reveal.js, require.js, jQuery and MathJax from CDNs. Here
they come from the npm registry once (into vendor/, ignored by git) and are copied
next to the decks, so _build/slides/ opens without a network.

    python tools/make_slides.py     # -> _build/slides/NN_name.slides.html
"""
from __future__ import annotations

import shutil
import subprocess
import sys

from nbconvert import SlidesExporter

from nbcommon import ROOT, chapter_notebooks, read

VENDOR = ROOT / "vendor"
OUT = ROOT / "_build" / "slides"
PACKAGES = ["reveal.js@5.2.1", "mathjax@2.7.9", "requirejs@2.3.7", "jquery@3.7.1"]

# where each library lies, relative to the deck
URLS = {
    "reveal_url_prefix": "vendor/reveal.js",
    "require_js_url": "vendor/requirejs/require.js",
    "jquery_url": "vendor/jquery/dist/jquery.min.js",
    "mathjax_url": "vendor/mathjax/MathJax.js?config=TeX-AMS_HTML",
}


def exporter() -> SlidesExporter:
    ex = SlidesExporter()
    for key, value in URLS.items():
        setattr(ex, key, value)
    return ex


def fetch_vendor() -> None:
    if all((VENDOR / "node_modules" / p.rsplit("@", 1)[0]).exists() for p in PACKAGES):
        return
    subprocess.run(["npm", "install", "--no-save", "--no-audit", "--no-fund",
                    "--prefix", str(VENDOR), *PACKAGES], check=True)


def main() -> int:
    fetch_vendor()
    OUT.mkdir(parents=True, exist_ok=True)
    for name in ["reveal.js", "requirejs", "jquery", "mathjax"]:
        dst = OUT / "vendor" / name
        if not dst.exists():
            shutil.copytree(VENDOR / "node_modules" / name, dst)
    ex = exporter()
    for path in chapter_notebooks():
        html, _ = ex.from_notebook_node(read(path))
        dst = OUT / path.name.replace(".ipynb", ".slides.html")
        dst.write_text(html, encoding="utf-8")
        print(f"wrote {dst.relative_to(ROOT)}")
    print(f"Open {(OUT).relative_to(ROOT)}/<chapter>.slides.html in a browser (no network needed).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
