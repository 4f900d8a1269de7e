#!/usr/bin/env python3
"""Print the whole book to one PDF, for printing and offline reading (``make pdf``).

``make pdf`` builds the book with Sphinx's ``singlehtml`` builder (every chapter in one page,
``_build/singlehtml/index.html``) and runs this script, which

1. serves that folder on 127.0.0.1 (every request to another host is aborted: the book is
   offline, as the browser test checks);
2. opens the page in the system Chromium, driven by Playwright as the browser test does
   (``RKM_CHROMIUM`` names another binary);
3. waits until MathJax has typeset every equation, the explorers show their first frames, every
   image has loaded and the fonts are ready;
4. prints it (A4, page numbers in the footer, the headings as PDF bookmarks; without the
   placeholder of the HTML book's general index) with a print style
   that hides the navigation, starts each chapter on a new page and lets code and equations wrap
   or shrink instead of scrolling (a printed page cannot scroll).

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
.header-article-items, .bd-search, .skip-link, .theme-switch-button { display: none !important; }
.bd-main, .bd-content, .bd-article-container, .bd-page-width, .bd-container,
.bd-container__inner { max-width: none !important; width: auto !important; padding: 0 !important;
  margin: 0 !important; }
/* the single page marks where each document (chapter) starts */
span[id^="document-"] + section { break-before: page; }
/* the sidebar's "Index" is a placeholder (genindex.md) that the HTML book replaces by Sphinx's
   generated index; a printed index without page numbers is of no use */
#document-genindex + section { display: none !important; }
h1, h2, h3, h4 { break-after: avoid; }
figure, img, .rkm-explorer, div.math, .cell_output { break-inside: avoid; }
pre { white-space: pre-wrap !important; overflow-wrap: anywhere; overflow: visible !important; }
div.math mjx-container { overflow: visible !important; background: none !important; }
img { max-width: 100% !important; height: auto !important; }
.rkm-explorer .rkm-view { overflow: visible !important; background: none !important; }
"""

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
            out.parent.mkdir(parents=True, exist_ok=True)
            await page.pdf(
                path=str(out), format="A4", print_background=True, outline=True, tagged=True,
                scale=0.8, margin={"top": "16mm", "bottom": "18mm", "left": "15mm", "right": "15mm"},
                display_header_footer=True, header_template="<div></div>",
                footer_template='<div style="font-size: 8px; width: 100%; text-align: center;">'
                                '<span class="pageNumber"></span> / <span class="totalPages"></span></div>')
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
