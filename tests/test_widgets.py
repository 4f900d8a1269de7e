"""Tests of the frame-explorer machinery in :mod:`rkmlearn.widgets._base`.

The contract the book relies on (and the browser test checks in the rendered page): an explorer's
widget is a box with the class ``rkm-explorer``, holding the controls, nested stacks of frames
linked to the controls by ``jslink``, and a hidden ``rkm-manifest`` HTML widget whose JSON gives
each state's SHA-256; ``sha256(explorer.render(**state))`` equals it, for every state.
"""
from __future__ import annotations

import hashlib
import html
import io
import json

import ipywidgets as widgets
import matplotlib as mpl
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from PIL import Image

from rkmlearn.widgets import annotate_cells
from rkmlearn.widgets._base import (
    tex_label,
    FrameExplorer,
    Ladder,
    encode_png,
    format_bound,
    reduce_colours,
    snap,
)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class Dots(FrameExplorer):
    """A tiny explorer: ``n`` dots, coloured or not (two controls, six states)."""

    figsize = (2.0, 1.5)
    dpi = 50

    def __init__(self, n=2, colour=False):
        self.ladders = (Ladder("n", "dots", (1, 2, 3)),
                        Ladder("colour", "colour", (False, True), ("grey", "red"), style="buttons"))
        self.initial = {"n": n, "colour": colour}
        self.check_state()

    def draw(self, figure, *, n, colour):
        ax = figure.subplots()
        ax.plot(np.arange(n), np.ones(n), "o", color="crimson" if colour else "0.5")
        ax.set_title(f"{n} dots")


def manifest_of(explorer) -> dict:
    (manifest,) = [w for w in explorer.widget.children if "rkm-manifest" in w._dom_classes]
    return json.loads(html.unescape(manifest.value))


def decode(png: bytes) -> np.ndarray:
    image = Image.open(io.BytesIO(png))
    image.load()
    return np.asarray(image.convert("RGB"))


# -- encoding ----------------------------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(arrays(np.uint8, st.tuples(st.integers(1, 12), st.integers(1, 12), st.just(3)),
              elements=st.sampled_from([0, 17, 128, 255])))
def test_encode_png_is_lossless_up_to_256_colours(pixels):
    png = encode_png(pixels)
    assert png.startswith(PNG_SIGNATURE)
    np.testing.assert_array_equal(decode(png), pixels)
    assert encode_png(pixels) == png  # deterministic


def test_encode_png_writes_only_the_needed_chunks():
    pixels = np.full((4, 5, 4), 255, dtype=np.uint8)
    png = encode_png(pixels)
    chunks, offset = [], 8
    while offset < len(png):
        length = int.from_bytes(png[offset:offset + 4], "big")
        chunks.append(png[offset + 4:offset + 8])
        offset += 12 + length
    assert chunks == [b"IHDR", b"PLTE", b"IDAT", b"IEND"]  # no time stamp, no software name


def test_reduce_colours_keeps_the_most_frequent_and_maps_the_rest_to_the_nearest():
    rng = np.random.default_rng(0)
    base = rng.integers(0, 256, size=(300, 3))
    pixels = np.repeat(base, 10, axis=0)  # 300 colours, each 10 times
    rare = np.array([[base[0, 0] ^ 1, base[0, 1], base[0, 2]]])  # one pixel, next to colour 0
    image = np.vstack([pixels, rare]).astype(np.uint8)[:, None, :]
    palette, indices = reduce_colours(image)
    assert len(palette) == 256
    shown = palette[indices[:, 0]].astype(int)
    kept = {tuple(c) for c in palette}
    for original, mapped in zip(image[:, 0].astype(int), shown):
        if tuple(original) in kept:
            assert tuple(mapped) == tuple(original)
        else:  # the nearest kept colour
            best = min(((np.sum((np.array(c) - original) ** 2), c) for c in kept))[0]
            assert np.sum((mapped - original) ** 2) == best


def test_encode_png_of_a_frame_changes_few_pixels():
    explorer = Dots()
    pixels = np.asarray(explorer.figure(n=3, colour=True).canvas.buffer_rgba())[:, :, :3]
    shown = decode(explorer.render(n=3, colour=True))
    assert shown.shape == pixels.shape
    assert np.mean(np.any(shown != pixels, axis=2)) < 0.01


@pytest.mark.parametrize("rgba, match", [
    (np.zeros((2, 2, 4), dtype=np.float64), "uint8"),
    (np.zeros((2, 2), dtype=np.uint8), "height, width"),
    (np.zeros((0, 2, 4), dtype=np.uint8), "non-empty"),
    (np.zeros((2, 2, 4), dtype=np.uint8), "transparent"),
])
def test_encode_png_rejects_bad_input(rgba, match):
    with pytest.raises(ValueError, match=match):
        encode_png(rgba)


