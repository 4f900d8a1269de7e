"""Tests of the Chapter 1 explorers: :class:`RFFConvergenceExplorer` and :class:`FenchelYoungExplorer`.

Each test builds an explorer on small data and checks that what a frame shows equals a direct
computation, and that the widget keeps the frame-explorer contract (tests/explorer_contract.py).
"""
from __future__ import annotations

import numpy as np
import pytest

from explorer_contract import assert_explorer_contract
from rkmlearn.features import RandomFourierFeatures
from rkmlearn.kernels import RBF
from rkmlearn.widgets import FenchelYoungExplorer, RFFConvergenceExplorer, fenchel_young_sides


@pytest.fixture(scope="module")
def data():
    return np.random.default_rng(0).normal(size=(60, 3))


@pytest.fixture(scope="module")
def rff(data):
    return RFFConvergenceExplorer(data, sigma=1.5, max_features=64, n_features=4, random_state=3)


# -- RFFConvergenceExplorer -------------------------------------------------------------------
def test_rff_ladder_is_powers_of_four_and_the_draw_is_the_library_s(data, rff):
    assert rff.ladders[0].values == (1, 4, 16, 64)
    assert rff.initial == {"n_features": 4}
    np.testing.assert_allclose(rff.exact_gram_, RBF(sigma=1.5)(data), rtol=0, atol=1e-15)
    Z = RandomFourierFeatures(sigma=1.5, n_features=64, random_state=3).fit_transform(data)
    np.testing.assert_array_equal(rff.features_, Z)
    assert RFFConvergenceExplorer(data, sigma=1.0, max_features=100).ladders[0].values \
        == (1, 4, 16, 64, 100)


@pytest.mark.parametrize("d", [1, 16, 37, 64])
def test_rff_approximation_is_d_features_of_the_same_draw(data, rff, d):
    draw = RandomFourierFeatures(sigma=1.5, n_features=64, random_state=3).fit(data)
    Z_d = np.sqrt(2.0 / d) * np.cos(data @ draw.omega_[:, :d] + draw.offset_[:d])
    np.testing.assert_allclose(rff.approx_gram(d), Z_d @ Z_d.T, rtol=1e-12, atol=1e-12)
    exact = RBF(sigma=1.5)(data)
    expected = np.linalg.norm(Z_d @ Z_d.T - exact) / np.linalg.norm(exact)
    assert rff.error(d) == pytest.approx(expected, rel=1e-12)


def test_rff_error_curve_decreases_like_inverse_sqrt(data):
    explorer = RFFConvergenceExplorer(data, sigma=1.5, max_features=1024, random_state=0)
    d, err = explorer.curve_features_, explorer.curve_errors_
    assert d[0] == 1 and d[-1] == 1024 and np.all(np.diff(d) > 0)
    slope = np.polyfit(np.log(d), np.log(err), 1)[0]
    assert -0.75 < slope < -0.3
    assert err[-1] < 0.25 * err[0]


def test_rff_frames_keep_the_contract(data):
    # a ladder of three (1, 4, 16 features): each frame costs a figure to build and to re-render
    small = RFFConvergenceExplorer(data, sigma=1.5, max_features=16, n_features=4, random_state=3)
    assert small.ladders[0].values == (1, 4, 16)
    assert_explorer_contract(small)


@pytest.mark.parametrize("kwargs, match", [
    ({"sigma": 0.0}, "sigma"),
    ({"sigma": 1.0, "max_features": 0}, "max_features"),
    ({"sigma": 1.0, "n_features": 5}, "not on the explorer's ladder"),
])
def test_rff_rejects_bad_parameters(data, kwargs, match):
    with pytest.raises(ValueError, match=match):
        RFFConvergenceExplorer(data, **kwargs)


def test_rff_rejects_bad_data():
    with pytest.raises(ValueError, match="X"):
        RFFConvergenceExplorer(np.array([[np.nan, 1.0]]), sigma=1.0)


# -- fenchel_young_sides ----------------------------------------------------------------------
def test_fenchel_young_sides_inequality_and_tightness():
    rng = np.random.default_rng(1)
    e, h = rng.normal(size=(500, 3)), rng.normal(size=(500, 3))
    for lam in (0.2, 1.0, 5.0):
        product, bound, gap = fenchel_young_sides(e, h, lam)
        np.testing.assert_allclose(product, np.sum(e * h, axis=1), rtol=1e-13)
        assert np.all(gap >= 0) and np.all(bound - product >= -1e-12)
        np.testing.assert_allclose(gap, bound - product, atol=1e-12)
        _, _, tight = fenchel_young_sides(e, e / lam, lam)
        assert tight.max() <= 1e-12


@pytest.mark.parametrize("lam", [0.0, -1.0, np.inf, np.nan])
def test_fenchel_young_sides_rejects_bad_lambda(lam):
    with pytest.raises(ValueError, match="lam"):
        fenchel_young_sides(1.0, 1.0, lam)


def test_fenchel_young_sides_rejects_nonfinite():
    with pytest.raises(ValueError, match="finite"):
        fenchel_young_sides(np.nan, 1.0, 1.0)


# -- FenchelYoungExplorer ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def fy():
    return FenchelYoungExplorer(lam=2.0, e=1.0, lams=(0.5, 2.0), scores=(-1.0, 1.0), n_grid=101)


@pytest.mark.parametrize("lam, e", [(0.5, 1.0), (2.0, -1.0), (4.0, -2.0), (0.25, 0.0)])
def test_fy_sides_contain_the_tight_point_where_the_gap_vanishes(lam, e):
    explorer = FenchelYoungExplorer(lam=1.0, e=1.0)
    h, product, bound, gap = explorer.sides(lam, e)
    assert np.all(np.diff(h) > 0) and e / lam in h
    assert h[np.argmin(gap)] == e / lam and gap.min() <= 1e-12
    np.testing.assert_allclose(product, e * h, rtol=1e-14)
    np.testing.assert_allclose(bound, e**2 / (2 * lam) + lam / 2 * h**2, rtol=1e-13)
    assert h.max() >= 3.0 and h.max() >= 1.5 * abs(e / lam)


def test_fy_default_ladders():
    explorer = FenchelYoungExplorer()
    assert explorer.ladders[0].values == (0.25, 0.5, 1.0, 2.0, 4.0)
    assert explorer.ladders[1].values == (-2.0, -1.0, 0.0, 1.0, 2.0)
    assert len(explorer.states()) == 25


def test_fy_frames_keep_the_contract(fy):
    assert_explorer_contract(fy)


@pytest.mark.parametrize("kwargs, match", [
    ({"lam": 3.0}, "not on the explorer's ladder"),
    ({"e": 0.5}, "not on the explorer's ladder"),
    ({"n_grid": 2}, "n_grid"),
    ({"lams": (0.0, 1.0)}, "lams"),
])
def test_fy_rejects_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        FenchelYoungExplorer(**kwargs)
