"""Tests of rkmlearn.widgets.portable_figures: inline figures drawn from data snapped to 24 bits."""

import base64

import numpy as np
import pytest
from matplotlib.figure import Figure

from rkmlearn.widgets import portable_figures


def test_does_nothing_outside_ipython():
    assert portable_figures() is None


@pytest.fixture()
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    instance = InteractiveShell.instance()
    try:
        yield instance
    finally:
        InteractiveShell.clear_instance()


def test_inline_figures_are_drawn_from_snapped_data(shell):
    from rkmlearn.widgets._base import snap

    portable_figures()
    formatter = shell.display_formatter.formatters["image/png"]
    x = np.linspace(0.0, 1.0, 200)
    y = np.sin(7 * x)
    figure = Figure(figsize=(3, 2))
    ax = figure.subplots()
    ax.plot(x, y)
    image = ax.imshow(np.outer(y, y), extent=(0, 1, -1, 1), aspect="auto", alpha=0.3)
    png = base64.b64decode(formatter(figure))
    assert png.startswith(b"\x89PNG")
    drawn = ax.lines[0].get_ydata()
    assert not np.array_equal(drawn, y) and np.array_equal(drawn, snap(y))  # rounded before drawing
    assert np.array_equal(np.asarray(image.get_array()), snap(np.outer(y, y)))
