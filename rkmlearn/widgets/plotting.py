"""Small plotting helpers shared by the explorers and the book's figures."""
from __future__ import annotations

import base64
import struct

import numpy as np

from ._base import _snap_artists

__all__ = ["annotate_cells", "portable_figures"]

#: Pixels drawn per displayed pixel in the inline figures of :func:`portable_figures`
#: (as IPython's "retina" figures; the book's browser test requires at least 1.5).
FIGURE_SCALE = 2


def portable_figures():
    """Draw this IPython session's inline figures from data snapped to 24 bits: the same PNG everywhere.

    The book's chapters call it once, after importing pyplot. Each figure shown inline is then
    rendered after :func:`~rkmlearn.widgets.snap` has rounded the data of its lines and images,
    and its axis limits, to 24 significant bits (about 1e-7, far below a pixel), as the explorers'
    frames are. Two machines whose BLAS or NumPy kernels round differently compute data that
    differ in the last bits; unsnapped, such a difference can move an anti-aliased pixel, and the
    stored figure would depend on the machine that executed the notebook. (Data that differ by
    more than rounding, e.g. the rounding-level tail of a convergence curve, must be floored by
    the figure itself.)

    The PNG is drawn at twice the figure's dpi (:data:`FIGURE_SCALE`) and carries display
    metadata (``width``, ``height``: the figure's size at its own dpi), so that JupyterLab and the
    book (myst-nb writes the width on the ``<img>``) show it at its nominal size with twice the
    pixels: sharp on high-density screens and when zoomed. Does nothing outside IPython.
    """
    try:
        from IPython import get_ipython
        from IPython.core.pylabtools import print_figure
    except ImportError:  # pragma: no cover - IPython is a dependency of the book, not of the library
        return
    shell = get_ipython()
    if shell is None:
        return
    import matplotlib
    import matplotlib.pyplot  # noqa: F401
    from matplotlib.figure import Figure

    # pyplot loads its backend lazily, and the inline backend sets its own PNG formatter when it
    # loads: load it now, so that the formatter set below is not replaced by the first figure.
    matplotlib.pyplot.switch_backend(matplotlib.get_backend())

    def png(figure):
        _snap_artists(figure)
        data = print_figure(figure, "png", bbox_inches="tight", dpi=FIGURE_SCALE * figure.dpi)
        if data is None:  # an empty figure shows nothing (as IPython's own formatter)
            return None
        # An IPython formatter may return (data, metadata): the display size, at 1x.
        width, height = struct.unpack(">II", data[16:24])  # the PNG's IHDR chunk
        return (base64.b64encode(data).decode("ascii"),
                {"width": round(width / FIGURE_SCALE), "height": round(height / FIGURE_SCALE)})

    shell.display_formatter.formatters["image/png"].for_type(Figure, png)


def annotate_cells(ax, image, values, fmt="{:.1f}", *, fontsize=None):
    """Write each value of a heat map into its cell, black on light cells and white on dark ones.

    The text colour follows the cell's colour (its relative luminance, as WCAG defines it, above
    or below 0.4), so numbers stay legible on every colormap. A value that prints as zero is
    printed without a minus sign: ``-0.0`` would show the sign of a rounding error, which differs
    from machine to machine.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    image : matplotlib.image.AxesImage
        The heat map (``ax.imshow(values, ...)``); its colormap and norm colour the cells.
    values : array-like of shape (rows, columns)
        The numbers to write (usually the array shown).
    fmt : str, default="{:.1f}"
        Format of one number.
    fontsize : float, optional
        Text size; default the rc ``font.size``.

    Returns
    -------
    list of matplotlib.text.Text
    """
    values = np.asarray(values, dtype=np.float64)
    rgba = image.cmap(image.norm(values))
    linear = np.where(rgba[..., :3] <= 0.04045, rgba[..., :3] / 12.92,
                      ((rgba[..., :3] + 0.055) / 1.055) ** 2.4)
    luminance = linear @ np.array([0.2126, 0.7152, 0.0722])
    texts = []
    for (i, j), value in np.ndenumerate(values):
        text = fmt.format(value)
        if text.startswith("-") and float(text) == 0.0:
            text = text[1:]
        kwargs = {} if fontsize is None else {"fontsize": fontsize}
        texts.append(ax.text(j, i, text, ha="center", va="center",
                             color="black" if luminance[i, j] > 0.4 else "white", **kwargs))
    return texts
