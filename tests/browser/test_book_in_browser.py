"""The built book in a real browser: every page loads cleanly, typesets, fits, and its explorers work.

Runs after ``make book`` (``make test`` builds first) on ``_build/html``, served on 127.0.0.1, in
Debian's Chromium driven by Playwright (its own browser download needs the network, so the
system binary is used; set ``RKM_CHROMIUM`` to use another). Every request to another host is
aborted and recorded. Each page is opened at 1400 px and at 390 px, a phone (one browser, several pages
at a time), and these checks are made (``CHECKS``):

``loads-cleanly``
    no page error, no console error, no failed request, no HTTP error, nothing fetched from
    another host (both widths).
``math-typeset``
    MathJax typeset every ``.math`` element without a TeX error, and no raw TeX (``\\(``,
    ``$$``, ``\\frac`` ...) nor leaked equation-label text (``(eq-``) is left in the page's text
    outside code.
``equations-fit-1400``
    at 1400 px no display equation is wider than its container.
``equations-reachable-390``
    at 390 px no display equation is cut off: one wider than its box must scroll within it, and
    show it (a scroll bar, or the book's scroll shadows where bars are hidden, as on phones).
``explorers``
    for every explorer (``.rkm-explorer``), the state its controls show is the manifest's initial
    state and the frame shown is that state's (SHA-256 of the image bytes against the manifest);
    then every control is moved through its whole ladder (slider: arrow keys; buttons: clicks),
    and after each move the frame changed and is the manifest's frame of the new state. At 390 px,
    every explorer whose frame the build cut into legible panels (book/_ext/rkm_panels.py) shows
    them one under the other.
``page-fits-390``
    at 390 px the page is no wider than the viewport: nothing outside a scrolling box (a code
    block, an equation) sticks out at the right and makes the whole page scroll sideways (a long
    dotted name or file path without a break opportunity did, in a caption or in the text).
``toggles-390`` / ``toggles-1400``
    the visible sidebar toggle opens the chapter list (390 px: the navigation dialog; 1400 px: it
    hides and shows the sidebar), and the contents toggle, where the page has one, opens the
    page's contents (390 px).

The checks of the book as a textbook (issue 18; ``book/README.md`` says how to meet them):

``code-fits-1400``
    at 1400 px no code or output block (``pre``) is cut: one whose text is wider than its box
    (``scrollWidth > clientWidth``) must scroll inside it, visibly (a scroll bar, or the book's
    scroll shadows).
``no-plumbing``
    no visible line of a notebook cell (input or output, outside a collapsed toggle) contains
    ``assert``, ``NBVAL_IGNORE_OUTPUT``, ``portable_figures()`` or ``process_time``: checks run,
    out of sight (cell tags ``remove-cell``, ``remove-input``, ``hide-input``).
``figures-captioned``
    every output figure (an image in a cell's output, or an explorer) is inside a numbered figure
    (``figcaption`` with a figure number) with a caption, and every output image has alt text
    (not its file name): myst-nb's cell metadata ``mystnb: {figure: {caption, name}, image:
    {alt}}``.
``figures-sharp``
    every raster image shown (output figures, explorer frames) has at least 1.5 times as many
    pixels across as it is displayed wide (``naturalWidth >= 1.5 clientWidth``), at 1400 and
    400 px; at 400 px an explorer frame is shown at least 0.72 of its design width (9 pt text at
    9 px or more; the rest scrolls).
``no-label-text``
    the text ``(eq-`` (a raw equation label) appears nowhere in the page, code and collapsed
    listings included.

The checks of the book as a finished product (issue 30):

``no-leftovers``
    no raw role text (``:eq:`...```, ``{index}`...```, ``:class:`...``` ...) anywhere in the
    page's text, code and collapsed blocks included, and no paragraph that is only an index
    role's title.
``tables-styled``
    every table is ruled or striped, and every numeric column is right-aligned.
``code-no-sideways-1400``
    at 1400 px no code or output block is wider than its box (nothing scrolls sideways).
``figure-text-390``
    at 390 px the smallest text of every output figure is at least ``FIGURE_TEXT_MIN`` CSS px
    (its point size at the PNG's dpi, scaled as shown).
``page-weight``
    a fresh load of the page at 1400 px transfers at most ``PAGE_WEIGHT_LIMIT`` bytes (until
    MathJax, the explorers' first frames and every image have loaded; the frames fetched when
    the ``explorers`` check moves the controls are reported apart, ``on_demand_mb``).

After the run a table gives, per page, the counts of what these checks measure (``python -m
pytest tests/browser -s`` prints it; it is also written to ``_build/browser-report.json``), so
a change can be given as before/after numbers per chapter.

Known failures (chapters not yet fixed) are listed in ONE place, ``known_failures.py``, as
strict xfails: they run, their messages give the counts, and fixing one without removing it
from the list fails the suite.
"""
from __future__ import annotations

import asyncio
import functools
import gzip
import http.server
import io
import json
import os
import re
import shutil
import threading
import urllib.parse
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from .known_failures import KNOWN_FAILURES

REPO_ROOT = Path(__file__).resolve().parents[2]
HTML = REPO_ROOT / "_build" / "html"
HOW_TO_ENABLE = (
    "install Chromium (Debian/Ubuntu: `apt-get install -y chromium`; `.ci/run` does this) or set "
    "RKM_CHROMIUM to a Chromium/Chrome binary, then run `make test` again"
)


def _chromium() -> str | None:
    return os.environ.get("RKM_CHROMIUM") or shutil.which("chromium") \
        or shutil.which("chromium-browser")


if not (HTML / "index.html").exists():
    pytest.skip("browser checks SKIPPED: the book is not built (run `make book`)",
                allow_module_level=True)
