"""The Chinese edition: one source (the notebooks and pages), translated by gettext catalogues.

Loaded as a local Sphinx extension (_config.yml). The catalogues are locale/zh_CN/LC_MESSAGES/,
one .po file per page (`make locale` refreshes them; README, "The Chinese edition").

- A question or hint is written `<details><summary>...</summary>`: raw HTML, which Sphinx never
  offers for translation. `SummaryToTranslatable` turns the summary's text into a node of its
  own, so it is extracted and translated like a paragraph, and writes the same HTML as before.
- In a translated build, `WarnUntranslated` warns once for every message that has no
  translation, or only a fuzzy one, naming the page and the English text; the build runs with
  warnings as errors, so an English edit cannot leave the Chinese page behind in silence.
- A header button on every page links to the same page in the other language: the English
  site is _build/html/, the Chinese one _build/html/zh/.
- The table of contents' captions (Part I ...) are inserted by sphinx-external-toc after Sphinx
  has translated the page, so `TranslateCaptions` translates them itself.
- What a code cell prints stays as it is, in every edition: `OutputsStayEnglish` marks the text
  of cell outputs (a table a cell displays as markdown) as not translatable, as code is.
- Two slow paths of a translated build, made fast (translated builds only; the English build is
  untouched): MyST builds a markdown parser and a fresh set of docutils settings for every
  translation it parses (it even makes a document it throws away), and Sphinx's Chinese search
  looks each word up in a list of every Latin word seen so far. `_faster` keeps one parser per
  configuration, copies the default settings and makes that list a set: the Chinese build went
  from 8 minutes to under 2 (the English one takes about 1).

Figures' alt texts are not messages (Sphinx's gettext has no target for them): like the
figures' own labels, they stay in English.
"""
from __future__ import annotations

import copy
import re

from docutils import nodes
from sphinx import addnodes
from sphinx.locale import init as init_locale
from sphinx.transforms import SphinxTransform
from sphinx.util import logging
from sphinx.util.i18n import docname_to_domain
from sphinx.util.nodes import extract_messages

logger = logging.getLogger(__name__)

# Each translated edition: the sub-folder of _build/html/ that holds it, its button's label,
# and the labels of the buttons that show and hide a folded code cell (MyST-NB's settings).
EDITIONS = {"zh_CN": {"folder": "zh", "label": "中文",
                      "nb_code_prompt_show": "显示单元格代码", "nb_code_prompt_hide": "隐藏单元格代码"}}
SUMMARY = re.compile(r"^(\s*<details[^>]*>\s*<summary[^>]*>)(.*?)(</summary>\s*)$", re.S)


class details_summary(nodes.paragraph):
    """The text of a `<summary>`, translatable; `prefix` and `suffix` keep the raw HTML."""


def _visit_summary(self, node):
    self.body.append(node["prefix"])


def _depart_summary(self, node):
    self.body.append(node["suffix"])


def _skip(self, node):
    raise nodes.SkipNode


class SummaryToTranslatable(SphinxTransform):
    """`<details><summary>text</summary>` (a raw HTML block) -> a translatable node."""

    default_priority = 15  # before sphinx.transforms.i18n.Locale (20)

    def apply(self, **kwargs) -> None:
        for raw in list(self.document.findall(nodes.raw)):
            if raw.get("format") != "html" or not isinstance(raw.parent, nodes.Element):
                continue
            match = SUMMARY.match(raw.astext())
            if not match or not match.group(2).strip():
                continue
            text = " ".join(match.group(2).split())
            node = details_summary(text, "", nodes.raw("", text, format="html"),
                                   prefix=match.group(1), suffix=match.group(3))
            node.source, node.line = raw.source, raw.line
            raw.replace_self(node)


class OutputsStayEnglish(SphinxTransform):
    """The text inside a code cell's outputs is not offered for translation."""

    default_priority = 14  # before Locale (20), in the gettext build as in every other

    def apply(self, **kwargs) -> None:
        for box in self.document.findall(nodes.container):
            if box.get("nb_element") == "cell_code_output" or "cell_output" in box["classes"]:
                for node in box.findall(nodes.TextElement):
                    node["translatable"] = False


