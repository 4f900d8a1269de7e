"""Site-level fixes of the rkmlearn book, as a local Sphinx extension (``_config.yml`` loads it).

* **No thebe.** Jupyter Book 1 always loads ``sphinx_thebe``, which writes
  ``const THEBE_JS_URL = ...`` into every page -- twice, so the second declaration throws -- and a
  script that would fetch thebe from unpkg.com. The book has no launch buttons (it runs offline),
  so both scripts, thebe's stylesheet and its per-page configuration are removed from every page.
* **One copy of each script.** Scripts that appear twice in a page's list are written once.
* **Theme mode.** Without ``default_mode`` the theme reads an empty mode and logs "Got invalid
  theme mode"; the book is light by default (the reader can still switch).
* **Only what pages load.** Source maps (``*.map``, read only by a browser's developer tools) and
  the theme's translation catalogues (``_static/locales``, used at build time) are deleted from
  the built site (3.4 MB and 0.7 MB).
* **One citation style, author-year.** The pybtex style ``rkm_author_year``
  (``_config.yml``: ``bibtex_default_style``) labels each entry of the bibliography as the text
  cites it, "Achten et al., 2023", "Rahimi and Recht, 2007", with "a", "b" after the year where
  two entries would read the same (sorted by author and year); the referencing style of the same
  name (``bibtex_reference_style``) cites with the author names and that year, so the text says
  (Pandey et al., 2022a) where the entry is labelled so.
* **Explorers in the single-page build.** ``make pdf`` prints the ``singlehtml`` build, one
  page with every chapter; myst-nb loads the widget state and scripts of a notebook only on the
  notebook's own page, so on the single page they are added for every notebook.
* **The directive ``rkm-source``**, which shows library code in a chapter (see "Showing library
  code" in ``book/README.md``).
* **No leftovers** (``rkm_leftovers.py``): role text in listings and stray index paragraphs.
* **The API reference** (``rkm_api.py``), linked both ways with the chapters.
* **Downloads** (``rkm_downloads.py``): the wheel and the exercise hand-outs, and a note in each
  chapter's exercise section that links them and "Running the book".

The JavaScript side (sidebar toggles, the MathJax 2 shim for the widget manager, the hidden
accessibility menu) and the explorer and equation styles are in ``book/_static/rkm_book.js`` and
``book/_static/rkm_book.css``.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import os
import re
import shutil
import textwrap
from pathlib import Path

from collections import Counter
from dataclasses import dataclass, field

from docutils import nodes
from pybtex.plugin import register_plugin
from pybtex.richtext import Text
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle
from sphinxcontrib.bibtex.plugin import register_plugin as register_bibtex_plugin
from sphinxcontrib.bibtex.style.referencing import BracketStyle
from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle
from sphinxcontrib.bibtex.style.referencing.basic_author_year import (
    BasicAuthorYearParentheticalReferenceStyle,
    BasicAuthorYearTextualReferenceStyle,
)
from sphinxcontrib.bibtex.style.template import join, join2, node, post_text, pre_text, reference
from docutils.parsers.rst import directives
from sphinx.directives.code import container_wrapper
from sphinx.util.docutils import SphinxDirective


def _surname(person) -> str:
    """A person's last name with its "von" part, LaTeX markup rendered ("De Moor", "Müller")."""
    return " ".join(name.render_as("text")
                    for name in (*person.rich_prelast_names, *person.rich_last_names))


class AuthorYearLabels(BaseLabelStyle):
    """Bibliography labels as the author-year citations print them: "Achten et al., 2023".

    One or two authors (or editors, where there are no authors) are named, three or more as the
    first "et al."; two entries that would read the same get "a", "b", ... after the year in the
    order of the bibliography.
    """

    def format_labels(self, sorted_entries):
        sorted_entries = list(sorted_entries)
        labels = [self._label(entry) for entry in sorted_entries]
        repeated, seen = Counter(labels), Counter()
        for label in labels:
            if repeated[label] > 1:
                seen[label] += 1
                yield label + "abcdefghijklmnopqrstuvwxyz"[seen[label] - 1]
            else:
                yield label

    @staticmethod
    def _label(entry) -> str:
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        names = [_surname(person) for person in people]
        if not names:
            raise ValueError(f"bibliography entry {entry.key!r} has no author or editor; add one "
                             "to book/references.bib.")
        who = names[0] if len(names) == 1 else (
            f"{names[0]} and {names[1]}" if len(names) == 2 else f"{names[0]} et al.")
        return f"{who}, {entry.fields.get('year', 'n.d.')}"


class AuthorYearStyle(UnsrtStyle):
    """pybtex's ``unsrt`` entries, labelled by :class:`AuthorYearLabels`, sorted by author and year."""

    default_label_style = AuthorYearLabels
    default_sorting_style = "author_year_title"


register_plugin("pybtex.style.formatting", "rkm_author_year", AuthorYearStyle)


