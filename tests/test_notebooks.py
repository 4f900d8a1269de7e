"""The notebooks of the book are stored executed, clean and reproducible.

``make notebooks`` (``book/_tools/execute_notebooks.py``) executes every notebook of ``_toc.yml``
once; the book renders those stored outputs and nbval re-executes the notebooks to prove them
current. These tests check the stored files themselves (no kernel is started): that each code
cell ran, in order, in one session; that no output is an error, or holds something that differs
from machine to machine or run to run (memory addresses, absolute paths, timings); that no cell
hides its result with a trailing ``;``; and that a notebook using ipywidgets carries the widget
state the static book needs. The second half tests the pipeline's own helpers and sanitizers.
"""

from __future__ import annotations

import configparser
import importlib.util
import re
import sys
from pathlib import Path

import nbformat
import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
TOOLS = REPO_ROOT / "book" / "_tools"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def load_tool(name: str):
    """Import a script from book/_tools (it is not part of the rkmlearn package)."""
    spec = importlib.util.spec_from_file_location(f"_book_tools_{name}", TOOLS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses need the module registered
    spec.loader.exec_module(module)
    return module


execute_notebooks = load_tool("execute_notebooks")
NOTEBOOKS = execute_notebooks.toc_notebooks()
IDS = [str(p.relative_to(REPO_ROOT)) for p in NOTEBOOKS]

# What must never be stored in an output.
MEMORY_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")
ABSOLUTE_PATH = re.compile(
    r"(?<![\w.:/])/(?:home|root|tmp|usr|opt|var|work|Users|private)/[\w.\-]+"
    r"|[A-Za-z]:\\[\w.\-]+\\"
)
TIMING = re.compile(
    r"Wall time:|CPU times:"  # %time, %%time
    r"|\b\d+(?:\.\d+)?\s*(?:ns|µs|us|ms|s) ± "  # %timeit
    r"|\d+(?:\.\d+)?\s*(?:it/s|s/it)\b"  # tqdm rates
    r"|\[\d{2}:\d{2}(?:<|\])"  # tqdm elapsed/remaining
    r"|\b(?:took|elapsed|runtime|in)\s+\d+(?:\.\d+)?\s*(?:ms|s|sec|seconds|minutes)\b",
    re.IGNORECASE,
)
# Literal local paths, whatever their shape (e.g. a checkout under /srv or C:\).
LOCAL_PATHS = tuple({str(REPO_ROOT), str(Path.home()), sys.prefix})


def output_texts(output) -> list[str]:
    """Every text-like payload of one output (stream text, text/*, json reprs, tracebacks)."""
    if output.output_type == "stream":
        return [output.text]
    if output.output_type == "error":
        return [output.ename, output.evalue, *output.traceback]
    texts = []
    for mime, value in output.get("data", {}).items():
        if mime.startswith("image/") and mime != "image/svg+xml":
            continue  # base64 payloads
        if mime == WIDGET_VIEW:
            continue  # random model ids, checked separately
        texts.append(value if isinstance(value, str) else str(value))
    return texts


@pytest.fixture(scope="module", params=NOTEBOOKS, ids=IDS)
def notebook(request):
    return nbformat.read(request.param, as_version=4)


def code_cells(nb):
    return [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]


def test_toc_lists_notebooks():
    assert NOTEBOOKS, "_toc.yml lists no notebook (.ipynb); the book should have chapters"


def test_notebook_is_valid(notebook):
    nbformat.validate(notebook)
    assert notebook.metadata.get("kernelspec", {}).get("name") == "python3", (
        "the kernelspec must be 'python3' (the venv kernel); re-run `make notebooks`"
    )


def test_every_code_cell_was_executed_once_in_order(notebook):
    cells = code_cells(notebook)
    empty = [i for i, c in cells if not c.source.strip()]
    assert not empty, f"empty code cells {empty}: delete them"
    counts = [c.execution_count for _, c in cells]
    assert counts == list(range(1, len(cells) + 1)), (
        f"execution counts {counts} are not 1..{len(cells)}: the stored outputs are not from one "
        "top-to-bottom run. Run `make notebooks` and commit the result."
    )


def test_no_error_outputs(notebook):
    errors = [
        f"cell {i}: {o.ename}: {o.evalue}"
        for i, c in code_cells(notebook)
        for o in c.outputs
        if o.output_type == "error"
    ]
    assert not errors, "error outputs: " + "; ".join(errors)


def test_no_volatile_execution_metadata(notebook):
    stamped = [i for i, c in code_cells(notebook) if "execution" in c.metadata]
    assert not stamped, (
        f"cells {stamped} carry execution timestamps: execute with `make notebooks`, which "
        "strips them"
    )


@pytest.mark.parametrize(
    "what, pattern",
    [("a memory address", MEMORY_ADDRESS), ("an absolute path", ABSOLUTE_PATH), ("a timing", TIMING)],
    ids=["memory-address", "absolute-path", "timing"],
)
def test_outputs_are_machine_and_run_independent(notebook, what, pattern):
    found = []
    for i, cell in code_cells(notebook):
        for output in cell.outputs:
            for text in output_texts(output):
                match = pattern.search(text)
                local = next((p for p in LOCAL_PATHS if p in text), None)
                if match:
                    found.append(f"cell {i}: {match.group(0)!r}")
                elif what == "an absolute path" and local:
                    found.append(f"cell {i}: {local!r}")
    assert not found, (
        f"outputs contain {what}, which differs between machines or runs: {found}. Print a "
        "value instead of an object repr, relative paths instead of absolute ones, and keep "
        "timings to the benchmarks."
    )


def test_no_cell_ends_with_a_semicolon(notebook):
    offenders = []
    for i, cell in code_cells(notebook):
        lines = [line.rstrip() for line in cell.source.splitlines() if line.strip()]
        if lines and lines[-1].endswith(";"):
            offenders.append(i)
    assert not offenders, (
        f"cells {offenders} end with ';' to hide their result: end with the figure/object to "
        "show, or `plt.show()`, or assign the result to `_`."
    )


def test_figures_are_png(notebook):
    svg = [
        i
        for i, c in code_cells(notebook)
        for o in c.outputs
        if "image/svg+xml" in o.get("data", {})
    ]
    assert not svg, f"cells {svg} store SVG figures (compared by nbval, random ids): use PNG"


def uses_widgets(nb) -> bool:
    sources = "\n".join(c.source for _, c in code_cells(nb))
    views = any(WIDGET_VIEW in o.get("data", {}) for _, c in code_cells(nb) for o in c.outputs)
    # an explorer or ipywidgets itself (not rkmlearn.widgets' plain helpers such as portable_figures)
    return views or bool(re.search(r"\bipywidgets\b|\w+Explorer\(", sources))


def test_widget_state_is_stored(notebook):
    if not uses_widgets(notebook):
        pytest.skip("this notebook does not use ipywidgets")
    state = notebook.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    assert state, (
        "the notebook uses ipywidgets but stores no widget state, so the static book cannot "
        "render its widgets: execute it with `make notebooks` (store_widget_state=True)"
    )
    shown = [
        o.data[WIDGET_VIEW]["model_id"]
        for _, c in code_cells(notebook)
        for o in c.outputs
        if WIDGET_VIEW in o.get("data", {})
    ]
    assert shown, "the notebook imports ipywidgets but displays no widget"
    unknown = [model for model in shown if model not in state]
    assert not unknown, (
        f"displayed widgets {unknown} have no stored state (state from another run?): "
        "re-run `make notebooks`"
    )


# --------------------------------------------------------------------------------------------
# The pipeline's helpers
# --------------------------------------------------------------------------------------------


def test_toc_notebooks_reads_entries_in_order(tmp_path):
    (tmp_path / "book" / "a").mkdir(parents=True)
    (tmp_path / "book" / "intro.md").write_text("# Intro\n")
    for name in ("one", "two"):
        nbformat.write(nbformat.v4.new_notebook(), tmp_path / "book" / "a" / f"{name}.ipynb")
    toc = tmp_path / "_toc.yml"
    toc.write_text(
        "format: jb-book\nroot: book/intro\nparts:\n"
        "  - caption: P\n    chapters:\n"
        "      - file: book/a/two\n        sections:\n          - file: book/a/one.ipynb\n"
        "      - file: book/a/two\n"
    )
    found = execute_notebooks.toc_notebooks(toc)
    assert [p.name for p in found] == ["two.ipynb", "one.ipynb"]
    toc.write_text("format: jb-book\nroot: book/missing\n")
    with pytest.raises(FileNotFoundError, match="book/missing"):
        execute_notebooks.toc_notebooks(toc)


def test_stream_outputs_are_joined(notebook):
    """How printed text is split into messages depends on timing: stored joined, a re-run is the same file."""
    split = [i for i, c in code_cells(notebook)
             for a, b in zip(c.outputs, c.outputs[1:])
             if a.output_type == b.output_type == "stream" and a.name == b.name]
    assert not split, f"cells {split} hold consecutive stream outputs: execute with `make notebooks`, which joins them"


def test_merge_streams_joins_consecutive_outputs_of_one_stream():
    cell = nbformat.v4.new_code_cell("print(1); print(2)", execution_count=1)
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n"),
                    nbformat.v4.new_output("stream", name="stdout", text="2\n"),
                    nbformat.v4.new_output("stream", name="stderr", text="w\n"),
                    nbformat.v4.new_output("stream", name="stdout", text="3\n")]
    nb = nbformat.v4.new_notebook()
    nb.cells = [cell]
    execute_notebooks.merge_streams(nb)
    assert [(o.name, o.text) for o in cell.outputs] == [("stdout", "1\n2\n"), ("stderr", "w\n"), ("stdout", "3\n")]


