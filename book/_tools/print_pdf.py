#!/usr/bin/env python3
"""Print the whole book to one PDF that reads as a book (``make pdf``).

``make pdf`` builds the book with Sphinx's ``singlehtml`` builder (every chapter in one page,
``_build/singlehtml/index.html``) and runs this script, which

1. serves that folder on 127.0.0.1 (every request to another host is aborted: the book is
   offline, as the browser test checks);
2. opens the page in the system Chromium, driven by Playwright as the browser test does
   (``RKM_CHROMIUM`` names another binary);
3. waits until MathJax has typeset every equation, the explorers show their first frames, every
   image has loaded and the fonts are ready;
4. makes the page a book (:data:`BOOK_JS`): a title page (``_config.yml``'s title and author), a
   table of contents and a list of figures, a page for each part of ``_toc.yml`` before its first
   chapter (the parts are the PDF's top-level bookmarks, the chapters under them), and every
   collapsed block open (hints, worked solutions and proofs in dropdowns, hidden code cells,
   whole listings), since paper cannot be clicked;
5. prints it twice (A4, page numbers in the footer, the headings as PDF bookmarks) with a print
   style that hides the navigation, starts each chapter on a new page and lets code and
   equations wrap instead of scrolling: the first print only finds on which page each entry of
   the contents starts (an invisible marker per entry, read back with poppler's ``pdftotext``),
   the second has those page numbers in the contents. The markers take no room, so the pages
   of both prints are the same.

Usage: ``python book/_tools/print_pdf.py [--html _build/singlehtml] [--out _build/pdf/rkmlearn-book.pdf]``
"""
from __future__ import annotations

import argparse
import asyncio
import functools
import http.server
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

REPO_ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_MS = 600_000
#: the single page, copied to the build's root (:func:`single_page`)
PAGE = "rkmlearn-book.html"
#: CSS for the printed page: no navigation, a chapter per new page, nothing cut at the margin.
PRINT_CSS = """
@page { size: A4; }
.bd-header, .bd-sidebar-primary, .bd-sidebar-secondary, .bd-header-article, .bd-footer,
.bd-footer-article, .prev-next-area, .headerlink, .toggle-button, #rtd-footer-container,
.header-article-items, .bd-search, .skip-link, .theme-switch-button,
#jb-print-docs-body { display: none !important; }
.bd-main, .bd-content, .bd-article-container, .bd-page-width, .bd-container,
.bd-container__inner { max-width: none !important; width: auto !important; padding: 0 !important;
  margin: 0 !important; }
/* the single page marks where each document (chapter) starts */
span[id^="document-"] + section { break-before: page; }
/* the sidebar's "Index" is a placeholder (genindex.md) that the HTML book replaces by Sphinx's
   generated index; a printed index without page numbers is of no use */
#document-genindex + section { display: none !important; }
h1, h2, h3, h4 { break-after: avoid; }
figure, img, .rkm-explorer, div.math, .cell_output, tr { break-inside: avoid; }
div.highlight pre { break-inside: avoid; }
pre { white-space: pre-wrap !important; overflow-wrap: anywhere; overflow: visible !important; }
div.math mjx-container { overflow: visible !important; background: none !important; }
img { max-width: 100% !important; height: auto !important; }
.rkm-explorer .rkm-view { overflow: visible !important; background: none !important; }
/* collapsed blocks print open (BOOK_JS opens them): a hidden code cell without its
   "Show code cell source" bar, a dropdown with its title but no chevron */
details.hide > summary, .sd-summary-state-marker, .sd-summary-up, .sd-summary-down
  { display: none !important; }
details > summary { list-style: none; }
details > summary::-webkit-details-marker { display: none; }
.admonition.toggle-hidden .admonition-title ~ * { visibility: visible !important;
  height: auto !important; margin: revert !important; padding: revert !important; }
/* the theme's print style hides the first h1 of each parent (it prints the page's title in a
   header of its own, hidden above): here the headings are the book's, its bookmarks too */
.bd-main .bd-content .bd-article h1:first-of-type { display: block !important; }
/* the front matter and the part pages */
.rkm-title-page { height: 230mm; display: flex; flex-direction: column; justify-content: center;
  text-align: center; break-after: page; }
.rkm-title-page .rkm-title { font-size: 34pt; font-weight: 700; line-height: 1.2; }
.rkm-title-page .rkm-subtitle { font-size: 20pt; margin-top: 0.6em; }
.rkm-title-page .rkm-author { font-size: 15pt; margin-top: 3em; }
.rkm-title-page .rkm-date { font-size: 12pt; margin-top: 0.8em; color: #555; }
.rkm-contents { break-after: page; }
.rkm-contents h1 { margin-bottom: 0.8em; }
.rkm-contents .rkm-toc-part { font-weight: 700; margin-top: 0.9em; break-after: avoid; }
.rkm-contents a.rkm-toc-entry, .rkm-figures a.rkm-toc-entry { display: flex; align-items: baseline; color: inherit !important;
  text-decoration: none !important; margin: 0.15em 0; break-inside: avoid; }
.rkm-contents a.rkm-toc-entry.rkm-toc-chapter { padding-left: 1.2em; }
.rkm-contents a.rkm-toc-entry.rkm-toc-section { padding-left: 3em; font-size: 0.92em; }
.rkm-contents .rkm-toc-dots, .rkm-figures .rkm-toc-dots { flex: 1; border-bottom: 1px dotted #888; margin: 0 0.4em;
  transform: translateY(-0.3em); }
.rkm-contents .rkm-toc-page, .rkm-figures .rkm-toc-page { width: 3em; text-align: right; font-variant-numeric: tabular-nums; }
.rkm-figures { break-before: page; break-after: page; }
.rkm-figures a.rkm-toc-entry { font-size: 0.9em; }
/* no break-after: the chapter that follows breaks before itself (a second break, after the
   empty marker span between them, left a blank page) */
section.rkm-part { break-before: page; height: 180mm; display: flex;
  flex-direction: column; justify-content: center; text-align: center; }
section.rkm-part h1 { font-size: 28pt; }
.rkm-marked { position: relative; }
.rkm-pagemark { position: absolute; left: 0; top: 0; font-size: 4px; line-height: 1;
  color: #fff; white-space: nowrap; }
"""