@node
def _label_year(children, data):
    """The year as the entry's label gives it (with its "a"/"b"): "2022a" of "Pandey et al., 2022a"."""
    assert not children
    return Text(data["formatted_entry"].label.rsplit(", ", 1)[-1])


class _Parenthetical(BasicAuthorYearParentheticalReferenceStyle):
    """{cite:p}: (Pandey et al., 2022a)."""

    def inner(self, role_name):
        return join2(sep1=self.pre_text_sep, sep2=self.post_text_sep)[
            pre_text,
            reference[join(sep=self.author_year_sep)[
                self.person.author_or_editor_or_title(full="s" in role_name), _label_year]],
            post_text,
        ]


class _Textual(BasicAuthorYearTextualReferenceStyle):
    """{cite:t}: Pandey et al. (2022a)."""

    def inner(self, role_name):
        return join(sep=self.text_reference_sep)[
            self.person.author_or_editor_or_title(full="s" in role_name),
            join[self.bracket.left,
                 join2(sep1=self.pre_text_sep, sep2=self.post_text_sep)[
                     pre_text, reference[_label_year], post_text],
                 self.bracket.right],
        ]


def _round_brackets():
    return BracketStyle(left="(", right=")")


@dataclass
class AuthorYearReferences(AuthorYearReferenceStyle):
    """sphinxcontrib-bibtex's author-year citations in round brackets, with the year of the
    entry's label: (Achten et al., 2023), Achten et al. (2023)."""

    bracket_textual: BracketStyle = field(default_factory=_round_brackets)
    bracket_parenthetical: BracketStyle = field(default_factory=_round_brackets)
    bracket_year: BracketStyle = field(default_factory=_round_brackets)

    def __post_init__(self):
        super().__post_init__()
        replace = {BasicAuthorYearParentheticalReferenceStyle: _Parenthetical,
                   BasicAuthorYearTextualReferenceStyle: _Textual}
        self.styles = [replace[type(style)](**vars(style)) if type(style) in replace else style
                       for style in self.styles]
        self.role_style.clear()  # the role -> style table built from the replaced list
        for style in self.styles:
            self.role_style.update((name, style) for name in style.role_names())


register_bibtex_plugin("sphinxcontrib.bibtex.style.referencing", "rkm_author_year",
                       AuthorYearReferences)


def _theme_defaults(app, config):
    config.html_context = {"default_mode": "light", **(config.html_context or {})}


def _is_thebe(asset) -> bool:
    filename = getattr(asset, "filename", "") or ""
    body = (getattr(asset, "attributes", {}) or {}).get("body", "") or ""
    return "thebe" in filename.rsplit("/", 1)[-1] or "THEBE_JS_URL" in body


def _page_assets(app, pagename, templatename, context, doctree):
    if "script_files" in context:
        seen, scripts = set(), []
        for asset in context["script_files"]:
            key = (getattr(asset, "filename", "") or "",
                   (getattr(asset, "attributes", {}) or {}).get("body", ""))
            if _is_thebe(asset) or key in seen:
                continue
            seen.add(key)
            scripts.append(asset)
        context["script_files"] = scripts
    if "css_files" in context:
        context["css_files"] = [c for c in context["css_files"] if not _is_thebe(c)]


def _singlehtml_widgets(app, pagename, templatename, context, doctree):
    """On the single page (``singlehtml``), the widget state and scripts of every notebook."""
    if app.builder.name != "singlehtml":
        return
    from myst_nb.sphinx_ import NbMetadataCollector

    for docname in sorted(app.env.found_docs - {pagename}):
        for uri, kwargs in NbMetadataCollector.get_js_files(app.env, docname).values():
            app.add_js_file(uri, **kwargs)  # repeats (the widget scripts) are dropped below


def _drop_thebe_config(app, doctree, docname):
    """Remove the per-page thebe configuration sphinx_thebe appends (raw HTML) to every page."""
    for node in list(doctree.findall(nodes.raw)):
        if "x-thebe-config" in node.astext() or "kernelName =" in node.astext():
            node.parent.remove(node)


#: the theme's Font Awesome "SVG + JS" script (1.5 MB, 0.54 MB gzipped, on every page); the theme's
#: stylesheet already carries Font Awesome's web-font CSS, which draws the same icons
_ICON_SCRIPT = re.compile(r'[ \t]*<script defer src="[^"]*_static/scripts/fontawesome\.js[^"]*"></script>\n?')


def _drop_unloaded_files(app, exception):
    """Files no page needs: source maps, Sphinx's translations, and the theme's icon script
    (issue 30: half a megabyte of every page's weight, for icons the web font shows anyway)."""
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    static = out / "_static"
    for path in static.rglob("*.map"):
        path.unlink()
    shutil.rmtree(static / "locales", ignore_errors=True)
    for page in out.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        lighter = _ICON_SCRIPT.sub("", text)
        if lighter != text:
            page.write_text(lighter, encoding="utf-8")
    for name in ("fontawesome.js", "fontawesome.js.LICENSE.txt"):
        (static / "scripts" / name).unlink(missing_ok=True)


