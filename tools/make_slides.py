"""Export every chapter notebook as a reveal.js deck that a lecturer can use offline.

The deck is the chapter seen through its cells' `slideshow` metadata (the slide rules are in
book/chapter_contract.md, "Slides"; tools/slide_rules.py checks them). On top of nbconvert's
reveal template (tools/slides_template/attn_reveal/) this script makes sure that:

- the deck is titled by its chapter ("5. Masks - slides"), and shows no `In [n]:` prompts;
- nothing comes from a network: reveal.js, require.js, jQuery and MathJax 2 come from the npm
  registry once (into vendor/, ignored by git) and are copied next to the decks; no Google
  Fonts, no mermaid module;
- cells of type `notes` are speaker notes (press `s` in the deck);
- the opening cell is split: title and what you build; prerequisites and time as notes; the
  objectives on a slide of their own;
- a code cell tagged `slide-output-only` shows its output without its code;
- an error shows only its last line (`ValueError: ...`), never a traceback;
- figures are scaled down until their slide fits 1280 x 720, and code wraps at the slide's edge;
- `deck.html?print-pdf` is reveal.js's print view: print it to PDF from the browser;
- the arrow keys walk every slide in order (reveal.js's linear navigation), sub-slides included;
- links point to the published pages: `#chNN-word` to the chapter that holds the label,
  `NN_name.ipynb` and `../exercises/NN_name.ipynb` to their .html pages (the decks sit in the
  site's slides/ folder, so `../notebooks/NN_name.html#chNN-word`);
- speaker notes show each formula once in the speaker view (MathJax's hidden copy for screen
  readers would show there too: the speaker window has none of MathJax's styles).

    python tools/make_slides.py                 # chapters 1.. -> _build/html/slides/NN_name.slides.html
    python tools/make_slides.py notebooks/05_masks.ipynb --out /tmp/decks
"""
from __future__ import annotations

import argparse
import copy
import html
import re
import shutil
import subprocess
import sys
from pathlib import Path

from nbconvert import SlidesExporter

from nbcommon import ROOT, chapter_notebooks, read, tags

VENDOR = ROOT / "vendor"
OUT = ROOT / "_build" / "html" / "slides"   # where the published site has them
TEMPLATES = Path(__file__).resolve().parent / "slides_template"
FAVICON = ROOT / "_static" / "favicon.svg"
PACKAGES = ["reveal.js@5.2.1", "mathjax@2.7.9", "requirejs@2.3.7", "jquery@3.7.1"]
OUTPUT_ONLY = "slide-output-only"
WIDTH, HEIGHT = 1280, 720

# where each library lies, relative to the deck
URLS = {
    "reveal_url_prefix": "vendor/reveal.js",
    "require_js_url": "vendor/requirejs/require.js",
    "jquery_url": "vendor/jquery/dist/jquery.min.js",
    "mathjax_url": "vendor/mathjax/MathJax.js?config=TeX-AMS_CHTML",
}
# what each deck needs of each package (MathJax's PNG fonts and unpacked sources are 70 MB)
SKIP_IN_COPY = shutil.ignore_patterns("unpacked", "test", "png", "otf", "eot", "svg", "docs",
                                      "*.md", "demo.html", "index.html", "css", "js")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_LABEL = re.compile(r"^\([\w-]+\)=[ \t]*\n?", re.M)
_LINK = re.compile(r"\]\(([^)\s]+)\)")
# In the speaker window, MathJax's rendering of a formula (.mjx-math) has lost its styles; the MathML copy
# that MathJax keeps for screen readers renders natively there, so it alone is shown.
NOTES_STYLE = ("\n\n<style>.speaker-controls-notes .mjx-math, .speaker-controls-notes "
               ".MathJax_Preview { display: none !important; }</style>")


def deck_notebooks() -> list[Path]:
    """The chapters a lecturer teaches: every numbered notebook but 00_ (the helpers)."""
    return [p for p in chapter_notebooks() if not p.name.startswith("00_")]


def exporter() -> SlidesExporter:
    ex = SlidesExporter(extra_template_basedirs=[str(TEMPLATES)], template_name="attn_reveal")
    for key, value in URLS.items():
        setattr(ex, key, value)
    ex.mermaid_js_url = ""
    ex.exclude_input_prompt = True
    ex.exclude_output_prompt = True
    ex.reveal_width = str(WIDTH)
    ex.reveal_height = str(HEIGHT)
    ex.reveal_theme = "white"
    ex.reveal_transition = "none"
    return ex