# -- portable frames ---------------------------------------------------------------------------
def test_snap_removes_rounding_level_differences():
    values = np.array([1.0, 0.5, -0.25, 3e-15, -3e-15, 1.0 + 2e-16])
    snapped = snap(values)
    assert snapped[3] == 0.0 and snapped[4] == 0.0  # zero up to rounding is zero
    assert snapped[5] == 1.0
    np.testing.assert_allclose(snapped, values, atol=1e-7)
    np.testing.assert_array_equal(snap(snapped), snapped)  # idempotent
    relative = snap(np.array([1e-9, 1e-9 * (1 + 1e-15), 7e3]), relative=True)
    assert relative[0] == relative[1] > 0  # log axes keep small values
    assert np.isnan(snap(np.array([np.nan, 1.0]))[0])


def test_format_bound():
    assert format_bound(0.0123, 1e-12) == "1.23e-02"
    assert format_bound(3e-16, 1e-12) == "<= 1e-12"
    assert format_bound(-3e-16, 1e-12) == "<= 1e-12"


def test_frames_do_not_depend_on_the_users_matplotlibrc():
    explorer = Dots()
    reference = explorer.render(n=2)
    with mpl.rc_context({"font.size": 30, "lines.linewidth": 5, "figure.facecolor": "black"}):
        assert explorer.render(n=2) == reference


def test_annotate_cells_contrasts_with_the_cell_and_hides_negative_zero():
    figure = mpl.figure.Figure()
    ax = figure.subplots()
    values = np.array([[-1.0, -1e-17], [0.0, 1.0]])
    image = ax.imshow(values, cmap="viridis", vmin=-1, vmax=1)
    texts = annotate_cells(ax, image, values, "{:.1f}")
    assert [t.get_text() for t in texts] == ["-1.0", "0.0", "0.0", "1.0"]
    assert texts[0].get_color() == "white"  # viridis is dark at the bottom
    assert texts[3].get_color() == "black"  # and light at the top


# -- ladders and states ------------------------------------------------------------------------
def test_ladder_validation_and_lookup():
    ladder = Ladder("flag", "flag", (True, False), ("on", "off"))
    assert ladder.index(False) == 1
    with pytest.raises(ValueError, match="not on the explorer's ladder"):
        Ladder("n", "n", (0, 1)).index(True)  # True is not the value 1
    with pytest.raises(ValueError, match="one distinct label per value"):
        Ladder("n", "n", (1, 2), ("a", "a"))
    with pytest.raises(ValueError, match="empty"):
        Ladder("n", "n", ())
    with pytest.raises(ValueError, match="style"):
        Ladder("n", "n", (1,), style="dial")


def test_states_and_check_state():
    explorer = Dots()
    assert len(explorer.states()) == 6
    assert explorer.check_state(n=3) == {"n": 3, "colour": False}
    assert explorer.indices(n=3, colour=True) == (2, 1)
    with pytest.raises(ValueError, match="unknown control"):
        explorer.check_state(size=3)
    with pytest.raises(ValueError, match="not on the explorer's ladder"):
        explorer.check_state(n=4)
    with pytest.raises(ValueError, match="not on the explorer's ladder"):
        Dots(n=5)


# -- the widget and its manifest ---------------------------------------------------------------
def test_widget_structure_links_and_manifest():
    explorer = Dots(n=2, colour=True)
    box = explorer.widget
    assert "rkm-explorer" in box._dom_classes
    controls, view, manifest_widget = box.children
    assert manifest_widget.layout.display == "none"
    slider, buttons = controls.children
    assert isinstance(slider, widgets.SelectionSlider) and isinstance(buttons, widgets.ToggleButtons)
    assert slider.index == 1 and buttons.index == 1
    # nested stacks: the outer one along n, each child along colour, leaves are the frames
    assert isinstance(view, widgets.Stack) and len(view.children) == 3
    assert view.selected_index == 1
    for i, inner in enumerate(view.children):
        assert isinstance(inner, widgets.Stack) and inner.selected_index == 1
        for j, image in enumerate(inner.children):
            assert isinstance(image, widgets.Image) and "rkm-frame" in image._dom_classes
            assert image.value == explorer.frames[i, j]
    links = {(link.source[0].model_id, link.source[1], link.target[0].model_id, link.target[1])
             for link in explorer._links}
    assert links == {(slider.model_id, "index", view.model_id, "selected_index")} | {
        (buttons.model_id, "index", inner.model_id, "selected_index") for inner in view.children}

    manifest = manifest_of(explorer)
    assert manifest["explorer"] == "Dots"
    assert manifest["controls"] == [
        {"name": "n", "description": "dots", "labels": ["1", "2", "3"], "values": [1, 2, 3]},
        {"name": "colour", "description": "colour", "labels": ["grey", "red"],
         "values": [False, True]},
    ]
    assert manifest["initial"] == [1, 1]
    assert len(manifest["frames"]) == 6


