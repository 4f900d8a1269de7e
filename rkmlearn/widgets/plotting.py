"""Small plotting helpers shared by the explorers and the book's figures."""
from __future__ import annotations

import numpy as np

__all__ = ["annotate_cells"]


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
