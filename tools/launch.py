"""Run a chapter without installing anything: Binder, Colab, and the first cell that serves both.

The site's launch buttons (`_config.yml`, `launch_buttons`) open a notebook of the repository
on Binder or Colab:

- **Binder** builds an image from `binder/requirements.txt` (the book's pinned
  `requirements.txt`, with PyTorch's CPU wheels) and runs `binder/postBuild`, which installs the
  companion package `attnlab`; the notebook then runs as it does after `make venv`.
- **Colab** opens the notebook alone, with none of the repository beside it. So every notebook
  (chapters, exercises, solutions) starts with a **setup cell**: when the notebook has no
  repository beside it (no `../experiments/`), it clones the repository (once), installs the
  package and the few pinned packages Colab lacks (`binder/colab.txt`), and moves into the
  clone's `notebooks/` folder, so that paths such as `../experiments/results/` resolve and
  `import attnlab` works at once. Inside the repository (`make lab`, `make test`, Binder) the
  cell does nothing and prints nothing. The site hides it
  (tag `remove-cell`), and so do the decks (`skip`).

The repository the cell clones is `repository.url` of `_config.yml`; the environment variable
`ATTN_REPOSITORY` overrides it (tests/test_launch.py clones a local copy that way). The site's
buttons take the repository from the Pages workflow (`ATTN_REPOSITORY_URL`, see
`_ext/attn_site.py`), so a fork's site points at the fork without any edit. A fork that changes
the notebooks and wants Colab to clone the fork too runs, once:

    python tools/launch.py --repository https://github.com/<you>/<fork>   # _config.yml + cells

and commits the result. `python tools/launch.py --check` (tests/test_launch.py) says whether
every notebook has the setup cell for the configured repository; `--insert` adds it where it
is missing (the cell has no output, so no notebook needs to be re-run).
"""
from __future__ import annotations

import argparse
import re
import sys
import uuid

import nbformat

from nbcommon import EXERCISES, NOTEBOOKS, ROOT, SOLUTIONS, chapter_notebooks, read, write

CONFIG = ROOT / "_config.yml"
MARK = "# Setup for Colab"
TAG = "remove-cell"
URL_LINE = re.compile(r'^(  url: )"?([^"\n]+)"?\s*$', re.M)

SETUP = '''# Setup for Colab: fetch the book's code when this notebook is opened alone (else a no-op)
import os
import subprocess
import sys

if not os.path.isdir("../experiments"):                  # no repository beside the notebook
    if not os.path.isdir("attention-executed"):
        repo = os.environ.get("ATTN_REPOSITORY", "{url}")
        subprocess.run(["git", "clone", "-q", "--depth", "1", repo, "attention-executed"],
                       check=True)
        for args in (["--no-deps", "-e", "attention-executed"],
                     ["-r", "attention-executed/binder/colab.txt"]):
            subprocess.run([sys.executable, "-m", "pip", "install", "-q", *args], check=True)
    os.chdir("attention-executed/notebooks")
    sys.path.insert(0, os.path.abspath(".."))'''


def repository() -> str:
    m = URL_LINE.search(CONFIG.read_text(encoding="utf-8"))
    if not m:
        raise SystemExit("_config.yml has no `repository:` with a `url:`")
    return m.group(2)


def setup_source(url: str | None = None) -> str:
    return SETUP.replace("{url}", url or repository())


def all_notebooks():
    return [*chapter_notebooks(NOTEBOOKS), *chapter_notebooks(SOLUTIONS),
            *chapter_notebooks(EXERCISES)]


def setup_index(nb) -> int | None:
    for i, cell in enumerate(nb.cells[:3]):
        if cell.cell_type == "code" and cell.source.startswith(MARK):
            return i
    return None


def insert(nb, url: str) -> bool:
    """Put the setup cell right after the title cell (or refresh it); True if nb changed."""
    source = setup_source(url)
    i = setup_index(nb)
    if i is not None:
        cell = nb.cells[i]
        changed = cell.source != source
        cell.source = source
        return changed
    cell = nbformat.v4.new_code_cell(source)
    cell.id = "setup-" + uuid.uuid4().hex[:6]
    cell.metadata = {"slideshow": {"slide_type": "skip"}, "tags": [TAG]}
    cell.execution_count = 1
    for other in nb.cells:                     # the stored run, one cell earlier: no output
        if other.cell_type == "code" and other.execution_count:
            other.execution_count += 1
    nb.cells.insert(1, cell)
    return True


def problems(url: str) -> list[str]:
    found = []
    for path in all_notebooks():
        nb = read(path)
        i = setup_index(nb)
        name = f"{path.parent.name}/{path.name}"
        if i is None:
            found.append(f"{name}: no setup cell (python tools/launch.py --insert)")
            continue
        cell = nb.cells[i]
        if cell.source != setup_source(url):
            found.append(f"{name}: the setup cell differs from tools/launch.py's for {url}")
        if TAG not in cell.metadata.get("tags", []) or \
                cell.metadata.get("slideshow", {}).get("slide_type") != "skip":
            found.append(f"{name}: the setup cell must be tagged {TAG} and skipped on slides")
        if cell.get("outputs"):
            found.append(f"{name}: the setup cell stored an output")
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--insert", action="store_true")
    parser.add_argument("--repository", help="set the repository URL in _config.yml and cells")
    args = parser.parse_args(argv)
    if args.repository:
        text = CONFIG.read_text(encoding="utf-8")
        CONFIG.write_text(URL_LINE.sub(lambda m: f'{m.group(1)}"{args.repository}"', text, 1),
                          encoding="utf-8")
    url = repository()
    if args.insert or args.repository:
        for path in [*chapter_notebooks(NOTEBOOKS), *chapter_notebooks(SOLUTIONS)]:
            nb = read(path)
            if insert(nb, url):
                write(nb, path)
                print(f"setup cell in {path.relative_to(ROOT)}")
        print("now: make exercises (the exercise notebooks are generated from solutions/)")
        return 0
    found = problems(url)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
