"""Build the site in one language: `python tools/build_book.py [--lang zh_CN] [--out DIR]`.

English (the default) is what `jupyter-book build .` builds. A translation is the same book
with Sphinx's `language` set, its text taken from locale/<lang>/LC_MESSAGES/ (README, "The
Chinese edition"). Each language has a build folder of its own (doctrees, executed outputs), so
the two builds never share a cache: `--out _build/zh` gives _build/zh/html/, which `make book`
copies to _build/html/zh/, where the language button of every English page points.

Runs with warnings as errors and nitpicky references, as the English build does; in a
translation, every message without a translation is a warning (_ext/attn_i18n.py), so the build
fails on one and names its page and its English text.
"""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build(lang: str, out: Path, builder: str = "html", strict: bool = True) -> int:
    from jupyter_book.sphinx import build_sphinx

    overrides = {"external_toc_path": (ROOT / "_toc.yml").as_posix(),
                 "latex_individualpages": False, "nitpicky": True}
    if lang != "en":
        overrides["language"] = lang
    html = out / "_build" / builder
    result = build_sphinx(ROOT, html, use_external_toc=True, noconfig=True,
                          path_config=str(ROOT / "_config.yml"), confoverrides=overrides,
                          builder=builder, warningiserror=strict, keep_going=True,
                          doctreedir=out / "_build" / ".doctrees")
    return 0 if result in (0, None) else 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", default="en", help="en (default) or zh_CN")
    parser.add_argument("--out", type=Path, required=True,
                        help="build folder; the site goes to OUT/_build/html")
    parser.add_argument("--builder", default="html", help="html (default) or gettext")
    parser.add_argument("--copy-to", type=Path,
                        help="then replace this folder with the built site (make book: "
                             "_build/html/zh)")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    status = build(args.lang, out, args.builder, strict=args.builder == "html")
    if status == 0 and args.copy_to:
        shutil.rmtree(args.copy_to, ignore_errors=True)
        shutil.copytree(out / "_build" / args.builder, args.copy_to)
    return status


if __name__ == "__main__":
    sys.exit(main())