playwright_api = pytest.importorskip(
    "playwright.async_api", reason="browser checks SKIPPED: playwright is not installed "
    "(it is in requirements.txt: run `make install`)")
if _chromium() is None:
    pytest.skip(f"browser checks SKIPPED: no chromium found; {HOW_TO_ENABLE}",
                allow_module_level=True)

# One pass over the whole site happens in the first test's setup: allow it more than the suite's
# per-test limit (about 2 minutes on 2 cores; a loaded machine takes several times longer).
pytestmark = pytest.mark.timeout(1800)

LAUNCH_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
WIDE, NARROW = 1400, 390
#: pages open at the same time (one browser; each page is a tab)
CONCURRENT_PAGES = 3
TIMEOUT_MS = 180_000

#: RKM_BROWSER_PAGES="book/foundations/*" checks only the pages matching that pattern (authoring)
PAGES = sorted(p.relative_to(HTML).as_posix() for p in HTML.rglob("*.html")
               if "_static" not in p.relative_to(HTML).parts
               and Path(p.relative_to(HTML)).match(os.environ.get("RKM_BROWSER_PAGES", "*")))
REDIRECTS = [p for p in PAGES if 'http-equiv="Refresh"' in (HTML / p).read_text(errors="replace")]
EXPLORER_PAGES = [p for p in PAGES if "rkm-manifest" in (HTML / p).read_text(errors="replace")]
CHECKS = ("loads-cleanly", "math-typeset", "equations-fit-1400", "equations-reachable-390",
          "page-fits-390", "explorers", "toggles-390", "toggles-1400", "code-fits-1400", "no-plumbing",
          "figures-captioned", "figures-sharp", "no-label-text", "no-leftovers", "tables-styled",
          "code-no-sideways-1400", "figure-text-390", "page-weight")
#: issue 30: the most a page may transfer (HTML, scripts, styles, images, explorer frames)
PAGE_WEIGHT_LIMIT = 3_000_000
#: issue 30: the smallest text a figure may show, in CSS px
FIGURE_TEXT_MIN = 9.0
#: explorer frames at 400 px: shown at least this fraction of their design width (FRAME_RC's
#: smallest text, 9 pt = 12.5 px at the design width, stays at 9 px or more)
LEGIBLE_FRACTION = 0.72
#: raster images: pixels across per displayed pixel
SHARPNESS = 1.5


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site as a static host does (GitHub Pages, Netlify, nginx with gzip on): text
    (HTML, scripts, styles, JSON, SVG) gzip-compressed to a browser that accepts it, so that
    ``page-weight`` measures what a reader's browser transfers."""

    COMPRESSED = (".html", ".js", ".css", ".json", ".svg", ".txt", ".map")

    def log_message(self, *args):
        pass

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if not (path.is_file() and path.suffix in self.COMPRESSED
                and "gzip" in self.headers.get("Accept-Encoding", "")):
            return super().send_head()
        body = _gzipped(path)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)


@functools.lru_cache(maxsize=None)
def _gzipped(path: Path) -> bytes:
    return gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)


# ---------------------------------------------------------------------------------------------
# JavaScript run in the pages
# ---------------------------------------------------------------------------------------------
MATH_JS = r"""() => {
  const math = Array.from(document.querySelectorAll('span.math, div.math'));
  const untypeset = math.filter(el => !el.querySelector('mjx-container'))
                        .map(el => el.textContent.trim().slice(0, 80));
  const errors = Array.from(document.querySelectorAll('mjx-merror'))
                      .map(el => (el.getAttribute('data-mjx-error') || el.textContent).slice(0, 80));
  const root = document.querySelector('main') || document.body;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {acceptNode(node) {
    const parent = node.parentElement;
    if (!parent || parent.closest('pre, code, mjx-container, script, style, textarea, .rkm-manifest'))
      return NodeFilter.FILTER_REJECT;
    return NodeFilter.FILTER_ACCEPT;
  }});
  const tex = /\\\(|\\\)|\\\[|\\\]|\$\$|\\(frac|sum|mathrm|mathbb|begin|end|left|right|lambda|sigma|top|operatorname)(?![a-zA-Z])/;
  const raw = [], leaked = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent;
    if (tex.test(text)) raw.push(text.trim().slice(0, 100));
    if (text.includes('(eq-')) leaked.push(text.trim().slice(0, 100));
  }
  return {count: math.length, untypeset, errors, raw, leaked};
}"""

EQUATIONS_JS = r"""() => Array.from(document.querySelectorAll('div.math')).map((div, i) => {
  // The typeset equation (mjx-math) lives in a scroll box (mjx-container) inside the display
  // block (div.math), which clips what leaves it. Visible: the part of the scroll box inside the
  // block and the viewport.
  const box = div.querySelector('mjx-container');
  if (!box) return null;
  const math = box.querySelector('mjx-math');
  const content = math ? math.getBoundingClientRect().width : box.scrollWidth;
  const b = box.getBoundingClientRect(), d = div.getBoundingClientRect();
  const viewport = document.documentElement.clientWidth;
  const visible = Math.min(b.right, d.right, viewport) - Math.max(b.left, d.left, 0);
  const number = div.querySelector('.eqno');
  return {
    label: number ? number.textContent.replace(/[^0-9.()]/g, '') : `#${i + 1}`,
    content: content, box: Math.min(box.clientWidth, visible),
    fits: content <= Math.min(box.clientWidth, visible) + 1,
    // scrollable, inside the block, and visibly so: a scroll bar that takes room in the box, or
    // the book's scroll shadows (headless browsers and phones hide scroll bars)
    scrollable: ['auto', 'scroll'].includes(getComputedStyle(box).overflowX)
                && box.scrollWidth > box.clientWidth + 1 && b.right <= Math.min(d.right, viewport) + 1
                && (box.offsetHeight - box.clientHeight >= 3
                    || (getComputedStyle(box).backgroundImage.match(/radial-gradient/g) || []).length >= 2),
  };
}).filter(Boolean)"""

