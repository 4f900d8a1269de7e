"""The built HTML book works offline: it loads nothing from the network, and its widgets and
math are served from the book itself.

Runs on ``_build/html`` as ``make book`` left it (``make test`` builds the book first) and is
skipped when there is no build. Plain hyperlinks in the text (``<a href="https://...">``, e.g.
DOIs in the bibliography) are allowed: following one is the reader's choice, loading a page
never does it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

bs4 = pytest.importorskip("bs4")

REPO_ROOT = Path(__file__).resolve().parents[1]
HTML = REPO_ROOT / "_build" / "html"

if not (HTML / "index.html").exists():
    pytest.skip(
        "the book is not built (_build/html/index.html is absent): run `make book` first",
        allow_module_level=True,
    )

import nbformat  # noqa: E402  (only needed when there is a build)

sys.path.insert(0, str(REPO_ROOT / "book" / "_ext"))
import rkm_panels  # noqa: E402
import yaml  # noqa: E402

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
#: CSS px of an explorer's column on a 390 px phone (the browser test's narrow viewport)
PHONE_COLUMN = 342
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
VENDOR = HTML / "_static" / "vendor"

PAGES = sorted(p for p in HTML.rglob("*.html") if "_static" not in p.relative_to(HTML).parts)
PAGE_IDS = [str(p.relative_to(HTML)) for p in PAGES]

# Attributes through which a page *loads* something (as opposed to <a href>, which links).
LOADING_ATTRIBUTES = {
    "script": ("src",),
    "link": ("href",),
    "img": ("src", "srcset"),
    "iframe": ("src",),
    "frame": ("src",),
    "source": ("src", "srcset"),
    "video": ("src", "poster"),
    "audio": ("src",),
    "track": ("src",),
    "embed": ("src",),
    "object": ("data",),
    "input": ("src",),
}
REMOTE = re.compile(r"^\s*(?:https?:)?//", re.IGNORECASE)
CSS_REMOTE = re.compile(r"""(?:url\(\s*['"]?|@import\s+['"])\s*(?:https?:)?//""", re.IGNORECASE)
URL_IN_SCRIPT = re.compile(r"https?://[^\s\"'`)]+")


def soup(page: Path):
    return bs4.BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")


def local_file(page: Path, reference: str) -> Path:
    """The file a relative URL in ``page`` points to (query and fragment dropped)."""
    path = urlsplit(reference).path
    return (page.parent / path).resolve()


def script_sources(document) -> list[str]:
    return [tag["src"] for tag in document.find_all("script", src=True)]


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_page_loads_nothing_remote(page):
    document = soup(page)
    remote = []
    for tag_name, attributes in LOADING_ATTRIBUTES.items():
        for tag in document.find_all(tag_name):
            for attribute in attributes:
                value = tag.get(attribute)
                if value and REMOTE.match(value):
                    remote.append(f"<{tag_name} {attribute}={value!r}>")
    for tag in document.find_all(style=True):
        if CSS_REMOTE.search(tag["style"]):
            remote.append(f"style attribute {tag['style']!r}")
    for tag in document.find_all("style"):
        if CSS_REMOTE.search(tag.get_text()):
            remote.append("remote url() or @import in a <style> block")
    for tag in document.find_all("script", src=False):
        if tag.get("type") in (WIDGET_STATE, WIDGET_VIEW):
            continue  # data, not code
        remote.extend(f"inline script uses {url!r}" for url in URL_IN_SCRIPT.findall(tag.get_text()))
    assert not remote, f"{page.relative_to(HTML)} reaches the network: {remote}"


def test_stylesheets_load_nothing_remote():
    offenders = [
        str(css.relative_to(HTML))
        for css in HTML.rglob("*.css")
        if CSS_REMOTE.search(css.read_text(encoding="utf-8", errors="replace"))
    ]
    assert not offenders, f"stylesheets that load remote fonts or styles: {offenders}"


def test_every_local_script_and_stylesheet_exists():
    missing = set()
    for page in PAGES:
        document = soup(page)
        references = script_sources(document) + [
            tag["href"] for tag in document.find_all("link", href=True)
            if {"stylesheet", "preload"}.intersection(tag.get("rel", []))
        ]
        for reference in references:
            if not REMOTE.match(reference) and not local_file(page, reference).exists():
                missing.add(f"{page.relative_to(HTML)}: {reference}")
    assert not missing, f"pages load files that are not in the build: {sorted(missing)}"


# --------------------------------------------------------------------------------------------
# Widgets
# --------------------------------------------------------------------------------------------


def toc_notebooks() -> list[Path]:
    spec = yaml.safe_load((REPO_ROOT / "_toc.yml").read_text(encoding="utf-8"))
    entries: list[str] = []

    def walk(node):
        if isinstance(node, dict):
            entries.extend(node[k] for k in ("root", "file") if isinstance(node.get(k), str))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(spec)
    paths = [REPO_ROOT / (e if e.endswith(".ipynb") else e + ".ipynb") for e in entries]
    return [p for p in paths if p.exists()]


def notebook_state(path: Path) -> dict:
    nb = nbformat.read(path, as_version=4)
    return nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})