def test_manifest_hashes_are_the_rendered_frames():
    explorer = Dots()
    entries = {tuple(f["index"]): f["sha256"] for f in manifest_of(explorer)["frames"]}
    for state in explorer.states():
        png = explorer.render(**state)
        assert entries[explorer.indices(**state)] == hashlib.sha256(png).hexdigest()
    assert len(set(entries.values())) == 6  # every state looks different


def test_update_moves_controls_and_stacks_together():
    explorer = Dots()
    explorer.update(n=3, colour=True)
    assert explorer.state == {"n": 3, "colour": True}
    slider, buttons = explorer.widget.children[0].children
    view = explorer.widget.children[1]
    assert (slider.index, buttons.index, view.selected_index) == (2, 1, 2)
    assert all(inner.selected_index == 1 for inner in view.children)
    explorer.update(n=1)
    assert explorer.state == {"n": 1, "colour": True}
    with pytest.raises(ValueError, match="not on the explorer's ladder"):
        explorer.update(n=7)
    with pytest.raises(ValueError, match="unknown control"):
        explorer.update(size=1)


def test_update_before_the_widget_exists_sets_the_initial_state():
    explorer = Dots()
    explorer.update(colour=True)
    assert explorer.widget.children[0].children[1].index == 1


def test_text_form_is_one_deterministic_line():
    explorer = Dots()
    line = repr(explorer.widget)
    assert line == explorer.summary() == Dots().summary()
    assert line.startswith("Dots: dots in {1, 2, 3}; colour in {grey, red}; 6 frames of 100 x 75 px "
                           "at 1.5x")
    assert "pixels sha256 " in line and "\n" not in line
    bundle = explorer._repr_mimebundle_()
    assert bundle["text/plain"] == line
    assert "application/vnd.jupyter.widget-view+json" in bundle


# -- resolution and typeset labels -------------------------------------------------------------
def test_frames_are_drawn_at_scale_times_their_displayed_size():
    explorer = Dots()
    assert explorer.scale >= 1.5  # the book's browser test requires frames at >= 1.5x
    height, width, _ = decode(explorer.render()).shape
    shown = (int(round(explorer.figsize[0] * explorer.dpi)), int(round(explorer.figsize[1] * explorer.dpi)))
    assert (width, height) == (int(shown[0] * explorer.scale), int(shown[1] * explorer.scale))
    image = explorer.widget.children[1].children[0].children[0]
    # displayed at the design width, never wider than the column
    assert (image.layout.width, image.layout.max_width) == (f"{shown[0]}px", "100%")
    assert "rkm-view" in explorer.widget.children[1]._dom_classes

    class Plain(Dots):
        scale = 1

    assert decode(Plain().render()).shape[:2] == (shown[1], shown[0])


def test_tex_in_labels_becomes_mathjax_inline_math():
    assert tex_label(r"$U = \tilde U \Lambda^{1/2}$") == r"\(U = \tilde U \Lambda^{1/2}\)"
    assert tex_label(r"noise $\sigma^2$ (x $\lambda_q/N$)") == r"noise \(\sigma^2\) (x \(\lambda_q/N\))"
    assert tex_label("plain (15)") == "plain (15)"


class TexDots(Dots):
    def __init__(self):
        self.ladders = (Ladder("n", r"$n$ dots", (1, 2, 3)),
                        Ladder("colour", "colour", (False, True), (r"$c = 0$", r"$c = 1$"),
                               style="buttons"))
        self.initial = {"n": 2, "colour": False}


def test_typeset_labels_reach_the_widget_and_the_manifest():
    explorer = TexDots()
    slider, buttons = explorer.widget.children[0].children
    assert slider.description == r"\(n\) dots"
    assert buttons.options == ((r"\(c = 0\)", False), (r"\(c = 1\)", True))
    controls = manifest_of(explorer)["controls"]
    # the manifest names the labels as the page shows them (tests/test_widgets_stored.py)
    assert controls[0]["description"] == r"\(n\) dots"
    assert controls[1]["labels"] == [r"\(c = 0\)", r"\(c = 1\)"]
    # the text form (nbval's) keeps them as written
    assert explorer.summary().startswith(r"TexDots: $n$ dots in {1, 2, 3}; colour in {$c = 0$, $c = 1$}")
