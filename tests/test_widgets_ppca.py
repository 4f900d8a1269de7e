"""Tests of :class:`rkmlearn.widgets.ppca.PPCAExplorer` (Chapter 7, *Kernel sampling and pre-images*).

Every state of the explorer is a fit of :class:`rkmlearn.ProbabilisticKPCA`; the tests check the
noise ladder's meaning, that what a frame shows is what the model's own methods return, and that
the widget keeps the frame-explorer contract.
"""
from __future__ import annotations

import numpy as np
import pytest

from explorer_contract import assert_explorer_contract
from rkmlearn import ProbabilisticKPCA
from rkmlearn.widgets.ppca import PPCAExplorer

SIGMA = 2.0


@pytest.fixture(scope="module")
def X():
    rng = np.random.default_rng(0)
    t = np.sort(rng.uniform(0, 3 * np.pi, 20))
    r = 5 * (0.5 + t / (3 * np.pi))
    return np.c_[r * np.cos(t), r * np.sin(t)] + rng.normal(scale=0.3, size=(20, 2))


@pytest.fixture(scope="module")
def explorer(X):
    return PPCAExplorer(X, sigma=SIGMA, components=(1, 2, 6), n_draws=25, initial_components=2,
                        random_state=3)


def test_ladders(explorer):
    assert explorer.names == ("components", "sigma2")
    assert explorer.ladders[0].values == (1, 2, 6)
    assert explorer.ladders[1].values == ("ml", 0.01, 0.5, 1.0)
    assert explorer.initial == {"components": 2, "sigma2": "ml"}
    # labels in typeset maths (issue 18), not ASCII such as "σ² (× λ_q/N)"
    assert explorer.ladders[0].description == "$q$"
    assert explorer.ladders[1].description == r"$\sigma^2$ ($\times \lambda_q/N$)"


@pytest.mark.parametrize("q", [1, 6])
def test_noise_ladder_is_ml_and_fractions_of_the_bound(X, explorer, q):
    ml = ProbabilisticKPCA(q, kernel_params={"sigma": SIGMA}).fit(X)
    bound = ml.eigenvalues_[-1] / X.shape[0]
    assert explorer.state_data(q, "ml")["sigma2"] == pytest.approx(ml.sigma2_, rel=1e-12)
    for fraction in (0.01, 0.5, 1.0):
        data = explorer.state_data(q, fraction)
        assert data["sigma2"] == pytest.approx(fraction * bound, rel=1e-12)
        assert data["bound"] == pytest.approx(bound, rel=1e-12)


@pytest.mark.parametrize("q, level", [(2, "ml"), (6, 0.5)])
def test_frames_show_what_the_model_returns(X, explorer, q, level):
    data = explorer.state_data(q, level)
    model = ProbabilisticKPCA(q, kernel_params={"sigma": SIGMA}, sigma2=data["sigma2"],
                              random_state=0).fit(X)
    np.testing.assert_allclose(data["reconstructions"], model.reconstruct(X, space="input"),
                               atol=1e-10)
    np.testing.assert_allclose(data["samples"], model.sample(25, space="input", random_state=3),
                               atol=1e-10)
    kpca = ProbabilisticKPCA(q, kernel_params={"sigma": SIGMA}, sigma2=1e-15).fit(X)
    np.testing.assert_allclose(data["kpca"], kpca.reconstruct(X, space="input"), atol=1e-6)


def test_noise_grows_in_place_and_the_bound_shrinks_reconstructions(X, explorer):
    small, large = explorer.state_data(6, 0.01), explorer.state_data(6, 1.0)
    centre = X.mean(axis=0)
    spread = lambda P: np.linalg.norm(P - centre, axis=1).mean()
    assert spread(large["reconstructions"]) < spread(large["kpca"])
    assert np.abs(small["reconstructions"] - small["kpca"]).max() < 0.05
    # the same draws: the latent part is shared, only the noise part is scaled
    assert np.linalg.norm(large["samples"] - small["samples"]) > 0


def test_frames_keep_the_contract(X):
    small = PPCAExplorer(X, sigma=SIGMA, components=(1, 3), n_draws=10)
    assert_explorer_contract(small)


@pytest.mark.parametrize("kwargs, match", [
    ({"components": (3, 1)}, "increasing"),
    ({"components": (0,)}, "components"),
    ({"initial_components": 4}, "not on the explorer's ladder"),
    ({"n_draws": 0}, "n_draws"),
    ({"random_state": -1}, "random_state"),
])
def test_bad_arguments_raise(X, kwargs, match):
    with pytest.raises(ValueError, match=match):
        PPCAExplorer(X, **kwargs)


def test_needs_two_dimensional_points(X):
    with pytest.raises(ValueError, match="2 columns"):
        PPCAExplorer(np.hstack([X, X]))