def chapter_title(nb) -> str:
    """The chapter's `# N. Name` heading (the first level-1 heading), as plain text."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return re.sub(r"[`*_]", "", line[2:]).strip()
    return "Attention, Executed"


def split_opening(nb) -> None:
    """The opening cell is too long for one slide: in the deck it becomes the title with
    **What you build:**, the speaker notes (**Prerequisites:**, **Time:**), and a second slide
    with **You will be able to:** and its list. A cell of another shape is left as it is."""
    if not nb.cells or nb.cells[0].cell_type != "markdown":
        return
    text = nb.cells[0].source
    goals = text.find("**You will be able to:**")
    notes = min((i for i in (text.find("**Prerequisites:**"), text.find("**Time:**")) if i >= 0),
                default=-1)
    if goals < 0 or not 0 <= notes < goals:
        return
    head, middle, tail = text[:notes].rstrip(), text[notes:goals].strip(), text[goals:].strip()
    cells = [copy.deepcopy(nb.cells[0]) for _ in range(3)]
    parts = zip("abc", cells, (head, middle, tail), ("slide", "notes", "subslide"))
    for suffix, cell, source, kind in parts:
        cell.source = source
        cell.metadata["slideshow"] = {"slide_type": kind}
        if "id" in cell:
            cell.id = f"{cell.id}-{suffix}"
    nb.cells[0:1] = cells


def label_pages() -> dict[str, str]:
    """Each MyST label (`(ch04-scaling)=`) -> the published page that holds it, from slides/."""
    pages = {}
    for folder in ("notebooks", "exercises", "solutions"):
        for path in sorted((ROOT / folder).glob("*.ipynb")):
            for cell in read(path).cells:
                if cell.cell_type == "markdown":
                    for label in re.findall(r"^\(([\w-]+)\)=[ \t]*$", cell.source, re.M):
                        pages.setdefault(label, f"../{folder}/{path.stem}.html")
    for path in sorted((ROOT / "book").rglob("*.md")):
        for label in re.findall(r"^\(([\w-]+)\)=[ \t]*$", path.read_text(encoding="utf-8"), re.M):
            pages.setdefault(label, "../" + path.relative_to(ROOT).with_suffix(".html").as_posix())
    return pages


def published(target: str, folder: str, pages: dict[str, str]) -> str:
    """Where a link of a notebook in `folder` (notebooks, ...) leads from the site's slides/."""
    if re.match(r"[a-z]+:", target):
        return target
    file, hash_, anchor = target.partition("#")
    if not file:
        return f"{pages[anchor]}#{anchor}" if anchor in pages else target
    parts = (folder + "/" + file).split("/")
    resolved: list[str] = []
    for part in parts:
        if part == "..":
            resolved = resolved[:-1]
        elif part not in ("", "."):
            resolved.append(part)
    path = "/".join(resolved)
    path = re.sub(r"\.(ipynb|md)$", ".html", path)
    return "../" + path + (hash_ + anchor if anchor else "")


def for_slides(nb, folder: str = "notebooks", pages: dict[str, str] | None = None):
    """A copy of the notebook as the deck shows it (the page is not changed)."""
    nb = copy.deepcopy(nb)
    pages = label_pages() if pages is None else pages
    split_opening(nb)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = _LABEL.sub("", cell.source)     # MyST labels are for the site
            cell.source = _LINK.sub(lambda m: f"]({published(m[1], folder, pages)})", cell.source)
            if cell.metadata.get("slideshow", {}).get("slide_type") == "notes" and "$" in cell.source:
                cell.source += NOTES_STYLE
            continue
        if cell.cell_type != "code":
            continue
        if OUTPUT_ONLY in tags(cell):
            cell.metadata["transient"] = {"remove_source": True}
        for out in cell.get("outputs", []):
            if out.output_type == "error":
                out.traceback = [_ANSI.sub("", f"{out.ename}: {out.evalue}")]
    nb.metadata["title"] = chapter_title(nb)
    return nb


def export(path: Path, ex: SlidesExporter | None = None,
           pages: dict[str, str] | None = None) -> str:
    """The deck of one notebook, as HTML."""
    ex = ex or exporter()
    nb = for_slides(read(path), path.resolve().parent.name, pages)
    title = nb.metadata["title"]
    body, _ = ex.from_notebook_node(nb, resources={"favicon_url": "vendor/favicon.svg",
                                                   "metadata": {"name": title}})
    return re.sub(r"<title>.*?</title>",
                  f"<title>{html.escape(title)} - slides - Attention, Executed</title>",
                  body, count=1, flags=re.S)


def fetch_vendor() -> None:
    if all((VENDOR / "node_modules" / p.rsplit("@", 1)[0]).exists() for p in PACKAGES):
        return
    subprocess.run(["npm", "install", "--no-save", "--no-audit", "--no-fund",
                    "--prefix", str(VENDOR), *PACKAGES], check=True)


def copy_vendor(out: Path) -> None:
    for name in ["reveal.js", "requirejs", "jquery", "mathjax"]:
        dst = out / "vendor" / name
        if not dst.exists():
            shutil.copytree(VENDOR / "node_modules" / name, dst, ignore=SKIP_IN_COPY)
    shutil.copy2(FAVICON, out / "vendor" / "favicon.svg")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every chapter")
    parser.add_argument("--out", type=Path, default=OUT, help="folder of the decks")
    args = parser.parse_args(argv)
    fetch_vendor()
    args.out.mkdir(parents=True, exist_ok=True)
    copy_vendor(args.out)
    ex, pages = exporter(), label_pages()
    for path in args.notebooks or deck_notebooks():
        dst = args.out / path.name.replace(".ipynb", ".slides.html")
        dst.write_text(export(path, ex, pages), encoding="utf-8")
        print(f"wrote {dst}")
    print(f"Open {args.out}/<chapter>.slides.html in a browser (no network needed); "
          "add ?print-pdf to the address for the print view, then print to PDF.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
