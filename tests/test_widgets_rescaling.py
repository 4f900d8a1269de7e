"""Tests of :class:`rkmlearn.widgets.rescaling.RescalingExplorer` (Chapter 3, *Rescaling*).

The explorer is built once on a short sum of sines; the tests check that each state's forecast
and latent components are those of a direct fit, that the frames say what Chapter 3 claims, and
that the widget keeps the frame-explorer contract.
"""
from __future__ import annotations

import numpy as np
import pytest

from explorer_contract import assert_explorer_contract
from rkmlearn import MultiViewKPCA, NARForecaster
from rkmlearn.features import IdentityFeatures
from rkmlearn.widgets.rescaling import RescalingExplorer

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


def test_ladders_and_initial_state(explorer):
    assert explorer.names == ("rescale", "components")
    assert explorer.ladders[0].values == (True, False)
    assert explorer.ladders[0].style == "buttons"
    assert explorer.ladders[1].values == (1, 2, 3, 4)
    assert explorer.initial == {"rescale": True, "components": 2}


@pytest.mark.parametrize("rescale", [True, False])
@pytest.mark.parametrize("s", [1, 4])
def test_each_state_is_a_direct_fit(series, explorer, rescale, s):
    forecast, model = _direct(series, s, rescale)
    r = int(rescale)
    np.testing.assert_allclose(explorer.forecasts_[r, s - 1], forecast, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(explorer.latents_[r][s - 1], model.H_, rtol=1e-10, atol=1e-12)
    assert explorer.mse_[r, s - 1] == pytest.approx(np.mean((forecast - series[1]) ** 2),
                                                    rel=1e-9, abs=1e-25)


def test_what_chapter_3_claims(explorer):
    # rescaled with s = 4: exact; without rescaling: the forecast collapses for every s
    assert explorer.mse_[1, -1] < 1e-20
    assert np.all(explorer.mse_[0] > 1e6 * explorer.mse_[1, -1])
    # without rescaling the latent components are scaled by Lambda^{-1/2}
    lam = explorer.eigenvalues_
    np.testing.assert_allclose(np.abs(explorer.latents_[0][-1]) * np.sqrt(lam),
                               np.abs(explorer.latents_[1][-1]), rtol=1e-8, atol=1e-10)


def test_the_exact_forecast_prints_a_bound_not_rounding_digits(explorer):
    figure = explorer.figure(rescale=True, components=4)
    titles = " ".join(ax.get_title() for ax in figure.axes)
    assert "forecast MSE <= 1e-20" in titles


def test_frames_keep_the_contract(series):
    small = RescalingExplorer(*series, lag=LAG, max_components=2)
    assert_explorer_contract(small)


@pytest.mark.parametrize("kwargs, match", [
    ({"lag": -1}, "lag"),
    ({"max_components": 0}, "max_components"),
    ({"components": 5}, "not on the explorer's ladder"),
    ({"rescale": "yes"}, "rescale"),
])
def test_rejects_bad_parameters(series, kwargs, match):
    with pytest.raises(ValueError, match=match):
        RescalingExplorer(*series, **kwargs)


def test_rejects_bad_series(series):
    with pytest.raises(ValueError, match="series_train"):
        RescalingExplorer(np.ones((10, 2)), series[1])


def test_latent_panel_is_readable(explorer):
    # Chapter 3's explorer drew all training windows, the fast components became solid bands,
    # and the legend sat on the curves: now the first LATENT_WINDOWS windows, legend beside.
    from rkmlearn.widgets.rescaling import LATENT_WINDOWS

    figure = explorer.figure(rescale=False, components=4)
    ax_latent = figure.axes[1]
    assert all(len(line.get_xdata()) <= LATENT_WINDOWS for line in ax_latent.get_lines())
    figure.canvas.draw()
    legend = ax_latent.get_legend().get_window_extent()
    assert legend.x0 >= ax_latent.get_window_extent().x1 - 1  # right of the axes
