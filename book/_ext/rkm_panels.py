"""Where the book cuts an explorer frame into panels on a phone (computed once, when the book is built).

A frame is one picture of several panels side by side (a heat map, its approximation, the error);
shrunk to a 360 px column its text would be 5 px, and at its own width the key panel is off-screen.
Below 700 px the book shows a frame's panels one under the other (``book/_static/rkm_book.js``,
section 5). This module finds them, in the frame's pixels, and ``rkm_frames.py`` writes them into
the page beside the frame's URL, so the browser only lays them out: no pixel is read in the page
(which a browser refuses for pictures opened from disk, ``file://``).

Two rules, tried in order:

1. **Columns.** A *gutter* is a run of at least 1 % of the width (and 10 px) of columns with no ink
   below the top 12 % of the rows (where a title may cross it); ink is a pixel with alpha above 32
   and a channel below 235. A run of ink narrower than 15 % of the width (a y label, a colour bar)
   joins the neighbour that makes the narrower piece; two or more columns are the panels, each the frame's full height. (A frame drawn for this rule, e.g. Part
   VI's, cuts cleanly.)
2. **Bands, then columns** (a grid, or plots under a wide one, where no gutter runs from top to
   bottom): the frame is cut into *bands* at runs of blank rows of at least 1 % of the height; a
   band under 10 % of the height (a title, an axis label) joins the band below it. Each band is cut
   at its own gutters as in rule 1; the rows above the band's plots that cross a gutter (its
   title), down to the first blank row, stay whole, as a strip above its columns. A band without
   gutters is one piece. Used only if some band has columns; the page then checks that every
   piece, shown at the column's width, stays legible (else the frame is shown whole).

Each piece is ``[x0, y0, x1, y1]`` (pixels of the frame, end exclusive); rule 2's pieces get 2 px of
margin.
"""
from __future__ import annotations

import io

import numpy as np

GUTTER, TITLE, NARROWEST = 0.01, 0.12, 0.15
BAND_GAP, BAND_MIN, PAD = 0.01, 0.1, 2


def ink_of(rgba) -> np.ndarray:
    """Boolean (height, width): the pixels with ink (alpha above 32 and a channel below 235)."""
    rgba = np.asarray(rgba)
    if rgba.shape[-1] == 3:
        return (rgba < 235).any(axis=-1)
    return (rgba[..., 3] > 32) & (rgba[..., :3] < 235).any(axis=-1)


def runs(full, minimum: int) -> list[list[int]]:
    """``[start, end)`` of the runs of True in ``full`` separated by >= ``minimum`` False."""
    found, start, gap = [], None, 0
    for i, value in enumerate(full):
        if value:
            if start is None:
                start = i
            elif gap >= minimum:
                found.append([start, i - gap])
                start = i
            gap = 0
        elif start is not None:
            gap += 1
    if start is not None:
        found.append([start, len(full) - gap])
    return found


def _gutter_minimum(width: int) -> int:
    return max(10, round(GUTTER * width))


def column_runs(ink: np.ndarray, y0: int = 0, y1: int | None = None) -> list[list[int]]:
    """Runs of inked columns in rows ``[y0, y1)`` below their top ``TITLE`` part, narrow ones included."""
    y1 = ink.shape[0] if y1 is None else y1
    top = y0 + int(np.floor(TITLE * (y1 - y0)))
    return runs(ink[top:y1].any(axis=0), _gutter_minimum(ink.shape[1]))


def merge_narrow(found: list[list[int]], width: int) -> list[list[int]]:
    """Runs narrower than ``NARROWEST`` of the width joined to a neighbour (a y label to its plot, a
    colour bar to its map), so that no ink is dropped: the one that makes the narrower piece."""
    merged = [list(run) for run in found]
    while len(merged) > 1:
        narrow = [i for i, (x0, x1) in enumerate(merged) if x1 - x0 < NARROWEST * width]
        if not narrow:
            break
        i = narrow[0]
        # to the side where the joined piece is narrower: a y label to the plot on its right (it
        # has no left neighbour, or a wide one), a colour bar to the map on its left
        left = merged[i][1] - merged[i - 1][0] if i > 0 else None
        right = merged[i + 1][1] - merged[i][0] if i + 1 < len(merged) else None
        j = i - 1 if right is None or (left is not None and left <= right) else i + 1
        merged[min(i, j)] = [merged[min(i, j)][0], merged[max(i, j)][1]]
        del merged[max(i, j)]
    return merged


def columns(ink: np.ndarray) -> list[list[int]] | None:
    """Rule 1: the full-height columns ``[x0, x1)``, narrow runs joined to a neighbour, or None
    (fewer than two)."""
    kept = merge_narrow(column_runs(ink), ink.shape[1])
    return kept if len(kept) >= 2 else None


def _merged_columns(ink, y0, y1):
    return merge_narrow(column_runs(ink, y0, y1), ink.shape[1])


def _extent(ink, y0, y1):
    inked = np.flatnonzero(ink[y0:y1].any(axis=0))
    return (int(inked[0]), int(inked[-1]) + 1) if inked.size else (0, ink.shape[1])


def grid(ink: np.ndarray) -> list[list[int]] | None:
    """Rule 2: pieces ``[x0, y0, x1, y1]`` of the bands-then-columns cut, or None (no band has columns)."""
    height, width = ink.shape
    bands = runs(ink.any(axis=1), max(6, round(BAND_GAP * height)))
    pieces, split, lead = [], False, None
    for number, (b0, b1) in enumerate(bands):
        y0 = b0 if lead is None else lead
        if b1 - b0 < BAND_MIN * height and number + 1 < len(bands):
            lead = y0  # a title or a label: it goes with the band below
            continue
        lead = None
        cols = _merged_columns(ink, b0, b1)
        if len(cols) < 2:
            x0, x1 = _extent(ink, y0, b1)
            pieces.append([x0, y0, x1, b1])
            continue
        split = True
        # the title over the columns: down to the last row, above the plots, with ink in a gutter
        title = y0
        for y in range(y0, b0 + int(np.floor(TITLE * (b1 - b0)))):
            if any(ink[y, left[1]:right[0]].any() for left, right in zip(cols, cols[1:])):
                title = y + 1
        if title > y0:
            # ... to the end of that line of text: letters away from the gutter reach lower (descenders)
            while title < b1 and ink[title].any():
                title += 1
            x0, x1 = _extent(ink, y0, title)
            pieces.append([x0, y0, x1, title])
        pieces += [[c[0], title, c[1], b1] for c in cols]
    if not split or len(pieces) < 2:
        return None
    return [[max(0, x0 - PAD), max(0, y0 - PAD), min(width, x1 + PAD), min(height, y1 + PAD)]
            for x0, y0, x1, y1 in pieces]


def cut(rgba) -> dict | None:
    """The cut of one frame: ``{"size": [w, h], "rule": "columns" | "grid", "pieces": [...]}`` or None."""
    ink = ink_of(rgba)
    height, width = ink.shape
    full = columns(ink)
    if full is not None:
        return {"size": [width, height], "rule": "columns", "pieces": [[x0, 0, x1, height] for x0, x1 in full]}
    pieces = grid(ink)
    if pieces is not None:
        return {"size": [width, height], "rule": "grid", "pieces": pieces}
    return None


def cut_png(data: bytes) -> dict | None:
    """:func:`cut` of a PNG file's bytes."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        return cut(np.asarray(image.convert("RGBA")))
