"""Awkward inputs of NAR forecasting: series too short for the lag, a lag that cannot impute, a
one-view model. Each error names the parameter; where it gives advice, the test follows it."""

import re

import numpy as np
import pytest

from rkmlearn import KPCA, MultiViewKPCA, NARForecaster

def test_nar_on_three_values_gives_advice_that_works():
    series = np.array([1.0, 2.0, 0.5, 3.0, -1.0, 0.2, 1.7])
    with pytest.raises(ValueError, match="series has 3 value") as info:
        NARForecaster(MultiViewKPCA(2), 0).fit(series[:3])
    message = str(info.value)
    assert "lag=0 works" not in message
    length, lag = (int(re.search(p, message).group(1)) for p in (r"at least (\d+) values", r"lag=(\d+)"))
    forecast = NARForecaster(MultiViewKPCA(2), lag).fit(series[:length]).forecast(3)
    assert np.isfinite(forecast).all()


def test_nar_lag_that_cannot_impute_fails_in_fit_naming_lag():
    series = np.array([1.0, 2.0, 0.5, 3.0])
    with pytest.raises(ValueError, match=r"^lag=0: windows of lag \+ 1 = 1 value.*n_components=2.*fewer n_components"):
        NARForecaster(MultiViewKPCA(2), 0).fit(series)
    assert np.isfinite(NARForecaster(MultiViewKPCA(1), 0).fit(series).forecast(3)).all()


def test_nar_with_a_one_view_kpca_names_the_model():
    w = np.sin(2 * np.pi * np.arange(120) / 20)
    with pytest.raises(ValueError, match=r"model must be a two-view model.*MultiViewKPCA\(2\); got KPCA"):
        NARForecaster(KPCA(2), 5).fit(w)
    NARForecaster(MultiViewKPCA(2), 5).fit(w)