WIDGET_NOTEBOOKS = [p for p in toc_notebooks() if notebook_state(p)]


def test_some_chapter_has_widgets():
    assert WIDGET_NOTEBOOKS, (
        "no notebook in _toc.yml stores widget state; Chapter 1 is expected to have widgets "
        "(run `make notebooks`)"
    )


def page_of(notebook: Path) -> Path:
    return HTML / notebook.relative_to(REPO_ROOT).with_suffix(".html")


@pytest.mark.parametrize(
    "notebook", WIDGET_NOTEBOOKS, ids=[str(p.relative_to(REPO_ROOT)) for p in WIDGET_NOTEBOOKS]
)
def test_widget_page_embeds_state_and_loads_local_widget_manager(notebook):
    page = page_of(notebook)
    assert page.exists(), f"{page} was not built"
    document = soup(page)

    states = document.find_all("script", type=WIDGET_STATE)
    assert len(states) == 1, f"expected one widget-state script in {page.name}, got {len(states)}"
    embedded = json.loads(states[0].get_text())["state"]
    assert embedded, "the embedded widget state is empty"
    assert set(embedded) == set(notebook_state(notebook)), (
        f"{page.name} embeds widget state from another execution of {notebook.name}: "
        "rebuild the book (`make book`)"
    )
    views = [json.loads(tag.get_text())["model_id"] for tag in document.find_all("script", type=WIDGET_VIEW)]
    assert views and set(views) <= set(embedded), "widget views without embedded state"

    sources = script_sources(document)
    order = []
    for suffix in ("requirejs/require.js", "widgets_require_config.js", "html-manager/embed-amd.js"):
        matches = [i for i, src in enumerate(sources) if urlsplit(src).path.endswith(suffix)]
        assert matches, f"{page.name} does not load {suffix}"
        file = local_file(page, sources[matches[0]])
        assert file.is_file(), f"{sources[matches[0]]} is loaded by {page.name} but absent"
        folder = VENDOR if suffix.endswith(("require.js", "embed-amd.js")) else HTML / "_static"
        assert folder.resolve() in file.parents, f"{file} is not under {folder}"
        order.append(matches[0])
    assert order == sorted(order), "require.js, its config and embed-amd.js load out of order"
    assert not any("data-jupyter-widgets-cdn" in tag.attrs for tag in document.find_all("script")), (
        "a widget script names a CDN for missing widget modules"
    )


