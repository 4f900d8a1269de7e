#!/usr/bin/env python3
"""Execute the book's notebooks in place: the one execution shared by the book and by nbval.

The notebook pipeline
---------------------
1. ``make notebooks`` runs this script. It reads ``_toc.yml``, and executes every notebook
   (``.ipynb``) listed there, in place, top to bottom, with nbclient:

   * kernel ``python3`` -- the kernelspec ``make install`` registers inside ``.venv``, so the
     notebooks import the ``rkmlearn`` checked out here;
   * working directory = the notebook's own folder (relative paths in a chapter resolve the
     same way in JupyterLab, here and under nbval);
   * ``store_widget_state=True``: the state of every ipywidget is saved in the notebook
     metadata (``application/vnd.jupyter.widget-state+json``), which myst-nb writes into the
     HTML page so the widgets render in the static book, offline;
   * at most 600 s per cell; ``PYTHONHASHSEED=0``; ``MPLBACKEND`` set to the inline backend
     and ``MATPLOTLIBRC`` pointing at ``book/_tools/matplotlibrc`` (fixed ``svg.hashsalt``,
     PNG figures, no timestamps), so figures are byte-for-byte reproducible.

2. Volatile metadata is stripped (per-cell execution timestamps, ``collapsed``/``scrolled``
   view state, papermill/nbclient bookkeeping), so that re-running an unchanged notebook
   gives an unchanged file apart from widget model ids.

3. The run fails (exit status 1, the notebook left untouched on disk) if any cell raises or
   any output is an error. Output on stderr (warnings) is listed so that it can be fixed.

4. The stored outputs are committed. ``make book`` renders them (``execute_notebooks: off`` in
   ``_config.yml``); ``make test`` re-executes every notebook with nbval and compares the fresh
   outputs with the stored ones (``book/_tools/nbval_sanitize.cfg`` masks what may differ), so
   the book is proven to show current, reproducible outputs. (nbval's kernels inherit pytest's
   environment, so the Makefile should export the same PYTHONHASHSEED, MPLBACKEND and
   MATPLOTLIBRC for them.) ``tests/test_notebooks.py``
   checks that every notebook in the table of contents has been executed this way.

Usage::

    python book/_tools/execute_notebooks.py                 # every notebook in _toc.yml
    python book/_tools/execute_notebooks.py book/foundations/ch01_kernels.ipynb
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import nbformat
import yaml
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

REPO_ROOT = Path(__file__).resolve().parents[2]
TOC = REPO_ROOT / "_toc.yml"
MATPLOTLIBRC = Path(__file__).resolve().parent / "matplotlibrc"

KERNEL_NAME = "python3"
CELL_TIMEOUT_S = 600
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"

# Per-cell metadata that changes on every run or records only how a notebook was last viewed.
VOLATILE_CELL_METADATA = ("execution", "collapsed", "scrolled", "ExecuteTime")
VOLATILE_NOTEBOOK_METADATA = ("papermill", "execution", "toc-autonumbering")


def toc_entries(node: object) -> Iterator[str]:
    """Yield every ``file:`` entry of a jb-book/jb-article table of contents, in order."""
    if isinstance(node, dict):
        for key in ("root", "file"):
            if isinstance(node.get(key), str):
                yield node[key]
        for value in node.values():
            if isinstance(value, (dict, list)):
                yield from toc_entries(value)
    elif isinstance(node, list):
        for item in node:
            yield from toc_entries(item)


def toc_notebooks(toc: Path = TOC) -> list[Path]:
    """Return the notebooks (``.ipynb``) listed in ``toc``, in reading order, without repeats.

    Entries may be written with or without a suffix, as Jupyter Book allows; an entry that
    names neither an ``.ipynb`` nor a ``.md`` file is an error.
    """
    spec = yaml.safe_load(toc.read_text(encoding="utf-8"))
    notebooks: list[Path] = []
    for entry in toc_entries(spec):
        path = toc.parent / entry
        candidates = [path] if path.suffix in (".ipynb", ".md") else [
            path.with_name(path.name + ".ipynb"),
            path.with_name(path.name + ".md"),
        ]
        found = [c for c in candidates if c.exists()]
        if not found:
            raise FileNotFoundError(
                f"_toc.yml lists {entry!r}, but none of {[str(c) for c in candidates]} exists: "
                "create the page or remove the entry."
            )
        if found[0].suffix == ".ipynb" and found[0] not in notebooks:
            notebooks.append(found[0])
    return notebooks


def kernel_environment() -> None:
    """Set the environment the kernel inherits (the kernel is a child of this process)."""
    os.environ["PYTHONHASHSEED"] = "0"
    os.environ["MPLBACKEND"] = INLINE_BACKEND
    os.environ["MATPLOTLIBRC"] = str(MATPLOTLIBRC)
    # Coloured tracebacks/warnings would put terminal escapes into stored outputs.
    os.environ.pop("FORCE_COLOR", None)


def strip_volatile(nb: nbformat.NotebookNode) -> None:
    """Remove metadata that changes on every run without changing what the notebook shows."""
    for key in VOLATILE_NOTEBOOK_METADATA:
        nb.metadata.pop(key, None)
    for cell in nb.cells:
        for key in VOLATILE_CELL_METADATA:
            cell.metadata.pop(key, None)


def merge_streams(nb: nbformat.NotebookNode) -> None:
    """Join consecutive stream outputs of one cell (same stream) into one output.

    How the kernel splits printed text into messages depends on timing (a loop that prints as it
    goes); joined, the stored file is the same on every run, and nbval, which joins them too,
    compares the same text.
    """
    for cell in nb.cells:
        merged = []
        for output in cell.get("outputs", []):
            if (merged and output.output_type == "stream" and merged[-1].output_type == "stream"
                    and merged[-1].name == output.name):
                merged[-1].text += output.text
            else:
                merged.append(output)
        if "outputs" in cell:
            cell.outputs = merged


def problems(nb: nbformat.NotebookNode) -> tuple[list[str], list[str]]:
    """Return (errors, stderr warnings) found in the outputs of an executed notebook."""
    errors, warnings = [], []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for output in cell.get("outputs", []):
            if output.output_type == "error":
                errors.append(f"cell {index}: {output.ename}: {output.evalue}")
            elif output.output_type == "stream" and output.name == "stderr":
                text = output.text.strip().splitlines()
                warnings.append(f"cell {index}: stderr: {text[0] if text else ''}")
    return errors, warnings


def shown(path: Path) -> str:
    """``path`` relative to the repository when it is inside it (for messages)."""
    return str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else str(path)


def execute(path: Path) -> bool:
    """Execute one notebook in place; return whether it ran cleanly."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=CELL_TIMEOUT_S,
        kernel_name=KERNEL_NAME,
        resources={"metadata": {"path": str(path.parent)}},
        store_widget_state=True,
        record_timing=False,
        allow_errors=False,
    )
    start = time.perf_counter()
    try:
        client.execute()
    except CellExecutionError as error:
        print(f"FAILED {shown(path)} (file not written):\n{error}", file=sys.stderr)
        return False
    errors, warnings = problems(nb)
    if errors:
        for line in errors:
            print(f"FAILED {shown(path)}: {line}", file=sys.stderr)
        return False
    strip_volatile(nb)
    merge_streams(nb)
    nbformat.validate(nb)
    nbformat.write(nb, path)
    elapsed = time.perf_counter() - start
    print(f"executed {shown(path)} in {elapsed:.1f} s")
    for line in warnings:
        print(f"  warning: {line}")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "notebooks", nargs="*", type=Path, help="notebooks to execute (default: all in _toc.yml)"
    )
    args = parser.parse_args(argv)
    notebooks = [p.resolve() for p in args.notebooks] or toc_notebooks()
    for path in notebooks:
        if path.suffix != ".ipynb" or not path.exists():
            parser.error(f"notebooks: {path} is not an existing .ipynb file")
    kernel_environment()
    failed = [path for path in notebooks if not execute(path)]
    if failed:
        names = ", ".join(shown(p) for p in failed)
        print(f"{len(failed)} of {len(notebooks)} notebooks failed: {names}", file=sys.stderr)
        return 1
    print(f"all {len(notebooks)} notebooks executed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