#: A box visibly scrolls its overflow: overflow-x auto/scroll and a scroll bar that takes room, or
#: the book's scroll shadows (two radial gradients; headless browsers and phones hide scroll bars).
VISIBLE_SCROLL_JS = r"""(box) => {
  const style = getComputedStyle(box);
  const bar = box.offsetHeight - box.clientHeight - parseFloat(style.borderTopWidth)
              - parseFloat(style.borderBottomWidth);
  return ['auto', 'scroll'].includes(style.overflowX)
         && (bar >= 3 || (style.backgroundImage.match(/radial-gradient/g) || []).length >= 2);
}"""

CODE_JS = r"""() => {
  const visibleScroll = %s;
  const root = document.querySelector('main') || document.body;
  return Array.from(root.querySelectorAll('pre')).filter(pre => pre.offsetParent !== null)
    .map(pre => {
      const kind = pre.closest('.cell_input') ? 'input' : pre.closest('.cell_output') ? 'output' : 'listing';
      const overflow = pre.scrollWidth > pre.clientWidth + 1;
      const line = pre.textContent.split('\n').reduce((a, b) => (b.length > a.length ? b : a), '');
      return {kind, overflow, cut: overflow && !visibleScroll(pre), width: pre.scrollWidth,
              box: pre.clientWidth, line: line.trim().slice(0, 90)};
    }).filter(b => b.overflow);
}""" % VISIBLE_SCROLL_JS

PLUMBING_JS = r"""() => {
  const root = document.querySelector('main') || document.body;
  const plumbing = /\bassert\b|NBVAL_IGNORE_OUTPUT|portable_figures\(\)|process_time/;
  const lines = [];
  for (const pre of root.querySelectorAll('div.cell pre')) {
    if (pre.offsetParent === null) continue;  // removed, or in a collapsed toggle
    for (const line of pre.innerText.split('\n'))
      if (plumbing.test(line)) lines.push(line.trim().slice(0, 100));
  }
  return lines;
}"""

FIGURES_JS = r"""() => {
  const root = document.querySelector('main') || document.body;
  const numbered = el => {
    const figure = el.closest('figure');
    const caption = figure && figure.querySelector('figcaption');
    return {numbered: !!(caption && caption.querySelector('.caption-number')),
            caption: caption ? (caption.querySelector('.caption-text') || caption).textContent.trim() : ''};
  };
  const outputs = Array.from(root.querySelectorAll('div.cell_output img'))
    .filter(img => !img.closest('.rkm-explorer'))
    .map(img => {
      const file = (img.getAttribute('src') || '').split('/').pop();
      const alt = (img.getAttribute('alt') || '').trim();
      return {kind: 'image', name: file.slice(0, 16), ...numbered(img),
              alt: alt.length > 0 && alt !== file && !/\.(png|jpe?g|gif|svg)$/i.test(alt)};
    });
  const explorers = Array.from(root.querySelectorAll('.rkm-explorer')).map((root_, i) => {
    const manifest = root_.querySelector('.rkm-manifest');
    let name = `explorer ${i + 1}`;
    try { name = JSON.parse(manifest.textContent).explorer; } catch (e) {}
    return {kind: 'explorer', name, ...numbered(root_), alt: true};
  });
  return outputs.concat(explorers);
}"""

RASTER_JS = r"""() => {
  const visibleScroll = %s;
  const root = document.querySelector('main') || document.body;
  return Array.from(root.querySelectorAll('img')).filter(img => img.offsetParent !== null
      && img.naturalWidth > 0 && !/\.svg(\?|$)|^data:image\/svg/i.test(img.currentSrc || img.src))
    .map(img => {
      // an explorer frame, or one of its panels on a phone (rkm_book.js cuts a frame into
      // panels below 700 px: each shows the frame's picture, cropped, data-design its width)
      const frame = img.classList.contains('rkm-frame') || !!img.closest('.rkm-panel');
      const design = frame ? parseFloat(img.dataset.design || img.style.width) || null : null;
      const shown = img.getBoundingClientRect().width;
      // a frame wider than its explorer is reachable if the box that scrolls it (the innermost
      // scrolling ancestor) shows that it scrolls
      let reachable = true;
      const root = img.closest('.rkm-explorer');
      if (frame && root && !img.closest('.rkm-panel') && shown > root.clientWidth + 1) {
        reachable = false;
        for (let el = img.parentElement; el && el !== root.parentElement; el = el.parentElement) {
          if (el.scrollWidth > el.clientWidth + 1 && ['auto', 'scroll'].includes(getComputedStyle(el).overflowX)) {
            reachable = visibleScroll(el);
            break;
          }
        }
      }
      return {name: frame ? 'explorer frame' : (img.getAttribute('src') || '').split('/').pop().slice(0, 16),
              natural: img.naturalWidth, shown, frame, design, reachable};
    });
}""" % VISIBLE_SCROLL_JS

PAGE_WIDTH_JS = r"""() => {
  // the page's width, and the first elements that stick out at the right outside any box that
  // scrolls or clips them (fixed elements, e.g. the header, do not widen the page)
  const culprits = [];
  for (const e of document.querySelectorAll('body *')) {
    const b = e.getBoundingClientRect();
    if (b.width === 0 || b.right <= innerWidth + 1 || getComputedStyle(e).position === 'fixed') continue;
    let clipped = false;
    for (let a = e.parentElement; a && !clipped; a = a.parentElement)
      clipped = ['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(a).overflowX);
    if (!clipped)
      culprits.push(`${e.tagName.toLowerCase()} ${(e.textContent || '').trim().slice(0, 60)}`);
  }
  return {width: document.documentElement.scrollWidth, culprits: culprits.slice(0, 3)};
}"""