@pytest.mark.parametrize(
    "notebook", WIDGET_NOTEBOOKS, ids=[str(p.relative_to(REPO_ROOT)) for p in WIDGET_NOTEBOOKS]
)
def test_explorer_frames_are_files_fetched_on_demand(notebook):
    """Issue 30: no frame is base64 in the page; each image widget names a file of the site whose
    bytes are the notebook's stored frame (book/_ext/rkm_frames.py)."""
    page = page_of(notebook)
    embedded = json.loads(soup(page).find("script", type=WIDGET_STATE).get_text())["state"]
    stored = notebook_state(notebook)
    cuts = json.loads(soup(page).find("script", class_="rkm-frame-cuts").get_text())
    images = {key: model for key, model in embedded.items() if model["model_name"] == "ImageModel"}
    assert images, f"{page.name}: no image widget in the embedded state"
    for key, model in images.items():
        assert model["state"]["format"] == "url", f"{page.name}: image {key} is still inline"
        (buffer,) = model["buffers"]
        url = base64.b64decode(buffer["data"]).decode("utf-8")
        file = local_file(page, url)
        assert (HTML / "_static" / "frames").resolve() in file.parents and file.is_file(), \
            f"{page.name}: image {key} points to {url}, not a frame file of the site"
        original = base64.b64decode(stored[key]["buffers"][0]["data"])
        assert file.read_bytes() == original, f"{page.name}: {url} is not the notebook's frame of {key}"
        assert file.stem == hashlib.sha256(original).hexdigest()
        # where a phone cuts it into panels: computed by the build, beside the frame (rkm_panels.py)
        cut = cuts.get(file.name)
        assert cut == rkm_panels.cut_png(original), f"{page.name}: stale cut of {file.name}"
        # ... and usable on a phone: every piece legible in the 342 px column of a 390 px screen
        # (frames are drawn at 1.5 px per CSS px; rkm_book.js shows a piece at >= 72 % of its size)
        widest = PHONE_COLUMN * 1.5 / 0.72
        assert cut is None or all(x1 - x0 <= widest for x0, _, x1, _ in cut["pieces"]), \
            f"{page.name}: {file.name} is cut into pieces too wide for a phone: {cut}"


def test_the_site_carries_only_the_frames_its_pages_show():
    """No stale frame of an earlier build is deployed (rkm_frames drops unused ones after a build)."""
    import rkm_frames

    used = set().union(*(rkm_frames.frames_used(page.read_text(encoding="utf-8")) for page in PAGES))
    stored = {path.name for path in (HTML / "_static" / "frames").iterdir()}
    assert used and stored == used, f"unused: {sorted(stored - used)[:5]}, missing: {sorted(used - stored)[:5]}"


def test_every_widget_module_finds_its_fonts_in_the_vendored_folder():
    """Each AMD module the bundle defines takes its font URLs from its own module URL: a name the
    require config does not map resolves next to the page (404s, a race over which @font-face
    wins). Every defined name must be mapped (book/_static/widgets_require_config.js)."""
    defined = set(re.findall(r'define\("(@jupyter-widgets/[^"]+)"', (VENDOR / "html-manager" / "embed-amd.js")
                             .read_text(encoding="utf-8")))
    config = (HTML / "_static" / "widgets_require_config.js").read_text(encoding="utf-8")
    mapped = {f"@jupyter-widgets/{name}" for name in re.findall(r'"([a-z0-9-]+)"', config.split("forEach")[0])}
    mapped |= set(re.findall(r'"(@jupyter-widgets/[^"]+)"', config))
    unmapped = {name for name in defined if not any(name == m or name.startswith(m + "/") for m in mapped)}
    assert defined and not unmapped, f"widget modules without a path in the require config: {sorted(unmapped)}"


def test_widget_bundle_fonts_are_vendored():
    # Browsers take the first format they support from each @font-face list, and every browser
    # the book supports reads WOFF2: only those files are served (the browser test checks that no
    # page requests a missing file).
    bundle = VENDOR / "html-manager" / "embed-amd.js"
    assert bundle.is_file(), "run `make vendor` (book/_tools/vendor_js.py)"
    fonts = set(re.findall(r"[0-9a-f]{20}\.woff2", bundle.read_text(errors="replace")))
    assert fonts, "embed-amd.js references no WOFF2 font files: has the bundle changed?"
    missing = sorted(f for f in fonts if not (bundle.parent / f).is_file())
    assert not missing, f"fonts referenced by embed-amd.js but not vendored: {missing}"


