"""Tests of the interactive explorers in :mod:`rkmlearn.widgets`.

Each test builds an explorer with the Agg backend, moves a control the way a reader would (by
setting the slider's ``.value``, or through ``update``), and checks that the plotted data changed
and equals a direct computation of what the figure claims to show.
"""
from __future__ import annotations

import base64

import matplotlib

matplotlib.use("Agg")

import ipywidgets as widgets  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from rkmlearn.features import RandomFourierFeatures  # noqa: E402
from rkmlearn.kernels import RBF  # noqa: E402
from rkmlearn.widgets import (  # noqa: E402
    FenchelYoungExplorer,
    RFFConvergenceExplorer,
    fenchel_young_sides,
)

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
