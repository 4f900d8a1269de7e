"""The PDF of the whole book (``make pdf``, which ``make test`` runs first): produced, complete.

``book/_tools/print_pdf.py`` prints the single-page HTML build with Chromium. This test reads
the PDF back with poppler's ``pdftotext``/``pdfinfo``/``pdfimages`` (Debian's poppler-utils,
which ``.ci/run`` installs with Chromium) and checks that it has every page of ``_toc.yml`` (its
title, in order), typeset mathematics (the equation numbers of the HTML book, no raw TeX), and
at least one picture per output figure of the notebooks. Skipped, and saying why, where there is
no Chromium (``make pdf`` then prints nothing, as the browser test skips) or no poppler-utils.
"""
from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import nbformat
import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
PDF = REPO_ROOT / "_build" / "pdf" / "rkmlearn-book.pdf"
#: the single page that print_pdf.py printed (a copy of the singlehtml page at the build's root)
SINGLEHTML = REPO_ROOT / "_build" / "singlehtml" / "rkmlearn-book.html"


def _chromium():
    spec = importlib.util.spec_from_file_location(
        "_book_tools_print_pdf", REPO_ROOT / "book" / "_tools" / "print_pdf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.chromium()


if _chromium() is None:
    pytest.skip("PDF check SKIPPED: no chromium found, so `make pdf` prints nothing; install "
                "it (apt-get install -y chromium; .ci/run does) or set RKM_CHROMIUM",
                allow_module_level=True)
if not all(shutil.which(tool) for tool in ("pdftotext", "pdfinfo", "pdfimages")):
    pytest.skip("PDF check SKIPPED: poppler-utils (pdftotext) is not installed; "
                "apt-get install -y poppler-utils (.ci/run does)", allow_module_level=True)


def _toc_pages() -> list[Path]:
    """The source of every page of _toc.yml, in reading order (the pipeline's own reader)."""
    spec = importlib.util.spec_from_file_location(
        "_book_tools_execute_notebooks", REPO_ROOT / "book" / "_tools" / "execute_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    import yaml

    entries = module.toc_entries(yaml.safe_load((REPO_ROOT / "_toc.yml").read_text()))
    pages = []
    for entry in entries:
        path = REPO_ROOT / entry
        found = [p for p in (path, path.with_name(path.name + ".ipynb"),
                             path.with_name(path.name + ".md")) if p.is_file()]
        pages.append(found[0])
    return pages


def _title(path: Path) -> str | None:
    """The page's first level-1 heading (None for the generated index's placeholder)."""
    if path.suffix == ".ipynb":
        nb = nbformat.read(path, as_version=4)
        text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    else:
        text = path.read_text(encoding="utf-8")
    match = re.search(r"^# (.+)$", text, flags=re.MULTILINE)
    title = match.group(1).strip() if match else None
    return None if path.stem == "genindex" else title


def _normalise(text: str) -> str:
    """PDF text as comparable words: ligatures expanded, hyphenated line ends joined."""
    text = unicodedata.normalize("NFKC", text).replace("\u2013", "-").replace("\u2014", "-")
    text = re.sub(r"-\n(?=[a-z])", "", text)
    return re.sub(r"\s+", " ", text)


@pytest.fixture(scope="module")
def pdf_text() -> str:
    assert PDF.is_file(), f"{PDF} does not exist: run `make pdf` (make test does)"
    assert PDF.read_bytes()[:5] == b"%PDF-", f"{PDF} is not a PDF"
    return _normalise(subprocess.run(["pdftotext", "-layout", str(PDF), "-"], check=True,
                                     capture_output=True, text=True).stdout)


def test_the_pdf_has_every_page_of_the_book_in_order(pdf_text):
    titles = [t for t in (_title(p) for p in _toc_pages()) if t]
    assert len(titles) >= 12, f"_toc.yml lists only {titles}"
    position = 0
    for title in titles:
        found = pdf_text.find(_normalise(title), position)
        assert found >= 0, (f"the PDF has no page titled {title!r} after the previous one: "
                            "run `make pdf` again, or see book/_tools/print_pdf.py")
        position = found
    pages = int(re.search(r"^Pages:\s+(\d+)", subprocess.run(
        ["pdfinfo", str(PDF)], check=True, capture_output=True, text=True).stdout,
        flags=re.MULTILINE).group(1))
    assert pages > 2 * len(titles), f"{pages} pages for {len(titles)} chapters"


def test_the_pdf_has_typeset_equations(pdf_text):
    html = SINGLEHTML.read_text(encoding="utf-8")
    numbers = set(re.findall(r'<span class="eqno">\((\d+\.\d+)\)', html))
    assert len(numbers) >= 50, "the single-page build has fewer than 50 numbered equations"
    printed = set(re.findall(r"\((\d+\.\d+)\)", pdf_text))
    missing = sorted(numbers - printed, key=lambda n: tuple(map(int, n.split("."))))
    assert not missing, f"equation numbers missing from the PDF: {missing[:10]}"
    # the page holds its mathematics as \( ... \) and \[ ... \] until MathJax typesets it
    raw = re.findall(r".{0,30}\\[(\[].{0,30}", pdf_text)
    assert not raw, f"raw TeX in the PDF (MathJax had not typeset it): {raw[:5]}"


def test_the_pdf_has_the_figures():
    figures = 0
    for page in _toc_pages():
        if page.suffix == ".ipynb":
            nb = nbformat.read(page, as_version=4)
            figures += sum("image/png" in output.get("data", {})
                           for cell in nb.cells if cell.cell_type == "code"
                           for output in cell.get("outputs", []))
    assert figures >= 10, f"the notebooks store only {figures} figures"
    listing = subprocess.run(["pdfimages", "-list", str(PDF)], check=True, capture_output=True,
                             text=True).stdout.splitlines()[2:]
    images = [line for line in listing if line.split()[2] == "image"]
    assert len(images) >= figures, f"the PDF has {len(images)} images for {figures} figures"