LABEL_TEXT_JS = r"""() => {
  const root = document.querySelector('main') || document.body;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {acceptNode(node) {
    const parent = node.parentElement;
    return parent && parent.closest('script, style, .rkm-manifest') ? NodeFilter.FILTER_REJECT
                                                                    : NodeFilter.FILTER_ACCEPT;
  }});
  const found = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent;
    for (let i = text.indexOf('(eq-'); i >= 0; i = text.indexOf('(eq-', i + 1))
      found.push(text.slice(Math.max(0, i - 40), i + 40).replace(/\s+/g, ' ').trim());
  }
  return found;
}"""

#: Raw role text (":eq:`", "{index}`" ...) anywhere in the page's text, code included, and
#: paragraphs that are only an index role's title (a stray line under a heading).
LEFTOVERS_JS = r"""() => {
  const root = document.querySelector('main') || document.body;
  const role = /(?::(?:[a-z]+:)?(?:eq|class|func|meth|mod|attr|data|obj|ref|doc|numref|term|exc):`|\{(?:index|eq|ref|doc|numref|cite:p|cite:t)\}`)/g;
  const found = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {acceptNode(node) {
    const parent = node.parentElement;
    return parent && parent.closest('script, style, .rkm-manifest') ? NodeFilter.FILTER_REJECT
                                                                    : NodeFilter.FILTER_ACCEPT;
  }});
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent;
    for (const m of text.matchAll(role))
      found.push('role text: ' + text.slice(Math.max(0, m.index - 30), m.index + 40).replace(/\s+/g, ' '));
  }
  for (const p of root.querySelectorAll('p')) {
    if (p.querySelector('span.target[id^="index-"]')
        && Array.from(p.children).every(c => c.matches('span.target'))
        && p.textContent.trim().split(/\s+/).length <= 4)
      found.push('stray index paragraph: ' + p.textContent.trim());
  }
  return found;
}"""

#: Every table is ruled or striped, and its numeric columns are right-aligned.
TABLES_JS = r"""() => {
  const NUMBER = /^[-+\u2212]?[$]?(\d[\d,\u2009 ]*(\.\d*)?|\.\d+)(e[-+\u2212]?\d+)?\s*(%|x|\u00d7)?(\s*\u00b1\s*[\d.]+)?$/i;
  return Array.from(document.querySelectorAll('main table')).map((table, i) => {
    const cells = Array.from(table.querySelectorAll('td, th'));
    const ruled = cells.length > 0 && cells.every(c => parseFloat(getComputedStyle(c).borderBottomWidth) > 0);
    const rows = Array.from(table.querySelectorAll('tbody tr'));
    const zebra = rows.length > 1 && getComputedStyle(rows[0]).backgroundColor !== getComputedStyle(rows[1]).backgroundColor;
    const columns = {};
    for (const row of rows) Array.from(row.children).forEach((cell, k) => {
      const text = cell.textContent.trim();
      if (cell.tagName === 'TH' || !text) return;
      (columns[k] = columns[k] || []).push(cell);
    });
    const misaligned = [];
    for (const [k, column] of Object.entries(columns)) {
      if (!column.every(c => NUMBER.test(c.textContent.trim()))) continue;
      const bad = column.filter(c => !['right', 'end'].includes(getComputedStyle(c).textAlign));
      if (bad.length) misaligned.push(`column ${+k + 1} (${bad[0].textContent.trim()})`);
    }
    const caption = (table.querySelector('caption') || {}).textContent || table.id || `table ${i + 1}`;
    return {name: caption.trim().slice(0, 40), styled: ruled || zebra, misaligned};
  });
}"""

#: The smallest text of each output figure as shown, in CSS px: figures are drawn with their
#: smallest text at FIGURE_FONT_PT points at the figure's dpi (the PNG's pHYs, read by the test,
#: over FIGURE_SCALE), and shown at (displayed width / nominal width) of that.
FIGURE_SIZES_JS = r"""() => Array.from((document.querySelector('main') || document.body)
    .querySelectorAll('div.cell_output img, figure img'))
  .filter(img => img.offsetParent !== null && !img.closest('.rkm-explorer') && img.naturalWidth > 0)
  .map(img => ({src: new URL(img.currentSrc || img.src).pathname, shown: img.getBoundingClientRect().width,
                nominal: parseFloat(img.getAttribute('width')) || img.naturalWidth / 2}))"""

#: explorers at 390 px whose shown frame the book cuts into panels (a cut written by the build,
#: legible at the column's width: window.rkmPanelsOf) but which show no panels
UNSTACKED_JS = r"""() => Array.from(document.querySelectorAll('.rkm-explorer')).filter(root => {
  const frame = Array.from(root.querySelectorAll('img.rkm-frame')).find(
    img => img.complete && img.naturalWidth > 0 && getComputedStyle(img.parentElement).display !== 'none');
  return frame && window.rkmPanelsOf && window.rkmPanelsOf(frame, root.clientWidth)
         && !root.querySelector('.rkm-panels');
}).map(root => { try { return JSON.parse(root.querySelector('.rkm-manifest').textContent).explorer; }
                 catch (e) { return 'an explorer'; } })"""

