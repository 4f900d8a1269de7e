"""A private function of the library is shown in one place of the book only (issue 18).

Chapters teach with the public objects; where the lines that carry an equation live in a private
helper (``_dual_level``, ``_primal_level``, ...), one chapter shows them (as excerpts, one per
equation) and the others link to it, instead of every chapter repeating the same listing.
"""
from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
DIRECTIVE = re.compile(r"\{rkm-source\}\s+(\S+)")


def _private(path: str) -> bool:
    return any(part.startswith("_") for part in path.split("."))


def test_each_private_listing_lives_in_one_notebook():
    where = defaultdict(set)
    for nb_path in sorted((ROOT / "book").rglob("*.ipynb")):
        if ".ipynb_checkpoints" in nb_path.parts:
            continue
        for cell in nbformat.read(nb_path, as_version=4).cells:
            if cell.cell_type == "markdown":
                for target in DIRECTIVE.findall(cell.source):
                    if _private(target):
                        where[target].add(nb_path.relative_to(ROOT).as_posix())
    assert where, "no private listing found: the pattern no longer matches the directive"
    repeated = {target: sorted(pages) for target, pages in where.items() if len(pages) > 1}
    assert not repeated, f"private functions shown in several places: {repeated}"
