"""Tests of the interactive explorers in :mod:`rkmlearn.widgets`.

Each test builds an explorer with the Agg backend, moves a control the way a reader would (by
setting the slider's ``.value``, or through ``update``), and checks that the plotted data changed
and equals a direct computation of what the figure claims to show.
"""
from __future__ import annotations

import base64
import io

import matplotlib

matplotlib.use("Agg")

import ipywidgets as widgets  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra.numpy import arrays  # noqa: E402
from PIL import Image  # noqa: E402

from rkmlearn.features import RandomFourierFeatures  # noqa: E402
from rkmlearn.kernels import RBF  # noqa: E402
from rkmlearn.widgets import (  # noqa: E402
    FenchelYoungExplorer,
    RFFConvergenceExplorer,
    fenchel_young_sides,
)
from rkmlearn.widgets import _base, duality, kernels  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def data():
    return np.random.default_rng(0).normal(size=(60, 3))


@pytest.fixture(scope="module")
def rff_explorer(data):
    return RFFConvergenceExplorer(data, sigma=1.5, max_features=512, n_features=8,
                                  random_state=3)


def _shown_png(explorer) -> bytes:
    """The PNG currently displayed by the explorer's Output widget."""
    (output,) = explorer.output.outputs
    return base64.b64decode(output["data"]["image/png"])


# -- RFFConvergenceExplorer -------------------------------------------------------------------
def test_rff_explorer_structure(rff_explorer):
    ex = rff_explorer
    assert isinstance(ex.widget, widgets.VBox)
    assert ex.controls == {"n_features": ex.n_features_slider}
    assert ex.n_features_slider.min == 1 and ex.n_features_slider.max == 512
    assert ex.n_features_slider in ex.widget.children[0].children
    assert ex.output in ex.widget.children
    # The initial figure is in the Output widget (what the static HTML book shows).
    assert _shown_png(ex).startswith(PNG_SIGNATURE)
    assert _shown_png(ex) == ex.png_
    # Short, deterministic text representation (no PNG bytes in text/plain).
    assert repr(ex.widget) == repr(ex) == (
        "RFFConvergenceExplorer(n_samples=60, sigma=1.5, max_features=512)"
    )
    assert ex._repr_mimebundle_()["text/plain"] == repr(ex)


def test_rff_explorer_exact_gram_and_draw(data, rff_explorer):
    ex = rff_explorer
    np.testing.assert_allclose(ex.exact_gram_, RBF(sigma=1.5)(data), rtol=0, atol=1e-15)
    np.testing.assert_array_equal(ex.exact_image.get_array(), ex.exact_gram_)
    Z = RandomFourierFeatures(sigma=1.5, n_features=512, random_state=3).fit_transform(data)
    np.testing.assert_array_equal(ex.features_, Z)


@pytest.mark.parametrize("d", [1, 37, 512])
def test_rff_slider_updates_plot(data, d):
    ex = RFFConvergenceExplorer(data, sigma=1.5, max_features=512, n_features=8,
                                random_state=3)
    before = np.array(ex.approx_image.get_array())
    png_before = ex.png_
    ex.n_features_slider.value = d  # what moving the slider does
    plotted = np.asarray(ex.approx_image.get_array())
    assert not np.array_equal(plotted, before)
    assert ex.png_ != png_before and _shown_png(ex) == ex.png_

    # Direct computation: D features with the same draw, z(x) = sqrt(2/D) cos(Omega_D^T x + b_D).
    rff = RandomFourierFeatures(sigma=1.5, n_features=512, random_state=3).fit(data)
    Z_d = np.sqrt(2.0 / d) * np.cos(data @ rff.omega_[:, :d] + rff.offset_[:d])
    expected = Z_d @ Z_d.T
    np.testing.assert_allclose(plotted, expected, rtol=1e-12, atol=1e-12)
    exact = RBF(sigma=1.5)(data)
    error = np.linalg.norm(expected - exact) / np.linalg.norm(exact)
    assert ex.error_ == pytest.approx(error, rel=1e-12)
    x_marker, y_marker = ex.error_marker.get_data()
    assert list(x_marker) == [d]
    assert y_marker[0] == pytest.approx(error, rel=1e-12)
    assert f"D = {d}" in ex.ax_approx.get_title()