#: Makes the single page a book: front matter, part pages, collapsed blocks open. The argument:
#: {title, subtitle, author, date, parts: [{caption, first}]} (the first document of each part).
#: Every entry of the contents gets a page marker (a text "RKMPAGE0001" that takes no room);
#: returns the number of entries.
BOOK_JS = r"""(book) => {
  const article = document.querySelector('article.bd-article') || document.querySelector('main');
  const el = (tag, cls, text) => { const e = document.createElement(tag);
    if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; };
  // 1. open every collapsed block
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
  // 2. part pages, before the first document of each part
  for (const part of book.parts) {
    const span = document.getElementById('document-' + part.first);
    if (!span) continue;
    const section = el('section', 'rkm-part');
    section.id = 'rkm-part-' + part.first.replace(/[^a-z0-9]+/gi, '-');
    section.appendChild(el('h1', '', part.caption));
    span.parentNode.insertBefore(section, span);
  }
  // 3. the contents: the preface (the root document has no marker span), parts, chapters and
  //    their sections; then the figures
  const entries = [];
  const headingText = h => { const c = h.cloneNode(true);
    c.querySelectorAll('.headerlink, .rkm-pagemark').forEach(x => x.remove());
    return c.textContent.replace(/\s+/g, ' ').trim(); };
  const first = article.querySelector('section');
  if (first && first.querySelector('h1')) entries.push({kind: 'chapter', target: first.querySelector('h1')});
  for (const node of article.querySelectorAll('section.rkm-part, span[id^="document-"]')) {
    if (node.matches('section.rkm-part')) { entries.push({kind: 'part', target: node.querySelector('h1')}); continue; }
    if (node.id === 'document-genindex') continue;
    const section = node.nextElementSibling;
    const heading = section && section.querySelector('h1, h2, h3, h4');
    if (!heading) continue;
    // a chapter, with its sections; a document under a chapter (an API page) as a section
    // (the single page nests every document in the root document's section: not a chapter)
    const parent = node.parentElement.closest('section');
    const nested = parent !== null && parent !== first;
    entries.push({kind: nested ? 'section' : 'chapter', target: heading});
    if (!nested)
      for (const sub of section.querySelectorAll(':scope > section > h3, :scope > section > h2'))
        if (sub !== heading) entries.push({kind: 'section', target: sub});
  }
  const figures = Array.from(article.querySelectorAll('figure figcaption'))
    .filter(c => c.querySelector('.caption-number'))
    .map(c => ({kind: 'figure', target: c}));
  const all = entries.concat(figures);
  all.forEach((entry, i) => {
    entry.mark = 'RKMPAGE' + String(i).padStart(4, '0');
    if (!entry.target.id) entry.target.id = 'rkm-toc-' + i;
    entry.text = entry.kind === 'figure'
      ? entry.target.textContent.replace(/\s+/g, ' ').trim().slice(0, 110)
      : headingText(entry.target);
    entry.target.classList.add('rkm-marked');
    entry.target.appendChild(el('span', 'rkm-pagemark', entry.mark));
  });
  const list = (nav, items) => {
    for (const entry of items) {
      if (entry.kind === 'part') {
        const a = el('a', 'rkm-toc-entry rkm-toc-part');
        a.href = '#' + entry.target.id;
        a.appendChild(el('span', 'rkm-toc-title', entry.text));
        a.appendChild(el('span', 'rkm-toc-dots'));
        a.appendChild(el('span', 'rkm-toc-page', '000'));
        a.lastChild.dataset.mark = entry.mark;
        nav.appendChild(a); continue;
      }
      const a = el('a', 'rkm-toc-entry rkm-toc-' + entry.kind);
      a.href = '#' + entry.target.id;
      a.appendChild(el('span', 'rkm-toc-title', entry.text.length > 100 ? entry.text.slice(0, 100) + '…' : entry.text));
      a.appendChild(el('span', 'rkm-toc-dots'));
      const page = el('span', 'rkm-toc-page', '000');
      page.dataset.mark = entry.mark;
      a.appendChild(page);
      nav.appendChild(a);
    }
  };
  const contents = el('nav', 'rkm-contents');
  contents.id = 'rkm-contents';
  contents.appendChild(el('h1', '', 'Contents'));
  list(contents, entries);
  const figureList = el('nav', 'rkm-figures');
  figureList.id = 'rkm-figures';
  figureList.appendChild(el('h1', '', 'List of figures'));
  list(figureList, figures);
  // 4. the title page
  const title = el('section', 'rkm-title-page');
  title.id = 'rkm-title-page';
  title.appendChild(el('div', 'rkm-title', book.title));
  if (book.subtitle) title.appendChild(el('div', 'rkm-subtitle', book.subtitle));
  title.appendChild(el('div', 'rkm-author', book.author));
  title.appendChild(el('div', 'rkm-date', book.date));
  article.insertBefore(figureList, article.firstChild);
  article.insertBefore(contents, figureList);
  article.insertBefore(title, contents);
  return all.length;
}"""

