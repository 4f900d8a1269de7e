"""Tests of :class:`rkmlearn.widgets.rescaling.RescalingExplorer` (Chapter 3, *Rescaling*).

The explorer is built once on a short sum of sines; the tests move its controls the way a reader
would and check that the plotted forecast and latent components are those of a direct fit.
"""
from __future__ import annotations

import base64

import matplotlib

matplotlib.use("Agg")

import ipywidgets as widgets  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from rkmlearn import MultiViewKPCA, NARForecaster  # noqa: E402
from rkmlearn.features import IdentityFeatures  # noqa: E402
from rkmlearn.widgets.rescaling import RescalingExplorer  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
LAG = 20


def _sines(n):
    # x(t) = sin(2 pi t) + 0.2 sin(2 pi 20 t), t = 0, 0.01, ...: a linear recursion of order 4
    t = 0.01 * np.arange(n)
    return np.sin(2 * np.pi * t) + 0.2 * np.sin(2 * np.pi * 20 * t)


@pytest.fixture(scope="module")
def series():
    x = _sines(260)
    return x[:200], x[200:]


@pytest.fixture(scope="module")
def explorer(series):
    return RescalingExplorer(*series, lag=LAG, max_components=4, components=2)


def _direct(series, s, rescale):
    model = MultiViewKPCA(s, setting="primal", rescale=rescale,
                          feature_maps=[IdentityFeatures(), IdentityFeatures()])
    fitted = NARForecaster(model, LAG).fit(series[0])
    return fitted.forecast(series[1].size), fitted.model_


def _shown_png(explorer) -> bytes:
    (output,) = explorer.output.outputs
    return base64.b64decode(output["data"]["image/png"])


def test_structure_and_initial_state(explorer):
    assert isinstance(explorer.widget, widgets.VBox)
    assert explorer.controls == {"rescale": explorer.rescale_toggle,
                                 "components": explorer.components_slider}
    assert explorer.components_slider.min == 1 and explorer.components_slider.max == 4
    assert explorer.components_slider.value == 2 and explorer.rescale_toggle.value is True
    assert _shown_png(explorer).startswith(PNG_SIGNATURE) and _shown_png(explorer) == explorer.png_
    assert repr(explorer.widget) == "RescalingExplorer(n_train=200, n_test=60, lag=20, max_components=4)"
    assert explorer.forecasts_.shape == (2, 4, 60)
    # lag p means windows of p + 1 values: T - p - 1 training windows, one latent row each
    assert explorer.latents_[1][1].shape == (explorer.series_train.size - LAG - 1, 2)
    assert explorer.ax_latent.get_xlim() == (0, explorer.series_train.size - LAG - 2)


def test_plotted_data_equal_direct_fits(series):
    ex = RescalingExplorer(*series, lag=LAG, max_components=4)
    for rescale in (True, False):
        for s in (1, 3, 4):
            png_before = ex.png_
            ex.update(rescale=rescale, components=s)
            forecast, model = _direct(series, s, rescale)
            np.testing.assert_allclose(ex.forecast_line.get_ydata(), forecast, rtol=0, atol=1e-10)
            drawn = [np.asarray(line.get_ydata()) for line in ex.latent_lines]
            for k in range(4):
                if k < s:
                    np.testing.assert_allclose(drawn[k], model.H_[:, k], rtol=0, atol=1e-12)
                else:
                    assert drawn[k].size == 0
            assert ex.png_ != png_before


def test_moving_the_slider_changes_the_forecast(series):
    ex = RescalingExplorer(*series, lag=LAG, max_components=4, components=1)
    before = np.array(ex.forecast_line.get_ydata())
    ex.components_slider.value = 4  # what moving the slider does
    after = np.asarray(ex.forecast_line.get_ydata())
    assert not np.allclose(before, after)
    np.testing.assert_allclose(after, _direct(series, 4, True)[0], atol=1e-10)
    ex.rescale_toggle.value = False  # what clicking the toggle does
    np.testing.assert_allclose(ex.forecast_line.get_ydata(), _direct(series, 4, False)[0], atol=1e-10)


def test_the_figure_shows_what_chapter_3_claims(explorer, series):
    # rescaled s = 4 forecast is exact, the unrescaled one collapses; H scales by Lambda^{-1/2}
    assert explorer.mse_[1, 3] < 1e-20
    assert explorer.mse_[0, 3] >= 100 * max(explorer.mse_[1, 3], 1e-30)
    assert np.std(explorer.forecasts_[0, 3]) < 0.1 * np.std(series[1])
    H_raw, H = explorer.latents_[0][3], explorer.latents_[1][3]
    np.testing.assert_allclose(H_raw, H / np.sqrt(explorer.eigenvalues_), rtol=1e-8, atol=1e-14)


def test_fast_update_matches_full_render(series):
    ex = RescalingExplorer(*series, lag=LAG, max_components=4, components=2)
    ex.update(components=3)
    assert ex.last_render_ == "fast"
    fast = ex.png_
    reference = RescalingExplorer(*series, lag=LAG, max_components=4, components=3)
    reference.fast_updates = False
    reference.update(components=3)
    assert reference.last_render_ == "full"
    assert fast == reference.png_
    # toggling the rescaling keeps the axes' limits: also a blitted update, same pixels
    ex.update(rescale=False)
    assert ex.last_render_ == "fast"
    reference.update(rescale=False)
    assert ex.png_ == reference.png_
    assert ex.ax_latent.get_ylim() == reference.ax_latent.get_ylim()


@pytest.mark.parametrize("kwargs, match", [
    ({"lag": -1}, "lag"),
    ({"lag": 199}, "lag"),  # 200 training values: windows of 200 leave no next value
    ({"max_components": 0}, "max_components"),
    ({"components": 5}, "components"),
    ({"rescale": "yes"}, "rescale"),
])
def test_rejects_bad_parameters(series, kwargs, match):
    with pytest.raises(ValueError, match=match):
        RescalingExplorer(*series, **{"lag": LAG, **kwargs})


def test_rejects_bad_series_and_values(explorer, series):
    with pytest.raises(ValueError, match="series_train"):
        RescalingExplorer(np.ones((10, 2)), series[1], lag=3)
    with pytest.raises(ValueError, match="components=7 is outside"):
        explorer.update(components=7)