def test_rff_error_curve_decreases_like_inverse_sqrt(data, rff_explorer):
    ex = rff_explorer
    d, err = ex.grid_features_, ex.grid_errors_
    assert d[0] == 1 and d[-1] == 512 and np.all(np.diff(d) > 0)
    for k in (0, len(d) // 2, len(d) - 1):
        expected = np.linalg.norm(ex.approx_gram(int(d[k])) - ex.exact_gram_) / np.linalg.norm(
            ex.exact_gram_)
        assert err[k] == pytest.approx(expected, rel=1e-12)
    slope = np.polyfit(np.log(d), np.log(err), 1)[0]
    assert -0.75 < slope < -0.3
    assert err[-1] < 0.25 * err[0]


def test_rff_update_sets_and_validates(data):
    ex = RFFConvergenceExplorer(data, sigma=1.5, max_features=64, random_state=0)
    ex.update(n_features=64)
    assert ex.n_features_slider.value == 64
    np.testing.assert_allclose(ex.approx_image.get_array(), ex.features_ @ ex.features_.T,
                               rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="outside the control's range"):
        ex.update(n_features=65)
    with pytest.raises(ValueError, match="unknown control 'sigma'"):
        ex.update(sigma=2.0)
    assert ex.n_features_slider.value == 64  # a rejected update changes nothing


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"sigma": 0.0}, "sigma"),
        ({"sigma": 1.0, "max_features": 0}, "max_features"),
        ({"sigma": 1.0, "max_features": 10, "n_features": 11}, "n_features"),
        ({"sigma": 1.0, "max_features": 2.5}, "max_features"),
    ],
)
def test_rff_explorer_rejects_bad_parameters(data, kwargs, match):
    with pytest.raises(ValueError, match=match):
        RFFConvergenceExplorer(data, **kwargs)


def test_rff_explorer_rejects_bad_data():
    with pytest.raises(ValueError, match="X"):
        RFFConvergenceExplorer([[0.0, np.nan], [1.0, 2.0]], sigma=1.0, max_features=4)
    with pytest.raises(ValueError, match="X"):
        RFFConvergenceExplorer(np.zeros(5), sigma=1.0, max_features=4)