EXPLORER_STATE_JS = r"""async (root) => {
  const controls = Array.from(root.querySelectorAll('.rkm-control')).map(control => {
    const handle = control.querySelector('.noUi-handle');
    if (handle) return {kind: 'slider', index: Math.round(parseFloat(handle.getAttribute('aria-valuenow')))};
    const buttons = Array.from(control.querySelectorAll('button'));
    return {kind: 'buttons', index: buttons.findIndex(b => b.classList.contains('mod-active')),
            count: buttons.length};
  });
  const frames = Array.from(root.querySelectorAll('img.rkm-frame')).filter(img => img.offsetParent !== null);
  let sha256 = null, width = 0;
  if (frames.length === 1 && frames[0].complete && frames[0].naturalWidth > 0) {
    const bytes = await (await fetch(frames[0].src)).arrayBuffer();
    const digest = await crypto.subtle.digest('SHA-256', bytes);
    sha256 = Array.from(new Uint8Array(digest)).map(b => b.toString(16).padStart(2, '0')).join('');
    width = frames[0].naturalWidth;
  }
  return {controls, sha256, visibleFrames: frames.length, width, src: frames.length ? frames[0].src : null};
}"""


# ---------------------------------------------------------------------------------------------
# Collecting the reports: one pass over the site, shared by all tests
# ---------------------------------------------------------------------------------------------
#: the smallest font of an output figure, in points (matplotlib's default font.size; the
#: chapters' figures set no smaller text)
FIGURE_FONT_PT = 10.0
#: output figures are drawn at this multiple of their dpi (rkmlearn.widgets.plotting.FIGURE_SCALE)
FIGURE_SCALE = 2


def _png_dpi(path: Path) -> float | None:
    """The dpi a PNG was saved at (its pHYs chunk), or None."""
    import struct

    data = path.read_bytes()[:4096]
    at = data.find(b"pHYs")
    if at < 0:
        return None
    x, _, unit = struct.unpack(">IIB", data[at + 4:at + 13])
    return x * 0.0254 if unit == 1 else None


def _figure_text_px(figure: dict) -> float | None:
    """The smallest text of a shown output figure, in CSS px."""
    path = HTML / urllib.parse.unquote(figure["src"]).lstrip("/")
    dpi = _png_dpi(path) if path.is_file() and path.suffix == ".png" else None
    if dpi is None or not figure["nominal"]:
        return None
    return FIGURE_FONT_PT * (dpi / FIGURE_SCALE) / 72 * figure["shown"] / figure["nominal"]


class PageVisit:
    """Problems seen while one page was open."""

    def __init__(self):
        self.problems: list[str] = []
        self.bytes = 0  # downloaded (a fresh browser context: nothing cached)
        self.loaded: int | None = None  # downloaded when the page had loaded, before any control moved


async def _open(context, url: str, visit: PageVisit):
    page = await context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.on("pageerror", lambda error: visit.problems.append(f"page error: {error}"))
    page.on("console", lambda message: visit.problems.append(
        f"console error: {message.text}") if message.type == "error" else None)
    page.on("requestfailed", lambda request: visit.problems.append(
        f"failed request: {request.url} ({request.failure})")
        if not request.url.startswith(("blob:", "data:")) else None)
    def response(response_):
        if response_.status >= 400:
            visit.problems.append(f"HTTP {response_.status}: {response_.url}")
        visit.bytes += int(response_.headers.get("content-length", 0) or 0)

    page.on("response", response)
    await page.goto(url, wait_until="load")
    # A redirect page (index.html: <meta http-equiv="Refresh" content="0; url=...">) navigates
    # again right after its load event: wait for the target's load, or the checks below race
    # the navigation (a MathJax config object whose startup promise does not exist yet).
    served = HTML / urlsplit(url).path.lstrip("/")
    refresh = re.search(r'http-equiv="Refresh" content="0; url=([^"]+)"',
                        served.read_text(errors="replace")) if served.is_file() else None
    if refresh:
        target = urllib.parse.urljoin(url, refresh.group(1))
        await page.wait_for_url(target, wait_until="load")
    # MathJax (where the page loads it) and the widget manager render after the load event.
    await page.wait_for_function(
        "() => !window.MathJax || (window.MathJax.startup && window.MathJax.startup.promise)")
    await page.evaluate("() => window.MathJax && window.MathJax.startup ? "
                        "window.MathJax.startup.promise.then(() => true) : true")
    return page


async def _wait_for_explorers(page, expected: int):
    await page.wait_for_function(
        """(n) => { const roots = document.querySelectorAll('.rkm-explorer');
                    return roots.length === n && Array.from(roots).every(r =>
                      Array.from(r.querySelectorAll('img.rkm-frame, .rkm-panel img')).some(
                        i => i.offsetParent !== null && i.complete && i.naturalWidth > 0)); }""",
        arg=expected)


async def _equations(page):
    return await page.evaluate(EQUATIONS_JS)


