"""Tests of rkmlearn.forecasting: the recursive loop once (RecursiveForecaster) and NAR forecasting
with any two-view model (NARForecaster), duck-typed."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator

from rkmlearn import MultiViewKPCA, NARForecaster, RecursiveForecaster
from rkmlearn.datasets import sum_of_sines


class LeastSquaresImputer(BaseEstimator):
    """The smallest model NARForecaster accepts: fit(list of 2 views), predict_view(views, target)."""

    def fit(self, Xs, y=None):
        X, Y = Xs
        self.coef_ = np.linalg.lstsq(np.c_[X, np.ones(len(X))], Y, rcond=None)[0]
        return self

    def predict_view(self, Xs, target):
        assert target == 1 and Xs[1] is None
        return np.c_[Xs[0], np.ones(len(Xs[0]))] @ self.coef_


def ar2_series(T=120):
    """x_t = 1.6 x_{t-1} - 0.8 x_{t-2} + 0.3: a linear recursion a linear model forecasts exactly."""
    x = [1.0, 0.5]
    for _ in range(T - 2):
        x.append(1.6 * x[-1] - 0.8 * x[-2] + 0.3)
    return np.array(x)


def test_duck_typed_model_forecasts_a_linear_recursion_exactly():
    x = ar2_series(140)
    f = NARForecaster(LeastSquaresImputer(), lag=1).fit(x[:100])
    assert not hasattr(f.model_, "view_predictor")  # the plain predict_view route
    np.testing.assert_allclose(f.forecast(40), x[100:], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(f.forecast(5, history=x[:60]), x[60:65], rtol=1e-9, atol=1e-9)


def test_model_without_predict_view_is_rejected():
    with pytest.raises(ValueError, match=r"model must be a two-view model with fit\(list_of_2_views\) and predict_view"):
        NARForecaster(object(), lag=2).fit(np.arange(10.0))


def test_view_predictor_route_equals_predict_view_step_by_step():
    sines = sum_of_sines()
    f = NARForecaster(MultiViewKPCA(4), 40).fit(sines.train)
    window = (sines.train[-41:] - f.mean_) / f.scale_
    manual = []
    for _ in range(25):  # the recursion written with the validated public method
        manual.append(f.model_.predict_view([window[None, :], None], target=1)[0, 0])
        window = np.append(window[1:], manual[-1])
    np.testing.assert_array_equal(f.forecast(25), np.array(manual) * f.scale_ + f.mean_)


class Doubling(RecursiveForecaster):
    """A recursion with a vector state: the base class owns the loop, this class one step."""

    _fitted = "start_"

    def fit(self, start):
        self.start_ = np.asarray(start, dtype=float)
        return self

    def _start(self, history):
        return self.start_ if history is None else np.asarray(history, dtype=float)

    def _step(self, state):
        state = 2.0 * state
        return state, state


def test_recursive_forecaster_subclass_implements_one_step():
    model = Doubling().fit([1.0, -1.0])
    np.testing.assert_array_equal(model.forecast(3), [[2, -2], [4, -4], [8, -8]])
    np.testing.assert_array_equal(model.forecast(1, history=[3.0, 0.0]), [[6.0, 0.0]])
    with pytest.raises(ValueError, match="steps"):
        model.forecast(0)
    with pytest.raises(ValueError, match="progress must be True or False"):
        model.forecast(2, progress="yes")


def test_progress_bar_for_long_horizons(capsys):
    model = Doubling().fit([0.0])
    model.forecast(10, progress=True)
    assert "Doubling.forecast" in capsys.readouterr().err
    model.forecast(10)  # short: no bar by default
    assert capsys.readouterr().err == ""
    model.forecast(Doubling.PROGRESS_FROM)  # long: a bar by default
    assert "Doubling.forecast" in capsys.readouterr().err
    model.forecast(Doubling.PROGRESS_FROM, progress=False)
    assert capsys.readouterr().err == ""