def test_strip_volatile_and_problems():
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("1/0", execution_count=1)
    cell.metadata["execution"] = {"iopub.execute_input": "2024-01-01T00:00:00Z"}
    cell.metadata["tags"] = ["keep"]
    cell.outputs = [
        nbformat.v4.new_output("error", ename="ZeroDivisionError", evalue="division by zero"),
        nbformat.v4.new_output("stream", name="stderr", text="UserWarning: careful\n"),
    ]
    nb.cells = [cell]
    nb.metadata["papermill"] = {"duration": 1.0}
    execute_notebooks.strip_volatile(nb)
    assert cell.metadata == {"tags": ["keep"]}
    assert "papermill" not in nb.metadata
    errors, warnings = execute_notebooks.problems(nb)
    assert errors == ["cell 0: ZeroDivisionError: division by zero"]
    assert warnings == ["cell 0: stderr: UserWarning: careful"]


def sanitizers() -> list[tuple[str, str]]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(TOOLS / "nbval_sanitize.cfg", encoding="utf-8")
    return [(parser[s]["regex"], parser[s]["replace"]) for s in parser.sections()]


def sanitize(text: str) -> str:
    for regex, replace in sanitizers():
        text = re.sub(regex, replace, text)
    return text


def test_nbval_sanitizers_mask_volatile_text():
    assert sanitizers(), "book/_tools/nbval_sanitize.cfg defines no sanitizer"
    pairs = [
        ("<Figure object at 0x7f3a2b1c9d00>", "<Figure object at 0x55d0c0ffee12>"),
        ("/tmp/ipykernel_1234/567.py:3: UserWarning", "/tmp/ipykernel_98/1.py:3: UserWarning"),
        ("CPU times: user 1.2 ms, sys: 3 µs, total: 1.3 ms\nWall time: 2 ms",
         "CPU times: user 9.9 ms, sys: 1 µs, total: 10 ms\nWall time: 11 ms"),
        ("model_id: 'cac5981996304fabb14f552222911428'", "model_id: '0123456789abcdef0123456789abcdef'"),
    ]
    for first, second in pairs:
        assert sanitize(first) == sanitize(second), (first, second)


