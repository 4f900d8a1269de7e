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
    title = match.group(1).strip().replace("`", "") if match else None
    return None if path.stem == "genindex" else title


def _normalise(text: str) -> str:
    """PDF text as comparable words: ligatures expanded, hyphenated line ends joined."""
    text = unicodedata.normalize("NFKC", text).replace("\u2013", "-").replace("\u2014", "-")
    text = re.sub(r"-\n(?=[a-z])", "", text)
    return re.sub(r"\s+", " ", text)


@pytest.fixture(scope="module")
def pdf_raw() -> str:
    """The PDF's text as pdftotext gives it (pages separated by form feeds), read once."""
    assert PDF.is_file(), f"{PDF} does not exist: run `make pdf` (make test does)"
    assert PDF.read_bytes()[:5] == b"%PDF-", f"{PDF} is not a PDF"
    return subprocess.run(["pdftotext", "-layout", str(PDF), "-"], check=True,
                          capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def pdf_text(pdf_raw) -> str:
    return _normalise(pdf_raw)


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


# ---------------------------------------------------------------------------------------------
# The PDF as a book (issue 30): title page, contents with page numbers, parts, open blocks,
# bookmarks, no build leftovers
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pdf_pages(pdf_raw) -> list[str]:
    """The text of each page, normalised."""
    return [_normalise(page) for page in pdf_raw.split("\f")]


def _book_title() -> tuple[str, str, str]:
    import yaml

    config = yaml.safe_load((REPO_ROOT / "_config.yml").read_text(encoding="utf-8"))
    title, _, subtitle = config["title"].partition(": ")
    return title, subtitle, config["author"]


def test_the_first_page_is_a_title_page(pdf_pages):
    title, subtitle, author = _book_title()
    first = pdf_pages[0]
    for text in (title, subtitle, author):
        assert _normalise(text) in first, f"page 1 has no {text!r}: {first[:300]!r}"
    assert "Preface" not in first, "page 1 is not a title page: the preface starts on it"


def test_the_contents_give_the_page_of_every_chapter(pdf_pages):
    """Page 2 starts the contents; each chapter's entry ends in the page where its title is."""
    assert pdf_pages[1].lstrip().startswith("Contents"), pdf_pages[1][:200]
    contents = " ".join(page for page in pdf_pages[1:8])
    titles = [t for t in (_title(p) for p in _toc_pages()) if t]
    for title in titles:
        entry = re.search(r"(?:\d+\. )?" + re.escape(_normalise(title)) + r"[ .]*?(\d+)\b",
                          contents)
        assert entry, f"the contents have no entry with a page number for {title!r}"
        page = int(entry.group(1))
        assert 2 < page <= len(pdf_pages), f"{title!r}: page {page}"
        assert _normalise(title) in pdf_pages[page - 1], (
            f"the contents send {title!r} to page {page}, which does not show it")


def test_the_parts_are_pages_and_bookmarks(pdf_pages):
    import yaml

    toc = yaml.safe_load((REPO_ROOT / "_toc.yml").read_text(encoding="utf-8"))
    captions = [part["caption"] for part in toc["parts"]]
    for caption in captions:
        assert any(page.strip().startswith(_normalise(caption)) for page in pdf_pages), (
            f"no page of its own for the part {caption!r}")
    outline = _outline_titles()
    for name in captions + [t for t in (_title(p) for p in _toc_pages()) if t]:
        assert any(_normalise(name) in _normalise(item) for item in outline), (
            f"no PDF bookmark for {name!r}; bookmarks: {outline[:20]}")


def _outline_titles() -> list[str]:
    """The titles of the PDF's bookmarks (outline items), decoded from the file."""
    data = PDF.read_bytes()
    assert b"/Outlines" in data, "the PDF has no bookmarks (outline)"
    titles = []
    for match in re.finditer(rb"/Title\s*(<[0-9A-Fa-f\s]+>|\((?:\\.|[^\\)])*\))", data):
        raw = match.group(1)
        if raw.startswith(b"<"):
            hexed = bytes.fromhex(re.sub(rb"\s", b"", raw[1:-1]).decode())
            titles.append(hexed[2:].decode("utf-16-be") if hexed[:2] == b"\xfe\xff"
                          else hexed.decode("latin-1"))
        else:
            titles.append(re.sub(r"\\(.)", r"\1", raw[1:-1].decode("latin-1")))
    return titles


def _collapsed_blocks() -> list[tuple[str, str]]:
    """(title, a run of its words) of every collapsed block of the single page: dropdowns
    (hints, worked solutions, proofs), hidden code cells, whole listings."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(SINGLEHTML.read_text(encoding="utf-8"), "html.parser")
    genindex = soup.find(id="document-genindex")
    blocks = []
    for block in soup.select("details, div.dropdown"):
        if genindex is not None and genindex in block.find_all_previous(id="document-genindex"):
            continue
        head = block.find("summary" if block.name == "details" else "p", recursive=False)
        title = head.get_text(" ", strip=True) if head else block.name
        body = [c for c in block.find_all(recursive=False) if c is not head]
        blocks.append((title, _sample(body)))
    return blocks


def _sample(elements) -> str:
    """Words the PDF must show: the longest run of plain text (no maths) of a block, or
    the first non-blank line of its code, up to 8 words."""
    runs = []
    for element in elements:
        for math in element.select("span.math, div.math, .MathJax, mjx-container"):
            math.replace_with(" \x00 ")
        code = [pre for pre in element.select("pre")]
        for pre in code:
            line = next((l for l in pre.get_text().splitlines() if len(l.split()) >= 2), "")
            if line:
                runs.append(line)
            pre.decompose()
        for paragraph in element.select("p, li, td, dd"):
            runs.extend(part for part in re.split(r"\x00|[(){}\[\]]", paragraph.get_text(" ")))
    runs = [" ".join(r.split()) for r in runs if len(r.split()) >= 3] or \
        [" ".join(r.split()) for r in runs if r.strip()]
    best = max(runs, key=len) if runs else ""
    return _normalise(" ".join(best.split()[:8]))


def test_every_collapsed_block_prints_open(pdf_text):
    blocks = _collapsed_blocks()
    assert len(blocks) >= 40, f"only {len(blocks)} collapsed blocks on the single page"
    hints = [b for b in blocks if b[0].lower().startswith("hint")]
    assert len(hints) >= 20, f"only {len(hints)} hints"
    squeezed = re.sub(r"\s+", "", pdf_text)
    def printed(words: str) -> bool:
        # a page break puts the footer ("52 / 239") inside a run of words: either half will do
        half = words.split()
        return any(re.sub(r"\s+", "", " ".join(part)) in squeezed
                   for part in (half, half[:len(half) // 2 + 1], half[len(half) // 2:]))

    missing = [(title, words) for title, words in blocks if words and not printed(words)]
    assert not missing, (f"{len(missing)} of {len(blocks)} collapsed blocks print closed or "
                         f"cut; first: {missing[:5]}")
    assert "Show code cell source" not in pdf_text, "a hidden code cell prints as a bar"


def test_the_pdf_has_no_build_leftovers(pdf_text):
    leftovers = re.findall(r".{0,30}(?::(?:eq|class|func|meth|mod|ref|doc|numref):`|\{index\}`|"
                           r"\{eq\}`).{0,30}", pdf_text)
    assert not leftovers, f"raw role text in the PDF: {leftovers[:5]}"
