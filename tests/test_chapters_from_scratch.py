"""Chapters teach from scratch, then with the library, and their visible code runs as shown (issue 29).

A chapter is read as a course: what a student sees is the page without its hidden cells (tag
``remove-cell`` or ``remove-input``; a ``hide-input`` cell's code is one click away, so it counts
as visible). So, for every chapter notebook of ``_toc.yml`` (the appendix *How rkmlearn computes*
is where the library's internals are explained, and is left out):

(a) no visible cell, code or markdown, shows a name private to the library (``_leading``,
    ``rkmlearn.solvers._x``, ``model._latent``: any identifier with one leading underscore that the
    library's source uses), nor an ``{rkm-source}`` listing of a private function, nor a "Whole
    listing of ..." box (an ``{rkm-source}`` without ``:no-listing:``), nor an excerpt whose lines
    show a private name;
(b) the visible code cells alone, in order, in a fresh kernel started as
    ``book/_tools/execute_notebooks.py`` starts one (same kernel, environment and working
    directory), run without error: every name a visible cell uses is defined in a visible cell,
    and every file it reads is read by a visible cell. (b) re-executes each chapter, one test per
    notebook; it is marked ``slow``. The kernel gets ONE OpenBLAS thread (its kernel and NumPy's
    SIMD stay the machine's default): pytest-xdist runs two chapters at once on CI's two cores,
    and two BLAS threads per kernel then wait on each other: Chapter 5's visible cells took 22 s
    (22 s CPU) on one thread, 32 s (57 s CPU) on two at a load of 2, and 595 s in ``make test``'s
    first pass at a load of 5-10. Whether the code runs does not depend on the thread count; its
    outputs are checked under one and two threads by nbval (``make test`` passes 2 and 3).
"""
from __future__ import annotations

import ast
import importlib.util
import inspect
import re
import sys
from functools import lru_cache
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "rkmlearn"
HIDDEN_TAGS = {"remove-cell", "remove-input"}
APPENDIX = "book/appendix/"
# a name with exactly one leading underscore, not part of a longer word (``x_1``) or a dunder
PRIVATE_TOKEN = re.compile(r"(?<![\w])_(?!_)[A-Za-z]\w*")
PRIVATE_PATH = re.compile(r"\brkmlearn(?:\.\w+)*\._(?!_)\w+")
RKM_SOURCE = re.compile(r"```+\s*\{rkm-source\}\s+(\S+)([^`]*)```", re.DOTALL)
OPTION = re.compile(r"^:([\w-]+):\s*(.*)$", re.MULTILINE)


def _load_tool(name: str):
    spec = importlib.util.spec_from_file_location(f"_book_tools_{name}",
                                                  ROOT / "book" / "_tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


# Each chapter's run is a unit of work of its own for pytest-xdist (tests/conftest.py): the 13 fresh
# kernels share both workers instead of queueing on one.
XDIST_SPLIT = True
execute_notebooks = _load_tool("execute_notebooks")
CHAPTERS = [path for path in execute_notebooks.toc_notebooks()
            if not path.relative_to(ROOT).as_posix().startswith(APPENDIX)]
IDS = [path.relative_to(ROOT).as_posix() for path in CHAPTERS]


@lru_cache(maxsize=1)
def library_private_names() -> frozenset[str]:
    """Every identifier with one leading underscore in the library's code (functions, methods,
    attributes, variables, modules): what a chapter must not show."""
    names = {path.stem for path in LIBRARY.rglob("*.py")}
    for path in LIBRARY.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Attribute):
                names.add(node.attr)
            elif isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.alias):
                names.update((node.asname or node.name).split("."))
    # identifiers of the code (not the LaTeX of docstrings, whose ``\\|A\\|_F`` is no name)
    return frozenset(name for name in names if PRIVATE_TOKEN.fullmatch(name))


def visible_cells(nb) -> list[tuple[int, nbformat.NotebookNode]]:
    return [(i, cell) for i, cell in enumerate(nb.cells)
            if not HIDDEN_TAGS & set(cell.metadata.get("tags", []))]


def excerpt(target: str, options: dict[str, str]) -> str:
    """The lines an ``{rkm-source}`` directive shows (as book/_ext/rkm_book.py selects them:
    from the first line holding ``start-at`` to the next holding ``end-at``)."""
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    try:
        from rkm_book import _resolve
    finally:
        sys.path.pop(0)
    lines = inspect.getsourcelines(_resolve(target))[0]
    start = next((i for i, line in enumerate(lines) if options.get("start-at", "\0") in line), 0)
    end = next((i for i in range(start, len(lines)) if options.get("end-at", "\0") in lines[i]),
               len(lines) - 1)
    return "".join(lines[start:end + 1])


def private_shown(cell) -> list[str]:
    """What of the library's private side one visible cell shows, in words."""
    private = library_private_names()
    found = [f"private name {name!r}" for name in PRIVATE_TOKEN.findall(cell.source)
             if name in private]
    found += [f"private path {path!r}" for path in PRIVATE_PATH.findall(cell.source)]
    if cell.cell_type == "markdown":
        for target, body in RKM_SOURCE.findall(cell.source):
            options = dict(OPTION.findall(body))
            if any(part.startswith("_") for part in target.split(".")):
                found.append(f"listing of the private {target!r}")
            if "no-listing" not in options:
                found.append(f"'Whole listing of {target}' box (no :no-listing:)")
            found += [f"private name {name!r} in the excerpt of {target!r}"
                      for name in PRIVATE_TOKEN.findall(excerpt(target, options))
                      if name in private]
    return sorted(set(found))


def test_the_private_names_are_found():
    """The scan would see the names issue 29 found in the chapters."""
    private = library_private_names()
    assert {"_leading", "_dual_level", "_primal_level", "_latent", "_set_parameters"} <= private
    cell = nbformat.v4.new_markdown_cell(
        "```{rkm-source} rkmlearn.KPCA.fit\n```\nsee `rkmlearn.solvers._eigen`")
    shown = private_shown(cell)
    assert "'Whole listing of rkmlearn.KPCA.fit' box (no :no-listing:)" in shown
    assert "private path 'rkmlearn.solvers._eigen'" in shown
    assert not private_shown(nbformat.v4.new_code_cell("x_1 = model.alpha_; _ = plt.plot(x_1)"))


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_no_visible_cell_shows_library_internals(path):
    nb = nbformat.read(path, as_version=4)
    offences = [f"cell {i} ({cell.cell_type}): {what}"
                for i, cell in visible_cells(nb) for what in private_shown(cell)]
    assert not offences, (
        "a chapter shows the library's internals; write the equation from scratch and call the "
        "public API (internals live in the appendix 'How rkmlearn computes'):\n  "
        + "\n  ".join(offences))


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_visible_code_runs_as_shown(path, monkeypatch):
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    shown = [cell for _, cell in visible_cells(nb) if cell.cell_type == "code"]
    nb.cells = [nbformat.v4.new_code_cell(cell.source) for cell in shown]
    execute_notebooks.kernel_environment()
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")  # the kernel's (module docstring: why)
    client = NotebookClient(nb, timeout=execute_notebooks.CELL_TIMEOUT_S,
                            kernel_name=execute_notebooks.KERNEL_NAME,
                            resources={"metadata": {"path": str(path.parent)}},
                            allow_errors=False)
    try:
        client.execute()
    except CellExecutionError as error:
        pytest.fail(f"the visible code cells of {path.name}, run alone in order, fail:\n{error}")