# -- Fenchel-Young ----------------------------------------------------------------------------
def test_fenchel_young_sides_inequality_and_tightness():
    rng = np.random.default_rng(1)
    e = rng.normal(size=(1000, 4))
    h = rng.normal(size=(1000, 4))
    for lam in (0.1, 1.0, 7.5):
        product, bound, gap = fenchel_young_sides(e, h, lam)
        np.testing.assert_allclose(product, np.einsum("ij,ij->i", e, h), rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(bound - product, gap, rtol=1e-10, atol=1e-12)
        assert np.all(gap >= 0) and np.all(bound >= product - 1e-12)
        product_t, bound_t, gap_t = fenchel_young_sides(e, e / lam, lam)
        np.testing.assert_allclose(product_t, bound_t, rtol=1e-12)
        np.testing.assert_allclose(gap_t, 0.0, atol=1e-12)


@pytest.mark.parametrize("lam", [0.0, -1.0, np.nan, np.inf, True])
def test_fenchel_young_sides_rejects_bad_lambda(lam):
    with pytest.raises(ValueError, match="lam"):
        fenchel_young_sides(1.0, 1.0, lam)


def test_fenchel_young_sides_rejects_nonfinite():
    with pytest.raises(ValueError, match="finite"):
        fenchel_young_sides([1.0, np.inf], [1.0, 2.0], 1.0)


def _check_fy_plot(ex, lam, e):
    grid = ex.h_grid_
    np.testing.assert_allclose(ex.product_line.get_xdata(), grid)
    np.testing.assert_allclose(ex.product_line.get_ydata(), e * grid, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(ex.bound_line.get_ydata(),
                               e**2 / (2 * lam) + lam / 2 * grid**2, rtol=1e-12)
    np.testing.assert_allclose(ex.gap_line.get_ydata(), lam / 2 * (grid - e / lam) ** 2,
                               rtol=1e-10, atol=1e-12)
    h_star = e / lam
    assert np.any(grid == h_star)  # the tight point is on the plotted grid
    assert ex.tight_point_ == pytest.approx((h_star, e**2 / lam), rel=1e-12)
    x, y = ex.tight_marker.get_data()
    assert x[0] == pytest.approx(h_star) and y[0] == pytest.approx(e**2 / lam)
    # The plotted bound touches the line exactly at the marked point and nowhere else.
    gap = ex.bound_line.get_ydata() - ex.product_line.get_ydata()
    assert np.all(gap >= -1e-12)
    assert grid[np.argmin(gap)] == pytest.approx(h_star)


def test_fy_explorer_initial_figure():
    ex = FenchelYoungExplorer(lam=2.0, e=1.0)
    assert ex.controls == {"lam": ex.lambda_slider, "e": ex.e_slider}
    assert ex.lambda_slider.value == pytest.approx(2.0)
    _check_fy_plot(ex, 2.0, 1.0)
    assert _shown_png(ex).startswith(PNG_SIGNATURE)
    assert repr(ex.widget) == "FenchelYoungExplorer(n_grid=401)"


@pytest.mark.parametrize("lam", [0.1, 0.5, 10.0])
def test_fy_lambda_slider_updates_plot(lam):
    ex = FenchelYoungExplorer(lam=1.0, e=1.5)
    before = np.array(ex.bound_line.get_ydata())
    png_before = ex.png_
    ex.lambda_slider.value = lam
    lam = ex.lambda_slider.value  # the slider's own value (log-scale rounding)
    assert not np.array_equal(np.asarray(ex.bound_line.get_ydata()), before)
    assert ex.png_ != png_before and _shown_png(ex) == ex.png_
    _check_fy_plot(ex, lam, 1.5)


def test_fy_e_slider_and_update():
    ex = FenchelYoungExplorer()
    before = np.array(ex.product_line.get_ydata())
    ex.e_slider.value = -1.25
    assert not np.array_equal(np.asarray(ex.product_line.get_ydata()), before)
    _check_fy_plot(ex, 1.0, -1.25)
    ex.update(lam=4.0, e=2.0)
    _check_fy_plot(ex, 4.0, 2.0)
    with pytest.raises(ValueError, match="lam=20"):
        ex.update(lam=20.0)
    with pytest.raises(ValueError, match="unknown control"):
        ex.update(sigma=1.0)
    _check_fy_plot(ex, 4.0, 2.0)


@pytest.mark.parametrize(
    "kwargs, match",
    [({"lam": 0.0}, "lam"), ({"lam": 11.0}, "lam"), ({"e": 3.0}, "e"), ({"n_grid": 2}, "n_grid")],
)
def test_fy_explorer_rejects_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        FenchelYoungExplorer(**kwargs)



# -- fast path: PNG encoder, blitting, fallback -----------------------------------------------
def _pixels(png: bytes) -> np.ndarray:
    """Decoded RGBA pixels of a PNG file."""
    with Image.open(io.BytesIO(png)) as image:
        return np.asarray(image.convert("RGBA"))


def _full_render(explorer) -> np.ndarray:
    """Pixels of a fresh full draw of the explorer's figure in its current state.

    ``savefig`` draws every artist through matplotlib's own code path and encoder, independent
    of the explorer's background cache and PNG writer.
    """
    buffer = io.BytesIO()
    explorer.figure.savefig(buffer, format="png", dpi=explorer.dpi)
    return _pixels(buffer.getvalue())


@settings(max_examples=40, deadline=None)
@given(
    rgba=arrays(np.uint8, st.tuples(st.integers(1, 9), st.integers(1, 9), st.just(4))),
    level=st.integers(0, 9),
)
def test_encode_png_decodes_to_the_same_pixels(rgba, level):
    png = _base.encode_png(rgba, level)
    assert png.startswith(PNG_SIGNATURE)
    np.testing.assert_array_equal(_pixels(png), rgba)


def test_encode_png_of_a_figure_buffer():
    ex = FenchelYoungExplorer()
    rgba = np.asarray(ex.figure.canvas.buffer_rgba())
    np.testing.assert_array_equal(_pixels(ex.png_), rgba)
    # Level 1 still compresses a figure: far below the raw 4 bytes per pixel.
    assert len(ex.png_) < 0.2 * rgba.nbytes


@pytest.mark.parametrize(
    "rgba, level, match",
    [
        (np.zeros((4, 4, 3), np.uint8), 1, "rgba"),
        (np.zeros((4, 4, 4), np.float64), 1, "rgba"),
        (np.zeros((0, 4, 4), np.uint8), 1, "rgba"),
        (np.zeros((4, 4, 4), np.uint8), 10, "compress_level"),
        (np.zeros((4, 4, 4), np.uint8), 1.0, "compress_level"),
        (np.zeros((4, 4, 4), np.uint8), True, "compress_level"),
    ],
)
def test_encode_png_rejects_bad_input(rgba, level, match):
    with pytest.raises(ValueError, match=match):
        _base.encode_png(rgba, level)


def _rff_small(fast_updates=True):
    X = np.random.default_rng(0).normal(size=(60, 3))
    ex = RFFConvergenceExplorer(X, sigma=1.5, max_features=512, n_features=8, random_state=3)
    ex.fast_updates = fast_updates
    return ex


def _fy(fast_updates=True):
    ex = FenchelYoungExplorer(lam=1.0, e=1.5)
    ex.fast_updates = fast_updates
    return ex


# Updates chosen to take both paths: small moves (blitted) and jumps that change FY's limits.
RFF_STEPS = [{"n_features": d} for d in (300, 65, 1, 512)]
FY_STEPS = [{"lam": 1.12}, {"e": 1.45}, {"lam": 0.2, "e": -0.7}, {"e": -0.75}, {"lam": 10.0},
            {"e": 0.0}, {"e": 0.05}]


@pytest.mark.parametrize("build, steps", [(_rff_small, RFF_STEPS), (_fy, FY_STEPS)],
                         ids=["rff", "fenchel-young"])
def test_blitted_png_equals_a_full_render(build, steps):
    ex = build()
    paths = []
    for values in steps:
        ex.update(**values)
        paths.append(ex.last_render_)
        # Exact equality: the blitted pixels are those of a full draw, not an approximation.
        np.testing.assert_array_equal(_pixels(ex.png_), _full_render(ex))
        assert _shown_png(ex) == ex.png_
    assert "fast" in paths


@pytest.mark.parametrize("build, steps", [(_rff_small, RFF_STEPS), (_fy, FY_STEPS)],
                         ids=["rff", "fenchel-young"])
def test_fast_and_full_updates_give_identical_pngs(build, steps):
    fast, full = build(True), build(False)
    assert fast.png_ == full.png_
    for values in steps:
        fast.update(**values)
        full.update(**values)
        assert full.last_render_ == "full"
        assert fast.png_ == full.png_


def test_rff_updates_take_the_fast_path_and_change_only_the_dynamic_pixels():
    ex = _rff_small()
    assert ex.last_render_ == "full"  # the first render builds the background
    before = _pixels(ex.png_)
    ex.n_features_slider.value = 200
    assert ex.last_render_ == "fast"
    changed = np.any(_pixels(ex.png_) != before, axis=-1)
    # The approximate heat map changed; the exact one (static) did not.
    renderer = ex.figure.canvas.get_renderer()
    height = ex.figure.canvas.get_width_height()[1]

    def box(artist):
        x0, y0, x1, y1 = artist.get_window_extent(renderer).extents
        return slice(int(height - y1) + 1, int(height - y0) - 1), slice(int(x0) + 1, int(x1) - 1)

    assert changed[box(ex.approx_image)].mean() > 0.5
    assert not changed[box(ex.exact_image)].any()


def test_fy_small_step_blits_and_limit_change_redraws_everything():
    ex = _fy()
    ex.update(lam=1.12)  # h* = 1.34, limits stay on the same ladder step
    assert ex.last_render_ == "fast"
    limits = ex.ax_sides.get_ylim()
    ex.update(lam=0.1)  # h* = 15: the x range must grow
    assert ex.last_render_ == "full"
    assert ex.ax_sides.get_ylim() != limits
    assert ex.ax_sides.get_xlim()[1] >= 15


class _AutoscalingExplorer(_base.BaseExplorer):
    """A minimal explorer whose ``_redraw`` autoscales: its limits follow the slider."""

    def __init__(self):
        super().__init__()
        self.scale_slider = widgets.FloatSlider(value=1.0, min=0.5, max=8.0, step=0.5)
        self.controls = {"scale": self.scale_slider}
        self.figure = self._new_figure((3.0, 2.0))
        self.ax = self.figure.subplots()
        self.line, = self.ax.plot([], [])
        self._mark_dynamic(self.line)
        self._finish_init()

    def _redraw(self):
        x = np.linspace(0.0, 1.0, 20)
        self.line.set_data(x, self.scale_slider.value * x**2)
        self.ax.relim()
        self.ax.autoscale_view()


def test_limit_change_from_autoscale_falls_back_to_a_full_draw():
    ex = _AutoscalingExplorer()
    ex.update(scale=4.0)
    assert ex.last_render_ == "full"  # the y limits followed the data
    assert ex.ax.get_ylim()[1] > 3.9
    np.testing.assert_array_equal(_pixels(ex.png_), _full_render(ex))
    ex.update(scale=4.0)  # same state: nothing but the dynamic line may be redrawn
    assert ex.last_render_ == "fast"
    np.testing.assert_array_equal(_pixels(ex.png_), _full_render(ex))


def test_explorer_without_dynamic_artists_always_draws_in_full():
    class Undeclared(_AutoscalingExplorer):
        def _mark_dynamic(self, *artists):  # a subclass that never declares its artists
            pass

    ex = Undeclared()
    for scale in (1.0, 1.0, 2.0):
        ex.update(scale=scale)
        assert ex.last_render_ == "full"
        np.testing.assert_array_equal(_pixels(ex.png_), _full_render(ex))


def test_invalidate_background_forces_a_full_draw():
    ex = _AutoscalingExplorer()
    ex.update(scale=1.0)
    assert ex.last_render_ == "fast"
    ex.ax.set_facecolor("0.9")  # a static change the explorer announces
    ex._invalidate_background()
    ex.update(scale=1.0)
    assert ex.last_render_ == "full"
    np.testing.assert_array_equal(_pixels(ex.png_), _full_render(ex))


def test_mark_dynamic_rejects_artists_that_cannot_be_redrawn_alone():
    ex = _fy()
    legend_text = ex.ax_sides.get_legend().get_texts()[0]
    with pytest.raises(ValueError, match="not a direct child"):
        ex._mark_dynamic(legend_text)
    other = FenchelYoungExplorer()
    with pytest.raises(ValueError, match="mark its parent"):
        ex._mark_dynamic(other.product_line)


# -- RFF prefix Gram matrices -----------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(d=st.integers(1, 512))
def test_rff_approx_gram_equals_a_direct_product(rff_explorer, d):
    block = rff_explorer.features_[:, :d]
    np.testing.assert_allclose(rff_explorer.approx_gram(d), (512 / d) * (block @ block.T),
                               rtol=1e-12, atol=1e-13)


def test_rff_approx_gram_is_bitwise_direct_below_and_on_checkpoints(rff_explorer):
    # What Chapter 1 prints as "max |explorer - by hand| = 0.0e+00".
    step = rff_explorer._checkpoint_step
    for d in (1, 16, step - 1, step):
        block = rff_explorer.features_[:, :d]
        np.testing.assert_array_equal(rff_explorer.approx_gram(d), (512 / d) * (block @ block.T))


def test_rff_prefix_grams_respect_the_memory_cap(monkeypatch, data):
    features = RandomFourierFeatures(sigma=1.0, n_features=1100,
                                     random_state=0).fit_transform(data)
    step, grams = kernels._prefix_grams(features)
    assert step == kernels._MIN_CHECKPOINT_STEP and len(grams) == 1100 // step
    for k, gram in enumerate(grams, start=1):
        block = features[:, :k * step]
        np.testing.assert_allclose(gram, block @ block.T, rtol=1e-12, atol=1e-13)
    matrix_bytes = 8 * data.shape[0] ** 2
    for room in (2, 1, 0):  # room for this many matrices: the step grows, fewer are stored
        monkeypatch.setattr(kernels, "_PREFIX_GRAM_BYTES", room * matrix_bytes)
        step, grams = kernels._prefix_grams(features)
        assert len(grams) <= room and step & (step - 1) == 0
        assert len(grams) == 1100 // step
        if room == 0:
            assert step > 1100


# -- Fenchel-Young axis limits ----------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(value=st.floats(1e-6, 1e6))
def test_nice_ceil_is_the_next_ladder_value(value):
    nice = duality._nice_ceil(value)
    assert nice >= value * (1 - 1e-9)
    # The ladder's largest ratio between neighbours is 5/3, so the data fill > 3/5 of it.
    assert nice <= value * 5 / 3 * (1 + 1e-9)
    mantissa = nice / 10 ** np.floor(np.log10(nice) + 1e-12)
    assert min(abs(mantissa - m) for m in duality._NICE_MANTISSAS) < 1e-9


@settings(max_examples=20, deadline=None)
@given(lam_index=st.integers(0, 40), e_index=st.integers(0, 80))
def test_fy_limits_contain_the_plot_and_are_filled(lam_index, e_index):
    ex = _FY_SHARED
    ex.update(lam=float(10 ** (-1 + 0.05 * lam_index)), e=-2.0 + 0.05 * e_index)
    for ax, lines in ((ex.ax_sides, (ex.product_line, ex.bound_line, ex.tight_marker)),
                      (ex.ax_gap, (ex.gap_line, ex.gap_marker))):
        (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
        x = np.concatenate([line.get_xdata() for line in lines])
        y = np.concatenate([line.get_ydata() for line in lines])
        assert x0 < x.min() and x.max() < x1 and y0 < y.min() and y.max() < y1
        assert x.max() - x.min() > 0.9 * (x1 - x0)
        # Not much empty space (the ladder's widest step is 5/3, plus 5 % margins; the worst
        # case over the whole slider grid is 0.54), and 0 is inside the view.
        assert y.max() > 0.5 * y1 and y0 < 0 < y1
        assert y.max() - y.min() > 0.5 * (y1 - y0)


_FY_SHARED = FenchelYoungExplorer()