async def _explorer_report(page) -> list[str]:
    """Walk every control of every explorer; return the problems found."""
    problems = []
    roots = await page.query_selector_all(".rkm-explorer")
    for number, root in enumerate(roots, 1):
        manifest = json.loads(await root.eval_on_selector(".rkm-manifest", "e => e.textContent"))
        name = f"explorer {number} ({manifest['explorer']})"
        frames = {tuple(f["index"]): f["sha256"] for f in manifest["frames"]}
        ladders = [len(c["values"]) for c in manifest["controls"]]
        state = await root.evaluate(EXPLORER_STATE_JS)
        shown = tuple(c["index"] for c in state["controls"])
        if len(shown) != len(ladders):
            problems.append(f"{name}: {len(shown)} controls on the page, manifest has {len(ladders)}")
            continue
        if list(shown) != manifest["initial"]:
            problems.append(f"{name}: controls show {shown}, the initial state is {manifest['initial']}")
        if state["sha256"] != frames.get(shown):
            problems.append(f"{name}: initial frame is not the manifest's frame of {shown}")
        controls = await root.query_selector_all(".rkm-control")
        for k, (control, size) in enumerate(zip(controls, ladders)):
            current = list(shown)
            start = current[k]
            if state["controls"][k]["kind"] == "slider":
                handle = await control.query_selector(".noUi-handle")
                await handle.focus()
                walk = [("ArrowRight", i) for i in range(start + 1, size)] \
                    + [("ArrowLeft", i) for i in range(size - 2, -1, -1)] \
                    + [("ArrowRight", i) for i in range(1, start + 1)]
            else:
                buttons = await control.query_selector_all("button")
                # every other button, then back to the initial one
                order = [i for i in range(size) if i != start] + ([start] if size > 1 else [])
                walk = [(buttons[i], i) for i in order]
            previous = state
            for action, target in walk:
                if isinstance(action, str):
                    await handle.press(action)
                else:
                    await action.click()
                current[k] = target
                try:
                    await page.wait_for_function(
                        """([root, src]) => { const f = Array.from(root.querySelectorAll('img.rkm-frame'))
                             .filter(i => i.offsetParent !== null);
                           return f.length === 1 && f[0].src !== src && f[0].complete && f[0].naturalWidth > 0; }""",
                        arg=[root, previous["src"]], timeout=10_000)
                except playwright_api.TimeoutError:
                    problems.append(f"{name}: moving control {k} to position {target} did not change the frame")
                    previous = await root.evaluate(EXPLORER_STATE_JS)
                    continue
                now = await root.evaluate(EXPLORER_STATE_JS)
                seen = tuple(c["index"] for c in now["controls"])
                if seen != tuple(current):
                    problems.append(f"{name}: after moving control {k} to {target} the controls show {seen}")
                elif now["sha256"] != frames.get(seen):
                    problems.append(f"{name}: the frame shown for {seen} is not the manifest's")
                elif now["sha256"] == previous["sha256"]:
                    problems.append(f"{name}: moving control {k} to {target} left the same frame")
                previous = now
    return problems


async def _toggles(page, width: int) -> list[str]:
    problems = []
    toggles = [t for t in await page.query_selector_all(".primary-toggle") if await t.is_visible()]
    if not toggles:
        return ["no visible sidebar toggle"]
    if width == NARROW:
        await toggles[0].click()
        try:
            await page.wait_for_selector("#pst-primary-sidebar-modal[open]", timeout=5_000)
            links = await page.query_selector_all("#pst-primary-sidebar-modal a.reference.internal")
            visible = [a for a in links if await a.is_visible()]
            if len(visible) < 2:
                problems.append(f"the sidebar toggle opened a chapter list with {len(visible)} visible links")
        except playwright_api.TimeoutError:
            problems.append("the sidebar toggle did not open the chapter list")
        await page.keyboard.press("Escape")
        secondary = [t for t in await page.query_selector_all(".secondary-toggle") if await t.is_visible()]
        has_contents = await page.query_selector("#pst-secondary-sidebar .toc-entry, #pst-secondary-sidebar nav a")
        if secondary and has_contents:
            await secondary[0].click()
            try:
                await page.wait_for_selector("#pst-secondary-sidebar-modal[open]", timeout=5_000)
            except playwright_api.TimeoutError:
                problems.append("the contents toggle did not open the page's contents")
            await page.keyboard.press("Escape")
    else:
        sidebar = await page.query_selector("#pst-primary-sidebar")
        before = await sidebar.is_visible()
        await toggles[0].click()
        await page.wait_for_timeout(300)
        after = await sidebar.is_visible()
        await toggles[0].click()
        await page.wait_for_timeout(300)
        back = await sidebar.is_visible()
        if not (before and not after and back):
            problems.append(f"the sidebar toggle does not hide and show the chapter list "
                            f"(visible before/after/again: {before}/{after}/{back})")
    return problems