#: a run of base64 (inline figures, explorer frames in the widget state)
_BASE64 = re.compile(r"[A-Za-z0-9+/=]{200,}")


def test_no_page_loads_thebe():
    # base64 data may spell "thebe" by chance (ch01's explorer frames did): only the rest counts
    offenders = [str(p.relative_to(HTML)) for p in PAGES
                 if "thebe" in _BASE64.sub("", p.read_text(encoding="utf-8")).lower()]
    assert not offenders, f"pages still load thebe (book/_ext/rkm_book.py removes it): {offenders}"


# --------------------------------------------------------------------------------------------
# Exercises: in the book, never with their solutions
# --------------------------------------------------------------------------------------------


#: this many consecutive code lines of a solution that the starter does not have make a leak (the
#: library code a chapter shows may share a line or two with a solution, written the same way)
RUN = 6


def _telling(line: str) -> bool:
    return len(line) >= 12 and not line.startswith(("#", '"""', "from ", "import "))


def _leaks(folder: Path, text: str) -> list[str]:
    solution = (folder / "solution.py").read_text(encoding="utf-8")
    starter = {line.strip() for line in (folder / "starter.py").read_text(encoding="utf-8").splitlines()}
    found = []
    title = solution.lstrip('"\' \n').splitlines()[0].strip()
    if title and title in text:
        found.append(f"its docstring: {title!r}")
    lines = [line.strip() for line in solution.splitlines() if line.strip()]
    page = {line.strip() for line in text.splitlines()}
    run = []
    for line in lines + [""]:
        if line and line in page and line not in starter:
            run.append(line)
            continue
        if sum(map(_telling, run)) >= RUN:
            found.append(f"{len(run)} consecutive lines from {run[0]!r}")
        run = []
    return found


def test_no_page_shows_a_solution():
    folders = [p for p in sorted((REPO_ROOT / "exercises").glob("*/")) if (p / "solution.py").is_file()]
    assert folders, "no exercise folders with a solution.py"
    leaks = [f"{page.relative_to(HTML)}: {folder.name}/solution.py: {leak}"
             for page in PAGES for text in [soup(page).get_text("\n")]
             for folder in folders for leak in _leaks(folder, text)]
    assert not leaks, "the book shows lines of exercise solutions:\n" + "\n".join(leaks[:20])


# --------------------------------------------------------------------------------------------
# Math
# --------------------------------------------------------------------------------------------


def test_mathjax_is_local_on_every_page_with_math():
    pages_with_math = [p for p in PAGES if soup(p).find(class_="math")]
    assert pages_with_math, "no page contains math"
    for page in pages_with_math:
        mathjax = [s for s in script_sources(soup(page)) if "mathjax" in s.lower()]
        assert len(mathjax) == 1, f"{page.name} loads MathJax {len(mathjax)} times: {mathjax}"
        file = local_file(page, mathjax[0])
        assert file.is_file() and VENDOR.resolve() in file.parents, (
            f"{page.name} loads MathJax from {mathjax[0]!r}, not from _static/vendor/"
        )
    fonts = VENDOR / "mathjax" / "es5" / "output" / "chtml" / "fonts" / "woff-v2"
    assert any(fonts.glob("*.woff")), f"MathJax fonts missing in {fonts}"


# ---------------------------------------------------------------------------------------------
# No build leftovers (issue 30): role text, stray index paragraphs, numbered docstrings
# ---------------------------------------------------------------------------------------------
ROLE_TEXT = re.compile(r"(?::(?:[a-z]+:)?(?:eq|class|func|meth|mod|attr|data|obj|ref|doc|numref|"
                       r"term|exc):`|\{(?:index|eq|ref|doc|numref|cite:p|cite:t)\}`)")