#: The second print: page numbers ({marker: page}) into the contents, the markers removed.
NUMBER_JS = r"""(pages) => {
  document.querySelectorAll('.rkm-toc-page').forEach(span => {
    span.textContent = String(pages[span.dataset.mark] || '');
  });
  document.querySelectorAll('.rkm-pagemark').forEach(mark => { mark.textContent = ''; });
  return Object.keys(pages).length;
}"""

#: The page is ready: MathJax has typeset every math element, every explorer shows a frame.
READY_JS = r"""() => {
  if (window.MathJax && !(window.MathJax.startup && window.MathJax.startup.promise)) return false;
  const math = Array.from(document.querySelectorAll('span.math, div.math'));
  if (math.some(el => !el.querySelector('mjx-container'))) return false;
  const explorers = Array.from(document.querySelectorAll('.rkm-explorer'));
  const expected = document.querySelectorAll(
    'script[type="application/vnd.jupyter.widget-view+json"]').length;
  if (explorers.length < Math.min(expected, 1)) return false;
  if (explorers.some(root => !Array.from(root.querySelectorAll('img.rkm-frame')).some(
        img => img.offsetParent !== null && img.complete && img.naturalWidth > 0))) return false;
  return Array.from(document.images).every(img => img.complete);
}"""


PDF_OPTIONS = dict(
    format="A4", print_background=True, outline=True, tagged=True, scale=0.8,
    margin={"top": "16mm", "bottom": "18mm", "left": "15mm", "right": "15mm"},
    display_header_footer=True, header_template="<div></div>",
    footer_template='<div style="font-size: 8px; width: 100%; text-align: center;">'
                    '<span class="pageNumber"></span> / <span class="totalPages"></span></div>')


def book_metadata() -> dict:
    """The title page and the parts: ``_config.yml`` (title, author, copyright) and ``_toc.yml``."""
    import yaml

    config = yaml.safe_load((REPO_ROOT / "_config.yml").read_text(encoding="utf-8"))
    toc = yaml.safe_load((REPO_ROOT / "_toc.yml").read_text(encoding="utf-8"))
    title, _, subtitle = config["title"].partition(": ")
    parts = [{"caption": part["caption"], "first": part["chapters"][0]["file"]}
             for part in toc.get("parts", []) if part.get("chapters")]
    return {"title": title, "subtitle": subtitle, "author": config.get("author", ""),
            "date": str(config.get("copyright", "")), "parts": parts}