async def _visit(browser, base: str, page_name: str, blocked: list, semaphore) -> dict:
    report = {check: [] for check in CHECKS}
    report["metrics"] = {}
    async with semaphore:
        for width in (WIDE, NARROW):
            context = await browser.new_context(viewport={"width": width, "height": 900})

            async def route(route_, request):
                host = urlsplit(request.url).netloc
                if host == urlsplit(base).netloc:
                    await route_.continue_()
                else:
                    blocked.append(f"{page_name}: {request.url}")
                    report["loads-cleanly"].append(f"request to another host: {request.url}")
                    await route_.abort()

            await context.route("**/*", route)
            visit = PageVisit()
            try:
                page = await _open(context, base + page_name, visit)
                if page_name in REDIRECTS:
                    await page.wait_for_url(re.compile(r".*/book/.*\.html"))
                else:
                    if page_name in EXPLORER_PAGES:
                        expected = (HTML / page_name).read_text(errors="replace").count("rkm-manifest")
                        await _wait_for_explorers(page, expected)
                    equations = await _equations(page)
                    await page.wait_for_function(
                        "() => Array.from(document.images).every(i => i.complete)")
                    # the page as opened; frames a reader asks for later are counted apart
                    visit.loaded = visit.bytes
                    rasters = await page.evaluate(RASTER_JS)
                    report["figures-sharp"] += [
                        f"{width} px: {r['name']} has {r['natural']} px across, shown {r['shown']:.0f} px wide"
                        for r in rasters if r["shown"] > 0 and r["natural"] < SHARPNESS * r["shown"] - 0.5]
                    if width == WIDE:
                        report["metrics"]["rasters"] = len(rasters)
                        report["metrics"]["soft"] = sum(
                            1 for r in rasters if r["shown"] > 0 and r["natural"] < SHARPNESS * r["shown"] - 0.5)
                        blocks = await page.evaluate(CODE_JS)
                        report["code-fits-1400"] += [
                            f"{b['kind']} block is {b['width']} px wide in a {b['box']} px box, cut: {b['line']!r}"
                            for b in blocks if b["cut"]]
                        report["metrics"]["overflowing"] = len(blocks)
                        report["metrics"]["cut"] = sum(1 for b in blocks if b["cut"])
                        plumbing = await page.evaluate(PLUMBING_JS)
                        report["no-plumbing"] += [f"visible line: {line!r}" for line in plumbing]
                        report["metrics"]["plumbing"] = len(plumbing)
                        figures = await page.evaluate(FIGURES_JS)
                        report["figures-captioned"] += [
                            f"{f['kind']} {f['name']}: " + ", ".join(
                                [w for w, bad in (("no numbered figure", not f["numbered"]),
                                                  ("no caption", not f["caption"]),
                                                  ("no alt text", not f["alt"])) if bad])
                            for f in figures if not (f["numbered"] and f["caption"] and f["alt"])]
                        report["metrics"]["figures"] = len(figures)
                        report["metrics"]["uncaptioned"] = sum(
                            1 for f in figures if not (f["numbered"] and f["caption"] and f["alt"]))
                        report["code-no-sideways-1400"] += [
                            f"{b['kind']} block scrolls sideways ({b['width']} px in {b['box']} px): {b['line']!r}"
                            for b in blocks]
                        leftovers = await page.evaluate(LEFTOVERS_JS)
                        report["no-leftovers"] += leftovers
                        report["metrics"]["leftovers"] = len(leftovers)
                        tables = await page.evaluate(TABLES_JS)
                        report["tables-styled"] += [
                            f"{t['name']}: " + ("not ruled or striped; " if not t["styled"] else "")
                            + ("numeric columns not right-aligned: " + ", ".join(t["misaligned"])
                               if t["misaligned"] else "")
                            for t in tables if not t["styled"] or t["misaligned"]]
                        report["metrics"]["tables"] = len(tables)
                        leaked = await page.evaluate(LABEL_TEXT_JS)
                        report["no-label-text"] += [f"label text: {t!r}" for t in leaked]
                        report["metrics"]["label_text"] = len(leaked)
                    else:
                        texts = [(f["src"], _figure_text_px(f)) for f in await page.evaluate(FIGURE_SIZES_JS)]
                        texts = [(src, px) for src, px in texts if px is not None]
                        report["figure-text-390"] += [
                            f"{src.rsplit('/', 1)[-1][:16]}: smallest text {px:.1f} px"
                            for src, px in texts if px < FIGURE_TEXT_MIN - 0.05]
                        report["metrics"]["figure_text_390"] = round(min((px for _, px in texts), default=0), 1)
                        try:  # the book's script stacks a frame 50 ms after it shows (debounced)
                            await page.wait_for_function(f"() => ({UNSTACKED_JS})().length === 0",
                                                         timeout=5_000)
                        except playwright_api.TimeoutError:
                            pass
                        report["metrics"]["explorers_stacked_390"] = await page.evaluate(
                            "() => document.querySelectorAll('.rkm-explorer .rkm-panels').length")
                        report["explorers"] += [f"390 px: {name}: its frame has a cut into panels, "
                                                "but the panels are not shown" for name in
                                                await page.evaluate(UNSTACKED_JS)]
                        report["figures-sharp"] += [
                            f"390 px: explorer frame shown {r['shown']:.0f} px wide, below "
                            f"{LEGIBLE_FRACTION} of its {r['design']:.0f} px"
                            + ("" if r["reachable"] else ", and its box does not scroll visibly")
                            for r in rasters if r["frame"] and r["design"]
                            and (r["shown"] < LEGIBLE_FRACTION * r["design"] - 0.5 or not r["reachable"])]
                    if width == WIDE:
                        math = await page.evaluate(MATH_JS)
                        report["math-typeset"] += (
                            [f"not typeset: {t!r}" for t in math["untypeset"]]
                            + [f"TeX error: {t!r}" for t in math["errors"]]
                            + [f"raw TeX in the text: {t!r}" for t in math["raw"]]
                            + [f"leaked label text: {t!r}" for t in math["leaked"]])
                        report["equations-fit-1400"] += [
                            f"equation {e['label']} is {e['content']:.0f} px wide in a {e['box']:.0f} px box"
                            for e in equations if not e["fits"]]
                        if page_name in EXPLORER_PAGES:
                            report["explorers"] += await _explorer_report(page)
                    else:
                        page_width = await page.evaluate(PAGE_WIDTH_JS)
                        if page_width["width"] > NARROW + 1:
                            report["page-fits-390"].append(
                                f"the page is {page_width['width']} px wide: " + "; ".join(page_width["culprits"]))
                        report["equations-reachable-390"] += [
                            f"equation {e['label']} ({e['content']:.0f} px in a {e['box']:.0f} px box) is cut off"
                            for e in equations if not e["fits"] and not e["scrollable"]]
                        report["scrolling-400"] = [e["label"] for e in equations
                                                   if not e["fits"] and e["scrollable"]]
                        report["metrics"]["equations"] = len(equations)
                        report["metrics"]["eq_cut_400"] = sum(
                            1 for e in equations if not e["fits"] and not e["scrollable"])
                        report["metrics"]["eq_scroll_400"] = len(report["scrolling-400"])
                    key = "toggles-1400" if width == WIDE else "toggles-390"
                    report[key] += await _toggles(page, width)
                await page.wait_for_load_state("networkidle")
                await page.close()
            except playwright_api.Error as error:
                visit.problems.append(f"{type(error).__name__}: {str(error).splitlines()[0]}")
            report["loads-cleanly"] += [f"{width} px: {p}" for p in visit.problems]
            if width == WIDE:
                loaded = visit.bytes if visit.loaded is None else visit.loaded
                report["bytes"] = loaded
                report["metrics"]["transfer_mb"] = round(loaded / 1e6, 2)
                report["metrics"]["on_demand_mb"] = round((visit.bytes - loaded) / 1e6, 2)
                if loaded > PAGE_WEIGHT_LIMIT:
                    report["page-weight"].append(
                        f"the page transfers {loaded / 1e6:.2f} MB (limit {PAGE_WEIGHT_LIMIT / 1e6:.0f} MB)")
            await context.close()
    return report