def _visible_text(page: Path, separator: str = " ") -> str:
    tree = soup(page)
    for tag in tree.select("script, style, .rkm-manifest"):
        tag.decompose()
    main = tree.find("main") or tree
    return main.get_text(separator)


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_no_raw_role_text(page):
    leftovers = [m.group(0) for m in ROLE_TEXT.finditer(_visible_text(page))]
    assert not leftovers, f"{page.name}: raw role text on the page: {leftovers[:5]}"


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_no_stray_index_paragraph(page):
    """A paragraph that is only an index role's title (a line under a heading)."""
    stray = [p.get_text(" ", strip=True) for p in soup(page).select("main p")
             if p.select_one("span.target[id^=index-]")
             and all(getattr(c, "name", None) == "span" and "target" in c.get("class", [])
                     or (getattr(c, "name", None) is None and len(str(c).split()) <= 4)
                     for c in p.children)
             and len(p.get_text(" ", strip=True).split()) <= 4]
    assert not stray, f"{page.name}: stray index paragraphs: {stray}"


@pytest.mark.parametrize("page", [p for p in PAGES if "/api/" not in p.as_posix()],
                         ids=[i for i in PAGE_IDS if "/api/" not in i])
def test_no_documented_object_takes_a_section_number(page):
    numbered = [a.get_text(" ", strip=True) for a in soup(page).select("nav a.nav-link")
                if a.find("code") and re.match(r"^\d+(\.\d+)+\.", a.get_text(strip=True))]
    assert not numbered, f"{page.name}: docstrings numbered as sections: {numbered}"


# ---------------------------------------------------------------------------------------------
# Run it from the page (issue 30): downloads, "Running the book", no repository commands
# ---------------------------------------------------------------------------------------------
DOWNLOADS = HTML / "downloads"
EXERCISES = sorted(p.name for p in (REPO_ROOT / "exercises").glob("ch[0-9][0-9]_*")
                   if (p / "pytest.ini").is_file())


def test_the_site_carries_the_wheel_and_every_handout():
    import rkmlearn
    import zipfile

    wheel = DOWNLOADS / f"rkmlearn-{rkmlearn.__version__}-py3-none-any.whl"
    assert wheel.is_file(), f"{wheel} is not in the built site"
    assert any(n.startswith("rkmlearn/") for n in zipfile.ZipFile(wheel).namelist())
    for folder in EXERCISES:
        handout = DOWNLOADS / f"handout-{folder}.zip"
        assert handout.is_file(), f"no hand-out {handout.name} in the built site"
        names = zipfile.ZipFile(handout).namelist()
        leaked = [n for n in names if re.search(r"(^|/)solution|/hidden/", n)]
        assert not leaked, f"{handout.name} gives away {leaked}"
        for needed in (f"{folder}/starter.py", f"{folder}/pytest.ini", f"{folder}/README.md"):
            assert needed in names, f"{handout.name} has no {needed}"
        assert any(n.startswith(f"{folder}/tests/public/") for n in names), handout.name


def test_each_chapter_links_its_handout_and_running_the_book():
    for folder in EXERCISES:
        (page,) = [p for p in PAGES if p.name.startswith(folder[:5])]
        links = [a.get("href", "") for a in soup(page).select("main a")]
        assert any(h.endswith(f"downloads/handout-{folder}.zip") for h in links), page.name
        assert any("running.html" in h for h in links), page.name
        for href in links:
            if "downloads/" in href:
                assert (page.parent / href).resolve().is_file(), f"{page.name}: broken {href}"
    preface = soup(HTML / "book" / "preface.html")
    assert any("running.html" in a.get("href", "") for a in preface.select("main a"))


def test_running_the_book_gives_the_install_lines():
    import rkmlearn

    text = _visible_text(HTML / "book" / "running.html", "")
    wheel = f"rkmlearn-{rkmlearn.__version__}-py3-none-any.whl"
    assert f'pip install "{wheel}[book,grading,lab]"' in text
    assert "jupyter lab" in text and 'check("' in text


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_no_page_tells_a_reader_to_work_in_the_repository(page):
    text = " ".join(_visible_text(page).split())
    found = re.findall(r".{0,40}(?:repository root|from the repository|"
                       r"rkmlearn\.grading (?:release |local |batch )?exercises/).{0,40}", text)
    assert not found, f"{page.name}: {found[:3]}"
