"""Tests of rkmlearn.widgets.portable_figures: inline figures drawn from data snapped to 24 bits."""

import base64
import struct

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
    data, metadata = formatter(figure)
    png = base64.b64decode(data)
    assert png.startswith(b"\x89PNG")
    drawn = ax.lines[0].get_ydata()
    assert not np.array_equal(drawn, y) and np.array_equal(drawn, snap(y))  # rounded before drawing
    assert np.array_equal(np.asarray(image.get_array()), snap(np.outer(y, y)))


def test_inline_figures_are_drawn_at_twice_their_displayed_size(shell):
    from rkmlearn.widgets.plotting import FIGURE_SCALE

    portable_figures()
    figure = Figure(figsize=(4, 3), dpi=100)
    ax = figure.subplots()
    ax.plot([0.0, 1.0], [0.0, 1.0])
    data, metadata = shell.display_formatter.format(figure)
    png = base64.b64decode(data["image/png"])
    width, height = struct.unpack(">II", png[16:24])
    shown = metadata["image/png"]
    # the page shows it at about the figure's size at its own dpi (tight bounding box: a
    # little less than 400 x 300), with FIGURE_SCALE = 2 pixels per displayed pixel
    assert FIGURE_SCALE == 2
    assert 300 < shown["width"] <= 400 and 200 < shown["height"] <= 300
    assert abs(width - 2 * shown["width"]) <= 1 and abs(height - 2 * shown["height"]) <= 1


def test_an_empty_figure_shows_nothing(shell):
    portable_figures()
    assert shell.display_formatter.formatters["image/png"](Figure()) is None