def marker_pages(pdf: Path) -> dict[str, int] | None:
    """{marker: page number} of the markers BOOK_JS put in the first print (None: no pdftotext)."""
    if shutil.which("pdftotext") is None:
        return None
    text = subprocess.run(["pdftotext", str(pdf), "-"], check=True, capture_output=True,
                          text=True).stdout
    pages = {}
    for number, page in enumerate(text.split("\f"), 1):
        for mark in re.findall(r"RKMPAGE\d{4}", page):
            pages.setdefault(mark, number)
    return pages


def chromium() -> str | None:
    """The Chromium binary: ``RKM_CHROMIUM``, else ``chromium`` or ``chromium-browser`` on PATH."""
    return os.environ.get("RKM_CHROMIUM") or shutil.which("chromium") \
        or shutil.which("chromium-browser")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def single_page(html_dir: Path) -> str:
    """The single page of a ``singlehtml`` build, copied to the build's root; its name there.

    Jupyter Book's root document is ``book/preface``, so Sphinx writes the single page to
    ``book/preface.html`` (``index.html`` redirects to it) but with links relative to the
    build's root (``_static/...``, ``_images/...``): a copy at the root loads them all.
    """
    index = html_dir / "index.html"
    if not index.is_file():
        raise FileNotFoundError(f"{index} does not exist")
    text = index.read_text(encoding="utf-8")
    redirect = re.search(r'http-equiv="Refresh" content="0; url=([^"]+)"', text)
    if redirect:
        text = (html_dir / redirect.group(1)).read_text(encoding="utf-8")
    (html_dir / PAGE).write_text(text, encoding="utf-8")
    return PAGE


async def _print(html_dir: Path, page_name: str, out: Path, binary: str) -> list[str]:
    from playwright.async_api import async_playwright

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(html_dir)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}/"
    problems: list[str] = []
    try:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=binary, headless=True, args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"])
            context = await browser.new_context(viewport={"width": 1000, "height": 1400})

            async def route(route_, request):
                if urlsplit(request.url).netloc == urlsplit(base).netloc:
                    await route_.continue_()
                else:
                    problems.append(f"request to another host aborted: {request.url}")
                    await route_.abort()

            await context.route("**/*", route)
            page = await context.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            # The theme's own scroll observer (sphinx-book-theme.js) looks for the header of a
            # multi-page site and throws on the single page when it scrolls: not the book's
            # content. Any other error fails the PDF.
            page.on("pageerror", lambda error: None if "sphinx-book-theme.js" in (error.stack or "")
                    else problems.append(f"page error: {error}"))
            await page.goto(base + page_name, wait_until="load")
            await page.wait_for_function(READY_JS, polling=500)
            await page.evaluate("() => window.MathJax && window.MathJax.startup ? "
                                "window.MathJax.startup.promise.then(() => true) : true")
            await page.evaluate("() => document.fonts.ready.then(() => true)")
            await page.add_style_tag(content=PRINT_CSS)
            await page.emulate_media(media="print")
            marks = await page.evaluate(BOOK_JS, book_metadata())
            await page.wait_for_function(  # what the opened blocks show
                "() => Array.from(document.images).every(img => img.complete)", polling=500)
            out.parent.mkdir(parents=True, exist_ok=True)
            first = out.with_name(out.stem + ".pass1.pdf")
            await page.pdf(path=str(first), **PDF_OPTIONS)
            pages = marker_pages(first)
            first.unlink()
            if pages is None:
                problems.append("pdftotext (poppler-utils) is not installed: the contents would "
                                "have no page numbers; apt-get install -y poppler-utils")
            elif len(pages) != marks:
                problems.append(f"{marks - len(pages)} of {marks} entries of the contents were "
                                "not found in the first print")
            await page.evaluate(NUMBER_JS, pages or {})
            await page.pdf(path=str(out), **PDF_OPTIONS)
            await browser.close()
    finally:
        server.shutdown()
        server.server_close()
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--html", type=Path, default=REPO_ROOT / "_build" / "singlehtml")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "_build" / "pdf" / "rkmlearn-book.pdf")
    args = parser.parse_args(argv)
    try:
        page = single_page(args.html)
    except FileNotFoundError as error:
        print(f"print_pdf: {error}; build it with `jupyter-book build . --builder singlehtml` "
              "(`make pdf` does).", file=sys.stderr)
        return 2
    binary = chromium()
    if binary is None:
        print("print_pdf: no chromium found; install it (apt-get install -y chromium) or set "
              "RKM_CHROMIUM to a Chromium binary.", file=sys.stderr)
        return 2
    problems = asyncio.run(_print(args.html, page, args.out, binary))
    if problems:
        print("print_pdf: the page did not load cleanly:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 1
    print(f"print_pdf: wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