def test_nbval_sanitizers_keep_numbers():
    for text in ("0.1234567", "array([1.5, 2.25])", "eigenvalues: [12.3456 7.89]", "x = 0 and 16 s"):
        assert sanitize(text) == text


# --------------------------------------------------------------------------------------------
# Vendoring of the book's JavaScript (book/_tools/vendor_js.py), without touching the network
# --------------------------------------------------------------------------------------------

vendor_js = load_tool("vendor_js")


def test_vendor_keeps_only_what_the_book_serves():
    manager = next(p for p in vendor_js.PACKAGES if p.target == "html-manager")
    assert manager.wanted("package/dist/embed-amd.js") == "dist/embed-amd.js"
    assert manager.wanted("package/dist/1551f4f60c37af51121f.woff2") == "dist/1551f4f60c37af51121f.woff2"
    for skipped in ("package/dist/embed.js", "package/dist/embed.js.map", "package/src/index.ts",
                    "package/lib/icons.svg", "other/dist/embed-amd.js"):
        assert manager.wanted(skipped) is None, skipped
    for unused_font in ("package/dist/2285773e6b4b172f07d9.woff", "package/dist/491974d108fe4002b2aa.ttf",
                        "package/dist/23f19bb08961f37aaf69.eot", "package/dist/2f517e09eb2ca6650ff5.svg"):
        assert manager.wanted(unused_font) is None, unused_font  # browsers load the woff2 only
    mathjax = next(p for p in vendor_js.PACKAGES if p.target == "mathjax")
    assert mathjax.wanted("package/es5/tex-chtml.js") == "es5/tex-chtml.js"
    assert mathjax.wanted("package/es5/output/chtml/fonts/woff-v2/MathJax_Main-Regular.woff") \
        == "es5/output/chtml/fonts/woff-v2/MathJax_Main-Regular.woff"
    assert mathjax.wanted("package/es5/input/tex/extensions/boldsymbol.js") \
        == "es5/input/tex/extensions/boldsymbol.js"
    for unused in ("package/ts/core.ts", "package/es5/tex-svg-full.js", "package/es5/sre/mathmaps/en.json",
                   "package/es5/a11y/explorer.js", "package/es5/output/svg/fonts/tex.js"):
        assert mathjax.wanted(unused) is None, unused  # never loaded by a page


def test_vendor_pins_exact_versions_and_digests():
    for package in vendor_js.PACKAGES:
        name, _, version = package.spec.rpartition("@")
        assert name and re.fullmatch(r"\d+\.\d+\.\d+", version), package.spec
        assert re.fullmatch(r"[0-9a-f]{64}", package.sha256), package.spec


def test_vendor_says_how_to_fix_a_missing_npm(tmp_path, monkeypatch):
    monkeypatch.setattr(vendor_js, "CACHE_DIR", tmp_path)
    monkeypatch.setattr(vendor_js.shutil, "which", lambda name: None)
    with pytest.raises(vendor_js.VendorError, match="npm was not found"):
        vendor_js.fetch(vendor_js.PACKAGES[0])


def test_vendor_rejects_a_tarball_with_the_wrong_digest(tmp_path, monkeypatch):
    monkeypatch.setattr(vendor_js, "CACHE_DIR", tmp_path)
    package = vendor_js.PACKAGES[0]
    (tmp_path / package.tarball).write_bytes(b"not the pinned tarball")
    with pytest.raises(vendor_js.VendorError, match="sha256 mismatch"):
        vendor_js.fetch(package)
    assert not (tmp_path / package.tarball).exists(), "a rejected tarball must not stay cached"
