"""The bibliography: complete entries, one author-year style, no raw keys on the page.

``book/references.bib`` is read with pybtex and labelled by the book's own style
(``book/_ext/rkm_book.py``, the one ``_config.yml`` names); the built page, where there is one
(``make book``), is read as text.
"""
from __future__ import annotations

import html
import importlib.util
import re
import sys
from pathlib import Path

import pytest
import yaml
from pybtex.database import parse_file

REPO_ROOT = Path(__file__).resolve().parents[1]
BIB = REPO_ROOT / "book" / "references.bib"
PAGE = REPO_ROOT / "_build" / "html" / "book" / "bibliography.html"
VENUE_FIELDS = ("journal", "booktitle", "publisher", "howpublished")


@pytest.fixture(scope="module")
def rkm_book():
    sys.path.insert(0, str(REPO_ROOT / "book" / "_ext"))
    try:
        import rkm_book as module
    finally:
        sys.path.pop(0)
    return module


@pytest.fixture(scope="module")
def bib():
    return parse_file(str(BIB))


def test_every_entry_is_complete(bib):
    for key, entry in bib.entries.items():
        assert entry.persons.get("author") or entry.persons.get("editor"), f"{key}: no author"
        for field in ("title", "year"):
            assert entry.fields.get(field), f"{key}: no {field}"
        assert any(entry.fields.get(f) for f in VENUE_FIELDS), f"{key}: no venue ({VENUE_FIELDS})"
        assert re.fullmatch(r"\d{4}", entry.fields["year"]), f"{key}: year {entry.fields['year']!r}"
        text = " ".join(entry.fields.values())
        assert "not printed" not in text.lower(), f"{key}: {text!r}"
        raw = [other for other in bib.entries if other in text]
        assert not raw, f"{key} names the bibliography key(s) {raw} in its text: cite by author"


def test_the_book_uses_the_author_year_styles(rkm_book):
    config = yaml.safe_load((REPO_ROOT / "_config.yml").read_text())["sphinx"]["config"]
    assert config["bibtex_default_style"] == "rkm_author_year"
    assert config["bibtex_reference_style"] == "rkm_author_year"
    from pybtex.plugin import find_plugin
    from sphinxcontrib.bibtex.plugin import find_plugin as find_bibtex_plugin

    assert find_plugin("pybtex.style.formatting", "rkm_author_year") is rkm_book.AuthorYearStyle
    references = find_bibtex_plugin("sphinxcontrib.bibtex.style.referencing", "rkm_author_year")()
    assert references.bracket_parenthetical.left == "("


def test_labels_read_as_the_citations_and_are_unique(bib, rkm_book):
    labels = {entry.key: entry.label
              for entry in rkm_book.AuthorYearStyle().format_entries(bib.entries.values())}
    assert labels["achten2023duality"] == "Achten et al., 2023"
    assert labels["rahimi2007random"] == "Rahimi and Recht, 2007"
    assert labels["deplaen2023dual"] == "De Plaen and Suykens, 2023"
    assert labels["weigend1993time"] == "Weigend and Gershenfeld, 1993"  # editors
    # two works that would read the same get a and b, in the bibliography's order
    assert (labels["pandey2022recurrent"], labels["pandey2022disentangled"]) == \
        ("Pandey et al., 2022a", "Pandey et al., 2022b")
    assert len(set(labels.values())) == len(labels)


@pytest.mark.skipif(not PAGE.is_file(), reason="the book is not built (make book)")
def test_the_built_page_shows_labels_not_keys(bib):
    text = html.unescape(re.sub(r"<[^>]+>", " ", PAGE.read_text(encoding="utf-8")))
    main = text[text.find("Bibliography"):]
    assert not [key for key in bib.entries if key in main], "a bibliography key shows on the page"
    assert not re.search(r"\[\d+\]", main), "numbered labels on an author-year page"
    assert "Achten et al., 2023" in main


# Every citation resolves and every entry is cited (issue 29): the pages are those of _toc.yml
# (markdown files and the markdown cells of notebooks) and the files they pull in with {include}.
CITE = re.compile(r"\{cite(?::[\w-]+)?\}`([^`]*)`")
INCLUDE = re.compile(r"```+\s*\{include\}\s+(\S+)")


def _toc_pages() -> list[Path]:
    spec = importlib.util.spec_from_file_location(
        "_book_tools_execute_notebooks", REPO_ROOT / "book" / "_tools" / "execute_notebooks.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    toc = yaml.safe_load((REPO_ROOT / "_toc.yml").read_text(encoding="utf-8"))
    pages = []
    for entry in tool.toc_entries(toc):
        path = REPO_ROOT / entry
        pages += [p for p in (path, path.with_name(path.name + ".ipynb"),
                              path.with_name(path.name + ".md")) if p.is_file()][:1]
    return pages


def _page_text(path: Path) -> str:
    if path.suffix == ".ipynb":
        import nbformat

        cells = nbformat.read(path, as_version=4).cells
        text = "\n".join(cell.source for cell in cells if cell.cell_type == "markdown")
    else:
        text = path.read_text(encoding="utf-8")
    for target in INCLUDE.findall(text):  # absolute targets are from the repository root
        included = REPO_ROOT / target.lstrip("/") if target.startswith("/") else path.parent / target
        text += "\n" + _page_text(included)
    return text


def cited_keys() -> dict[str, set[str]]:
    """Each key cited on a page of the book -> the pages that cite it."""
    cited: dict[str, set[str]] = {}
    for page in _toc_pages():
        for keys in CITE.findall(_page_text(page)):
            for key in filter(None, (key.strip() for key in keys.split(","))):
                cited.setdefault(key, set()).add(page.relative_to(REPO_ROOT).as_posix())
    return cited


def test_the_citation_scan_reads_every_role():
    assert CITE.findall("{cite:p}`a,b` and {cite:t}`c` and {cite}`d`") == ["a,b", "c", "d"]
    assert cited_keys(), "no {cite} found in the book: the pattern no longer matches"


def test_every_citation_resolves(bib):
    unknown = {key: sorted(pages) for key, pages in cited_keys().items()
               if key not in bib.entries}
    assert not unknown, f"cited keys with no entry in book/references.bib: {unknown}"


def test_every_entry_is_cited(bib):
    uncited = sorted(set(bib.entries) - set(cited_keys()))
    assert not uncited, (f"entries of book/references.bib that no page cites: {uncited}; cite "
                         "them where the text names the work, or remove them")
