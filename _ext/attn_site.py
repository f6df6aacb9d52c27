"""Small fixes to the jupyter-book 1.x site, loaded as a local Sphinx extension (_config.yml).

- each script is included once: sphinx-thebe registers its inline configuration twice, and the
  second `const THEBE_JS_URL` is a JavaScript error on every page;
- the home page's tab title is the book's name once, not "name - name";
- `index.html` (the redirect to the home page) gets a title, a favicon and a plain link;
- the launch buttons and the repository point at the repository the site is built from when
  `ATTN_REPOSITORY_URL` (and `ATTN_REPOSITORY_BRANCH`) are set, as the Pages workflow sets them
  from GitHub's context: a fork's buttons open the fork's notebooks, with no edit.
"""
from __future__ import annotations

import os
from pathlib import Path


def _repository_from_environment(app, config):
    """Override `repository.url`/`branch` of _config.yml from the environment, if set."""
    options = dict(config.html_theme_options or {})
    url = os.environ.get("ATTN_REPOSITORY_URL", "").strip().rstrip("/")
    branch = os.environ.get("ATTN_REPOSITORY_BRANCH", "").strip()
    if url:
        options["repository_url"] = url
    if branch:
        options["repository_branch"] = branch
    config.html_theme_options = options


def _dedupe_scripts(app, pagename, templatename, context, doctree):
    seen, unique = set(), []
    for js in context.get("script_files", []):
        attrs = getattr(js, "attributes", {}) or {}
        name = getattr(js, "filename", str(js)) or ""       # None and "" both mean inline
        key = (name, tuple(sorted((k, str(v)) for k, v in attrs.items())))
        if key in seen:
            continue
        seen.add(key)
        unique.append(js)
    if "script_files" in context:
        context["script_files"][:] = unique


def _write_index(app, exception):
    if exception is not None or app.builder.name != "html":
        return
    root = app.config.root_doc
    title = app.config.html_title or app.config.project
    # the home page's tab: the book's name once (the theme writes "page title - book title")
    home = Path(app.outdir, f"{root}.html")
    if home.exists():
        html = home.read_text(encoding="utf-8")
        html = html.replace(f"<title>{title} &#8212; {title}</title>", f"<title>{title}</title>", 1)
        home.write_text(html, encoding="utf-8")
    favicon = Path(app.config.html_favicon or "").name
    icon = f'<link rel="icon" href="_static/{favicon}">' if favicon else ""
    Path(app.outdir, "index.html").write_text(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        f"<title>{title}</title>{icon}\n"
        f'<meta http-equiv="Refresh" content="0; url={root}.html">\n'
        "</head><body>\n"
        f'<p><a href="{root}.html">{title}</a></p>\n'
        "</body></html>\n", encoding="utf-8")


def setup(app):
    app.connect("config-inited", _repository_from_environment)
    app.connect("html-page-context", _dedupe_scripts, priority=900)
    # after sphinx-external-toc writes its bare redirect (priority 500)
    app.connect("build-finished", _write_index, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