async def _collect(base: str) -> tuple[dict, list]:
    blocked: list = []
    async with playwright_api.async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=_chromium(), args=LAUNCH_ARGS,
                                           headless=True)
        semaphore = asyncio.Semaphore(CONCURRENT_PAGES)
        reports = await asyncio.gather(
            *(_visit(browser, base, name, blocked, semaphore) for name in PAGES))
        await browser.close()
    return dict(zip(PAGES, reports)), blocked


@pytest.fixture(scope="module")
def site():
    """Serve ``_build/html`` on 127.0.0.1 and visit every page; the reports, per page."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(HTML)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    start = time.perf_counter()
    try:
        reports, blocked = asyncio.run(_collect(f"http://127.0.0.1:{server.server_port}/"))
    finally:
        server.shutdown()
        server.server_close()
    elapsed = time.perf_counter() - start
    print(f"\nbrowser test: {len(PAGES)} pages at {WIDE} and {NARROW} px in {elapsed:.1f} s")
    for page, report in reports.items():
        counts = {check: len(report[check]) for check in CHECKS if report[check]}
        scrolling = report.get("scrolling-400", [])
        extra = f"; scroll at 400 px: {len(scrolling)}" if scrolling else ""
        print(f"  {page}: downloads {report.get('bytes', 0) / 1e6:.1f} MB; "
              f"failing {counts or 'none'}{extra}")
        if counts:
            for check in counts:
                for problem in report[check][:5]:
                    print(f"      {check}: {problem[:160]}")
    _print_table(reports)
    return {"reports": reports, "blocked": blocked}


#: the per-page table: (metric, what it counts)
TABLE = (
    ("overflowing", "code/output blocks wider than their box at 1400 px"),
    ("cut", "... of them cut (no visible scroll)"),
    ("plumbing", "visible plumbing lines (assert, NBVAL_IGNORE_OUTPUT, portable_figures(), process_time)"),
    ("figures", "output figures (images in outputs, explorers)"),
    ("uncaptioned", "... without a numbered caption or alt text"),
    ("rasters", "raster images shown at 1400 px"),
    ("soft", "... drawn below 1.5x their displayed width"),
    ("label_text", "leaked label text '(eq-'"),
    ("equations", "display equations"),
    ("eq_cut_400", "... cut off at 390 px (no visible scroll)"),
    ("eq_scroll_400", "... scrolling at 390 px"),
    ("transfer_mb", "MB transferred at 1400 px (fresh cache), page loaded"),
    ("on_demand_mb", "MB of explorer frames fetched as every control was walked"),
    ("figure_text_390", "smallest figure text at 390 px (CSS px)"),
    ("leftovers", "raw role text and stray index paragraphs"),
    ("explorers_stacked_390", "explorers shown panel under panel at 390 px"),
    ("tables", "tables (all ruled/striped, numbers right-aligned: tables-styled)"),
)


def _print_table(reports: dict) -> None:
    """Print the per-page counts (issue 18's table, per page) and write them as JSON."""
    rows = {page: report.get("metrics", {}) for page, report in reports.items()
            if page not in REDIRECTS}
    keys = [key for key, _ in TABLE]
    print("\nper page (columns: " + "; ".join(f"{k} = {title}" for k, title in TABLE) + ")")
    width = max((len(page) for page in rows), default=4)
    print(f"  {'page':<{width}} " + " ".join(f"{k[:11]:>11}" for k in keys))
    totals = {k: 0 for k in keys}
    for page, metrics in rows.items():
        print(f"  {page:<{width}} " + " ".join(f"{metrics.get(k, 0):>11}" for k in keys))
        for k in keys:
            totals[k] += metrics.get(k, 0)
    print(f"  {'total':<{width}} " + " ".join(f"{totals[k]:>11}" for k in keys))
    (HTML.parent / "browser-report.json").write_text(json.dumps(
        {"columns": dict(TABLE), "pages": rows, "total": totals}, indent=1, sort_keys=True))


def _cases():
    for page in PAGES:
        checks = ("loads-cleanly",) if page in REDIRECTS else CHECKS
        for check in checks:
            if check == "explorers" and page not in EXPLORER_PAGES:
                continue
            marks = []
            if (page, check) in KNOWN_FAILURES:
                marks.append(pytest.mark.xfail(strict=True, reason="listed in tests/browser/known_failures.py"))
            yield pytest.param(page, check, marks=marks, id=f"{page}::{check}")


@pytest.mark.parametrize("page, check", list(_cases()))
def test_page(site, page, check):
    problems = site["reports"][page][check]
    assert not problems, f"{page}: {check}: {len(problems)} problem(s):\n" + "\n".join(problems)


def test_nothing_was_fetched_from_another_host(site):
    assert not site["blocked"], f"requests to other hosts (aborted): {site['blocked']}"


def test_the_book_has_explorers():
    assert EXPLORER_PAGES, "no page embeds an explorer (rkm-manifest): run `make notebooks`"


def test_known_failures_name_real_pages_and_checks():
    every_page = {p.relative_to(HTML).as_posix() for p in HTML.rglob("*.html")}  # unfiltered
    unknown = [(p, c) for p, c in KNOWN_FAILURES if p not in every_page or c not in CHECKS]
    assert not unknown, f"known_failures.py lists pages or checks that do not exist: {unknown}"
