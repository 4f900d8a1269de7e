"""How the book cuts an explorer's frame into panels on a phone, in NumPy.

The same rule as ``panelsOf`` in book/_static/rkm_book.js (section 5, "Explorers on a phone"):
a gutter is a run of at least 1 % of the width (and 10 px) of columns with no ink below the top
12 % of the rows (where a title may cross it); ink is a pixel with alpha above 32 and a channel
below 235. Pieces narrower than 15 % of the width are dropped, and a frame is cut only into two
or more pieces. Keep the two in step: the browser test (``explorers_stacked_390``) checks the
JavaScript on the built book; this lets a unit test check a frame without building it.
"""
from __future__ import annotations

import numpy as np

GUTTER, TITLE, NARROWEST = 0.01, 0.12, 0.15


def pieces(rgba) -> list[tuple[int, int]]:
    """Column ranges ``[start, end)`` of ink between gutters, narrow ones included."""
    rgba = np.asarray(rgba)
    height, width = rgba.shape[:2]
    body = rgba[int(np.floor(TITLE * height)):].astype(int)
    ink = (body[..., 3] > 32) & (body[..., :3] < 235).any(axis=-1)
    inked = ink.any(axis=0)
    minimum = max(10, round(GUTTER * width))
    runs, start, gap = [], None, 0
    for x in range(width):
        if inked[x]:
            if start is None:
                start = x
            elif gap >= minimum:
                runs.append((start, x - gap))
                start = x
            gap = 0
        elif start is not None:
            gap += 1
    if start is not None:
        runs.append((start, width - gap))
    return runs


def panels(rgba) -> list[tuple[int, int]] | None:
    """The panels a phone shows one under the other, or None when the frame stays whole."""
    width = np.asarray(rgba).shape[1]
    kept = [p for p in pieces(rgba) if p[1] - p[0] >= NARROWEST * width]
    return kept if len(kept) >= 2 else None
