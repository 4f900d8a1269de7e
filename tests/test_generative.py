"""Generative RKM (rkmlearn.models.generative): primal = dual, the density, conditional generation,
generated digits that an independent classifier recognises, and scikit-learn's form (one array with
``view_sizes``): the same model as the list of views, and scikit-learn's estimator checks."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_digits
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

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


# -- one array with view_sizes: scikit-learn's form -----------------------------------------------
@pytest.mark.parametrize("options", [
    {},
    {"kernels": [RBF(sigma=3.0), None], "preimage_top_k": 5},
    {"setting": "primal", "feature_maps": [IdentityFeatures(), IdentityFeatures()]},
    {"density": "gmm", "n_mixture_components": 3},
], ids=["dual-linear", "dual-rbf", "primal", "gmm"])
def test_one_array_with_view_sizes_is_the_model_of_the_list_of_views(options):
    Xs = _views()
    X = np.hstack(Xs)
    by_list = GenerativeRKM(n_components=3, random_state=0, **options).fit(Xs)
    by_array = GenerativeRKM(n_components=3, view_sizes=(6, -1), random_state=0, **options).fit(X)
    assert (by_array.n_features_in_, by_array.view_sizes_, by_list.n_features_in_) == (10, [6, 4], [6, 4])
    np.testing.assert_allclose(by_array.H_, by_list.H_, rtol=0, atol=1e-12)
    # sample: one array, the views side by side, from the same draws
    samples = by_array.sample(20, random_state=1)
    assert samples.shape == (20, 10)
    np.testing.assert_allclose(samples, np.hstack(by_list.sample(20, random_state=1)), rtol=0, atol=1e-12)
    np.testing.assert_allclose(by_array.transform(X[:7]), by_list.transform([V[:7] for V in Xs]), rtol=0, atol=1e-12)
    # the target's columns of the one array are not read: NaN there is the missing view
    given = X[:5].copy()
    given[:, :6] = np.nan
    np.testing.assert_allclose(by_array.sample_given(given, 0, 3, random_state=2),
                               by_list.sample_given([None, Xs[1][:5]], 0, 3, random_state=2), rtol=0, atol=1e-12)
    np.testing.assert_allclose(by_array.predict_view(given, 0), by_list.predict_view([None, Xs[1][:5]], 0),
                               rtol=0, atol=1e-12)


def test_a_list_fit_keeps_lists_and_takes_one_array_too():
    Xs = _views()
    model = GenerativeRKM(n_components=3, random_state=0).fit(Xs)
    assert isinstance(model.sample(2, random_state=0), list)
    np.testing.assert_array_equal(model.transform(np.hstack(Xs)), model.transform(Xs))
    # view_sizes may name the list's widths (with -1 for one of them); the list is used as given
    same = GenerativeRKM(n_components=3, view_sizes=[-1, 4], random_state=0).fit(Xs)
    np.testing.assert_array_equal(same.H_, model.H_)


@pytest.mark.parametrize("sizes, match", [
    ((6, 3), r"view_sizes=\(6, 3\) sum to 9 columns but X has n_features = 10"),
    ((0, 10), "view_sizes must be a tuple of positive ints"),
    ((-2, 12), "view_sizes must be a tuple of positive ints"),
    ((-1, -1), "view_sizes must be a tuple of positive ints"),
    ((), "view_sizes must be a tuple of positive ints"),
    (10, "view_sizes must be a tuple of positive ints"),
    ("6,4", "view_sizes must be a tuple of positive ints"),
    ((6.0, 4.0), "view_sizes must be a tuple of positive ints"),
    ((True, 9), "view_sizes must be a tuple of positive ints"),
    ((10, -1), r"view_sizes=\(10, -1\) leaves no column for its -1 entry: X has n_features = 10"),
])
def test_bad_view_sizes_are_named(sizes, match):
    with pytest.raises(ValueError, match=match):
        GenerativeRKM(view_sizes=sizes).fit(np.hstack(_views()))


def test_view_sizes_that_do_not_describe_a_list_of_views_are_named():
    with pytest.raises(ValueError, match=r"view_sizes=\(5, 5\) does not describe Xs.*Pass view_sizes=\(6, 4\)"):
        GenerativeRKM(view_sizes=(5, 5)).fit(_views())


def test_one_array_of_the_wrong_width_is_named():
    model = GenerativeRKM(n_components=3, view_sizes=(6, -1), random_state=0).fit(np.hstack(_views()))
    with pytest.raises(ValueError, match="X has 9 features, but GenerativeRKM is expecting 10"):
        model.transform(np.zeros((2, 9)))
    bad = np.zeros((2, 10))
    bad[0, 7] = np.nan  # in view 1, which is given
    with pytest.raises(ValueError, match=r"X \(view 1\) contains NaN"):
        model.sample_given(bad, 0)


def _expected_failed_checks(estimator):
    if estimator.solver == "eig":
        # as KPCA's (tests/test_kpca.py): an eigendecomposition has no iteration count, n_iter_ is None
        return {"check_transformer_n_iter": "n_iter_ is None for solver='eig' (no iterations)"}
    return {}


# view_sizes with -1: two views of any X of 2 or more columns (scikit-learn's checks use several widths)
@parametrize_with_checks(
    [GenerativeRKM(view_sizes=(1, -1)),
     GenerativeRKM(view_sizes=(-1, 1), density="gmm", n_mixture_components=2, random_state=0),
     GenerativeRKM(view_sizes=(1, -1), solver="stiefel", random_state=0)],
    expected_failed_checks=_expected_failed_checks,
)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)
