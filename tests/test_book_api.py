"""The book's API reference (``book/api``): every public object of rkmlearn has an entry.

Public: every name in ``rkmlearn.__all__`` and in the ``__all__`` of each module whose dotted
name has no part starting with ``_`` (``book/_ext/rkm_api.py`` says how they are paged). The
first test needs no build: the committed pages must be what ``book/_tools/api_pages.py`` writes,
so a new public object without an entry fails here until the pages are regenerated. The others
read the built site (``make book``): the Sphinx inventory must hold an entry for each public
object, and entries and chapters must link each other.
"""
from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
HTML = REPO_ROOT / "_build" / "html"
sys.path.insert(0, str(REPO_ROOT / "book" / "_ext"))
import rkm_api  # noqa: E402


def _api_pages():
    spec = importlib.util.spec_from_file_location(
        "_book_tools_api_pages", REPO_ROOT / "book" / "_tools" / "api_pages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_api_pages_name_every_public_object():
    assert _api_pages().main(["--check"]) == 0, (
        "book/api/ is out of date: run `python book/_tools/api_pages.py` and commit book/api/")
    text = "\n".join(p.read_text() for p in (REPO_ROOT / "book" / "api").glob("*.md"))
    named = set(re.findall(r"^\.\. auto\w+:: (\S+)$", text, flags=re.MULTILINE))
    for module in rkm_api.public_modules():
        for name in module.__all__:
            obj = rkm_api.public_object(module, name)
            if rkm_api.kind_of(obj) == "module":
                assert obj.__name__ in named or f"# `{obj.__name__}`" in text, obj.__name__
                continue
            assert any(_load(n) is obj for n in named if n.endswith("." + name)), (
                f"{module.__name__}.{name} has no entry in book/api/")


def _load(dotted: str):
    module, _, attribute = dotted.rpartition(".")
    try:
        return getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError):
        return None


@pytest.fixture(scope="module")
def inventory():
    path = HTML / "objects.inv"
    if not path.is_file():
        pytest.skip("the book is not built (run `make book`)")
    from sphinx.util.inventory import InventoryFile

    with path.open("rb") as stream:
        return InventoryFile.load(stream, "", lambda base, uri: uri)


def test_every_public_object_has_an_entry_in_the_built_book(inventory):
    entries = {}
    for kind, objects in inventory.items():
        if kind.startswith("py:"):
            for name, item in objects.items():
                entries[name] = (kind, item[2])
    documented = {id(_load(name)): (name, uri) for name, (kind, uri) in entries.items()
                  if kind != "py:module" and _load(name) is not None}
    missing, elsewhere = [], []
    for module in rkm_api.public_modules():
        for name in module.__all__:
            obj = rkm_api.public_object(module, name)
            if rkm_api.kind_of(obj) == "module":
                if obj.__name__ not in entries:
                    missing.append(obj.__name__)
                continue
            found = documented.get(id(obj))
            if found is None:
                missing.append(f"{module.__name__}.{name}")
            elif not found[1].startswith("book/api/"):
                elsewhere.append(f"{found[0]} -> {found[1]}")
    assert not missing, f"{len(missing)} public objects have no entry: {missing[:10]}"
    assert not elsewhere, f"entries outside the API pages: {elsewhere[:10]}"


def test_entries_and_chapters_link_each_other(inventory):
    from bs4 import BeautifulSoup

    page = BeautifulSoup((HTML / "book" / "api" / "rkmlearn_models.html").read_text(), "html.parser")
    entry = page.find(id="rkmlearn.models.KPCA").find_parent("dl")
    assert "Parameters" in entry.get_text(), "the KPCA entry has no parameters"
    used = entry.select_one("p.rkm-used-in")
    assert used is not None, "the KPCA entry does not say where the book uses it"
    chapters = [a["href"] for a in used.select("a")]
    assert any("ch01_kernels.html#rkm-use-" in href for href in chapters), chapters
    target = chapters[0].split("#")
    chapter = BeautifulSoup((HTML / "book" / "api" / target[0]).resolve().read_text(),
                            "html.parser")
    mention = chapter.find(id=target[1])
    link = mention.find_parent("a")
    assert link is not None and "api/rkmlearn_models.html#rkmlearn.models.KPCA" in link["href"], (
        "the chapter's first mention of KPCA does not link its entry")
    linked = sum(1 for p in (HTML / "book").rglob("ch*.html")
                 if "api/rkmlearn_" in p.read_text())
    assert linked >= 8, f"only {linked} chapters link the API reference"
