"""How the book cuts an explorer's frame into panels on a phone: the book's own rule
(book/_ext/rkm_panels.py, run when the book is built), for unit tests that check a frame without
building the book. ``pieces``: every run of ink between full-height gutters, slivers included;
``panels``: what a phone shows by the column rule, or None."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "book" / "_ext"))
import rkm_panels  # noqa: E402


def pieces(rgba) -> list[list[int]]:
    return rkm_panels.column_runs(rkm_panels.ink_of(rgba))


def panels(rgba) -> list[list[int]] | None:
    return rkm_panels.columns(rkm_panels.ink_of(rgba))
