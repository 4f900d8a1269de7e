"""Generative RKM (rkmlearn.models.generative): primal = dual, the density, conditional generation,
and generated digits that an independent classifier recognises."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_digits
from sklearn.svm import SVC

from rkmlearn.features import IdentityFeatures
from rkmlearn.kernels import RBF
from rkmlearn.models.generative import GenerativeRKM


def _views(n=300, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, 3))
    return [z @ rng.normal(size=(3, 6)) + 0.05 * rng.normal(size=(n, 6)), z @ rng.normal(size=(3, 4))]


def test_primal_equals_dual_on_explicit_features():
    Xs = _views()
    dual = GenerativeRKM(n_components=3, random_state=0).fit(Xs)
    primal = GenerativeRKM(n_components=3, setting="primal", feature_maps=[IdentityFeatures(), IdentityFeatures()],
                           random_state=0).fit(Xs)
    np.testing.assert_allclose(primal.H_, dual.H_, atol=1e-10)
    for a, b in zip(primal.sample(50, random_state=3), dual.sample(50, random_state=3)):
        np.testing.assert_allclose(a, b, atol=1e-9)
    given = [None, Xs[1][:5]]
    np.testing.assert_allclose(primal.sample_given(given, 0, 4, random_state=1),
                               dual.sample_given(given, 0, 4, random_state=1), atol=1e-9)


def test_gaussian_density_is_the_moments_of_H():
    model = GenerativeRKM(n_components=3, random_state=0).fit(_views())
    np.testing.assert_allclose(model.density_["mean"], model.H_.mean(axis=0), atol=1e-15)
    H = model.sample_latent(200_000, random_state=0)
    np.testing.assert_allclose(np.cov(H, rowvar=False), model.density_["cov"], atol=3e-5)
    np.testing.assert_array_equal(model.sample_latent(7, random_state=5), model.sample_latent(7, random_state=5))


def test_mixture_density_draws_its_weights():
    model = GenerativeRKM(n_components=2, density="gmm", n_mixture_components=3, random_state=0).fit(_views())
    assert model.sample_latent(11, random_state=0).shape == (11, 2)
    with pytest.raises(ValueError, match="n_mixture_components"):
        GenerativeRKM(density="gmm", n_mixture_components=0).fit(_views())
    with pytest.raises(ValueError, match="density"):
        GenerativeRKM(density="kde").fit(_views())


def test_conditional_draws_centre_on_the_imputation():
    Xs = _views()
    model = GenerativeRKM(n_components=3, random_state=0).fit(Xs)
    given = [None, Xs[1][:2]]
    _, h0 = model.predict_view(given, 0, return_latent=True)
    _, H = model.sample_given(given, 0, 20_000, random_state=0, return_latent=True)
    np.testing.assert_allclose(H.reshape(2, 20_000, 3).mean(axis=1), h0, atol=3e-3)


def test_a_target_the_others_cannot_determine_is_named():
    Xs = _views()
    one_hot = np.eye(2)[(Xs[0][:, 0] > 0).astype(int)]  # rank 1 once centred: fixes one hidden unit
    model = GenerativeRKM(n_components=3, random_state=0).fit([Xs[0], one_hot])
    assert model.residual_cov_[0] is None
    with pytest.raises(ValueError, match="fewer n_components"):
        model.sample_given([None, one_hot[:2]], 0)
    assert clone(model).get_params() == model.get_params()


def test_generated_digits_carry_the_label_they_were_generated_for():
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    train, held_out = np.arange(0, len(X), 2), np.arange(1, len(X), 2)
    judge = SVC().fit(X[held_out], y[held_out])  # independent: trained on other real digits
    model = GenerativeRKM(n_components=9, kernels=[RBF(sigma=3.0), None], preimage_top_k=5,
                          random_state=0).fit([X[train], np.eye(10)[y[train]]])
    labels = np.repeat(np.arange(10), 10)
    images = model.sample_given([None, np.eye(10)[labels]], 0, random_state=0)
    assert (judge.predict(images) == labels).mean() >= 0.9
