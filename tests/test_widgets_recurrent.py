"""Tests of :class:`rkmlearn.widgets.recurrent.RecurrentAblationExplorer` (Chapter 10, Fig. 3)."""
from __future__ import annotations

import numpy as np
import pytest

from explorer_contract import assert_explorer_contract
from rkmlearn import RecurrentRKM
from rkmlearn.widgets.recurrent import RecurrentAblationExplorer


@pytest.fixture(scope="module")
def series():
    t = np.arange(150)
    x = np.sin(2 * np.pi * t / 13) + 0.3 * np.cos(2 * np.pi * t / 5)
    return x[:120], x[120:]


@pytest.fixture(scope="module")
def explorer(series):
    return RecurrentAblationExplorer(*series, sigma_x=(0.5, 2.0), sigma_t=(1.0,), components=(2, 3))


def test_ladders_and_initial_state(explorer):
    assert explorer.names == ("sigma_x", "sigma_t", "s")
    assert [ladder.values for ladder in explorer.ladders] == [(0.5, 2.0), (1.0,), (2, 3)]
    assert explorer.initial == {"sigma_x": 2.0, "sigma_t": 1.0, "s": 2}
    # labels in typeset maths (issue 18), not ASCII such as "σx"
    assert [ladder.description for ladder in explorer.ladders] == [r"$\sigma_x$", r"$\sigma_t$", "$s$"]


@pytest.mark.parametrize("sigma_x, s", [(0.5, 2), (2.0, 3)])
def test_each_state_is_a_direct_fit(series, explorer, sigma_x, s):
    model = RecurrentRKM(s, kernel_params={"sigma": sigma_x}, lag_weights="gaussian", p=1, sigma_t=1.0).fit(series[0])
    data = explorer.state_data(sigma_x=sigma_x, sigma_t=1.0, s=s)
    forecast = model.forecast(series[1].size)
    np.testing.assert_allclose(data["forecast"], forecast, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(data["latents"], model.forecast_latents(series[1].size), rtol=1e-10, atol=1e-12)
    assert data["mse"] == pytest.approx(np.mean((forecast - series[1]) ** 2), rel=1e-9)


def test_title_says_the_state(explorer):
    figure = explorer.figure(sigma_x=0.5, sigma_t=1.0, s=3)
    assert "σx = 0.5, σt = 1, s = 3: MSE" in figure.axes[0].get_title()


def test_frames_keep_the_contract(series):
    small = RecurrentAblationExplorer(*series, sigma_x=(1.0,), sigma_t=(0.5, 1.0), components=(2,))
    assert_explorer_contract(small)


@pytest.mark.parametrize("kwargs, match", [
    ({"sigma_x": (0.0,)}, "sigma_x"),
    ({"sigma_t": (-1.0,)}, "sigma_t"),
    ({"components": (0,)}, "components"),
    ({"components": ()}, "components"),
    ({"p": 0}, "p"),
])
def test_rejects_bad_parameters(series, kwargs, match):
    with pytest.raises(ValueError, match=match):
        RecurrentAblationExplorer(*series, **kwargs)


def test_rejects_bad_series(series):
    with pytest.raises(ValueError, match="series_train"):
        RecurrentAblationExplorer(np.ones((10, 2)), series[1])