def _catalog(transform):
    """The gettext catalogue of the page a transform works on: (translations, {msgid: msgstr})."""
    env, config = transform.env, transform.config
    domain = docname_to_domain(env.docname, config.gettext_compact)
    catalog, _ = init_locale([str(env.srcdir / d) for d in config.locale_dirs],
                             config.language, domain)
    return catalog, getattr(catalog, "_catalog", {})


def _translated(config) -> bool:
    return bool(config.language) and config.language != "en"


class TranslateCaptions(SphinxTransform):
    """Translate the captions of the toctrees sphinx-external-toc inserted (priority 100)."""

    default_priority = 101

    def apply(self, **kwargs) -> None:
        if not _translated(self.config):
            return
        catalog, known = _catalog(self)
        for toctree in self.document.findall(addnodes.toctree):
            caption = toctree.get("caption")
            if not caption:
                continue
            if known.get(caption):
                toctree["caption"] = known[caption]
            else:
                logger.warning("untranslated (%s): %s", self.env.docname, caption,
                               location=toctree, type="attn", subtype="untranslated")


class WarnUntranslated(SphinxTransform):
    """In a translated build, one warning per message without a (non-fuzzy) translation."""

    default_priority = 26  # after Locale (20) marked each node translated or not

    def apply(self, **kwargs) -> None:
        if not _translated(self.config):
            return
        _, known = _catalog(self)
        for node, msg in extract_messages(self.document):
            if isinstance(node, nodes.image):       # an alt text: not extracted, stays English
                continue
            if node.get("translated") or known.get(msg) == msg:  # kept as is, on purpose
                continue
            logger.warning("untranslated (%s): %s", self.env.docname, msg[:200],
                           location=node, type="attn", subtype="untranslated")


def _language_button(app, pagename, templatename, context, doctree):
    """A header button: the same page in the other edition."""
    if "header_buttons" not in context:
        return
    language = app.config.language or "en"
    root = _root(pagename)
    if language in EDITIONS:
        url, text, tooltip, lang = f"{root}../{pagename}.html", "English", "Read in English", "en"
    else:
        zh = EDITIONS["zh_CN"]
        url, text, tooltip, lang = (f"{root}{zh['folder']}/{pagename}.html", zh["label"],
                                    "阅读中文版", "zh-CN")
    context["header_buttons"].append({
        "type": "link", "url": url, "text": text, "tooltip": tooltip,
        "icon": "fas fa-language", "label": f"language-button-{lang}",
    })


def _root(pagename: str) -> str:
    """The relative path from a page to the root of its site ('' or '../' per level)."""
    return "../" * pagename.count("/")


def _faster(app, config):
    """In a translated build: its own code-cell labels, and the two slow paths made fast."""
    if not _translated(config):
        return
    for name, value in EDITIONS.get(config.language, {}).items():
        if name.startswith("nb_"):
            setattr(config, name, value)
    from sphinx.search import zh

    class _Seen(set):          # SearchChinese.latin_terms: `in` on a set, not a long list
        def extend(self, words):
            self.update(words)
    zh.SearchChinese.latin_terms = _Seen()

    from docutils.frontend import get_default_settings
    from docutils.utils import new_document
    import myst_parser.mdit_to_docutils.base as base
    import myst_parser.parsers.sphinx_ as myst_sphinx

    settings, parsers = {}, {}
    create = myst_sphinx.create_md_parser

    def make_document(source_path="notset", parser_cls=base.RSTParser):
        if parser_cls not in settings:
            settings[parser_cls] = get_default_settings(parser_cls)
        return new_document(source_path, settings=copy.copy(settings[parser_cls]))

    def create_md_parser(config, renderer):
        key = (id(config), renderer)
        if key not in parsers or parsers[key][0] is not config:
            parsers[key] = (config, create(config, renderer))
        return parsers[key][1]

    base.make_document = make_document
    myst_sphinx.create_md_parser = create_md_parser


def setup(app):
    app.connect("config-inited", _faster)
    app.add_node(details_summary, html=(_visit_summary, _depart_summary),
                 latex=(_skip, None), text=(_skip, None), man=(_skip, None),
                 texinfo=(_skip, None))
    app.add_transform(SummaryToTranslatable)
    app.add_transform(OutputsStayEnglish)
    app.add_transform(WarnUntranslated)
    app.add_transform(TranslateCaptions)
    # after sphinx-book-theme adds its own buttons (priority 501)
    app.connect("html-page-context", _language_button, priority=502)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