def _resolve(dotted: str):
    """Import ``package.module.Class.method``: the longest importable module prefix, then
    attributes (so a public name keeps working when the module behind it moves)."""
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for attribute in parts[split:]:
            obj = getattr(obj, attribute)
        return inspect.unwrap(obj)
    raise ImportError(f"no module in {dotted!r} can be imported")


class LibrarySource(SphinxDirective):
    """Show the lines of a library function that carry an equation, and its whole listing.

    Usage (MyST)::

        ```{rkm-source} rkmlearn.kernels.RBF._compute
        :start-at: K = squared_euclidean_distances
        :end-at: np.exp(
        ```

    The source is read from the installed package when the book is built (``inspect``), so the
    page always shows the code as it is. ``start-at``/``end-at`` are texts of the first and last
    line to show (first occurrence after the docstring; ``end-at`` at or after ``start-at``); if
    either is not found, the build fails instead of showing the wrong lines. Without them the
    whole body is shown. Under the excerpt, a collapsed dropdown holds the whole definition
    without its docstring (render that with autodoc where the chapter needs it);
    ``:no-listing:`` leaves the dropdown out. Line numbers are those of the source file, whose
    path (relative to the repository) is in the caption.
    """

    required_arguments = 1
    option_spec = {
        "start-at": directives.unchanged_required,
        "end-at": directives.unchanged_required,
        "caption": directives.unchanged,
        "no-listing": directives.flag,
    }

    def run(self):
        name = self.arguments[0]
        try:
            obj = _resolve(name)
            lines, first = inspect.getsourcelines(obj)
            path = inspect.getsourcefile(obj)
        except (ImportError, AttributeError, OSError, TypeError) as error:
            raise self.error(f"rkm-source: cannot read the source of {name!r}: {error}") from error
        self.env.note_dependency(path)
        definition = ast.parse(textwrap.dedent("".join(lines))).body[0]
        statements = definition.body
        docstring = None
        if ast.get_docstring(definition) is not None:
            docstring = (statements[0].lineno - 1, statements[0].end_lineno)  # [start, stop)
            statements = statements[1:] or statements
        body = statements[0].lineno - 1
        start, end = body, len(lines) - 1
        if "start-at" in self.options:
            start = self._find(lines, self.options["start-at"], body, name, "start-at")
        if "end-at" in self.options:
            end = self._find(lines, self.options["end-at"], start, name, "end-at")
        excerpt = textwrap.dedent("".join(lines[start:end + 1])).rstrip("\n")
        literal = nodes.literal_block(excerpt, excerpt, language="python", linenos=True,
                                      highlight_args={"linenostart": first + start})
        self.set_source_info(literal)
        shown_path = os.path.relpath(path, self.env.srcdir)
        caption = self.options.get("caption") or (
            f"``{name}``, {shown_path} lines {first + start}-{first + end}")
        result = [container_wrapper(self, literal, caption)]
        if "no-listing" not in self.options:
            kept = lines if docstring is None else lines[:docstring[0]] + lines[docstring[1]:]
            listing = textwrap.dedent("".join(kept)).rstrip("\n")
            full = nodes.literal_block(listing, listing, language="python")
            self.set_source_info(full)
            dropdown = nodes.admonition(classes=["dropdown", "rkm-listing"])
            dropdown += nodes.title(text=f"Whole listing of {name} (docstring omitted)")
            dropdown += full
            result.append(dropdown)
        return result

    def _find(self, lines, text, start, name, option):
        for index in range(start, len(lines)):
            if text in lines[index]:
                return index
        raise self.error(
            f"rkm-source: {option} text {text!r} is not in the source of {name!r} after its "
            f"docstring; the code changed: update the chapter.")


def setup(app):
    import rkm_api  # book/_ext is on the path: _config.yml's local_extensions
    import rkm_downloads
    import rkm_frames
    import rkm_leftovers

    rkm_leftovers.setup(app)
    rkm_api.setup(app)
    rkm_downloads.setup(app)
    rkm_frames.setup(app)
    app.connect("config-inited", _theme_defaults)
    # after every other handler, so that scripts added by them are filtered too
    app.connect("html-page-context", _singlehtml_widgets, priority=600)
    app.connect("html-page-context", _page_assets, priority=900)
    app.connect("doctree-resolved", _drop_thebe_config, priority=900)
    app.connect("build-finished", _drop_unloaded_files)
    app.add_js_file("rkm_book.js", priority=520)  # after the inline MathJax config (500)
    app.add_css_file("rkm_book.css")
    app.add_directive("rkm-source", LibrarySource)
    # env_version: a cached doctree from before these transforms must be read again
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 6}
