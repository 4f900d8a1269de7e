"""Tests of rkmlearn.features: explicit feature maps and the kernels they equal/approximate."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from rkmlearn.features import IdentityFeatures, NystroemFeatures, RandomFourierFeatures
from rkmlearn.kernels import RBF, Laplacian, Linear, Polynomial


def _data(n=60, d=3, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


ALL_MAPS = [
    IdentityFeatures(),
    RandomFourierFeatures(sigma=1.5, n_features=50, random_state=0),
    NystroemFeatures(n_components=10, kernel_params={"sigma": 1.5}, random_state=0),
]


# ------------------------------------------------------------------------------ identity
def test_identity_gram_equals_linear_kernel_exactly():
    X, Y = _data(30, 4), _data(10, 4, 1)
    fm = IdentityFeatures().fit(X)
    Z, Zy = fm.transform(X), fm.transform(Y)
    np.testing.assert_array_equal(Z, X)
    assert Z is not X  # a copy: the caller's array is never aliased
    np.testing.assert_array_equal(Zy @ Z.T, Linear()(Y, X))
    assert fm.n_features_in_ == fm.n_features_out_ == 4
    assert fm.kernel() == fm.get_kernel() == Linear()


# --------------------------------------------------------------------- random Fourier features
def test_rff_formula_and_shapes():
    X = _data(20, 3)
    rff = RandomFourierFeatures(sigma=2.0, n_features=7, random_state=1).fit(X)
    assert rff.omega_.shape == (3, 7) and rff.offset_.shape == (7,)
    assert rff.n_features_out_ == 7 and rff.n_features_in_ == 3
    Z = rff.transform(X)
    np.testing.assert_allclose(Z, np.sqrt(2 / 7) * np.cos(X @ rff.omega_ + rff.offset_), rtol=1e-15)
    assert np.all((rff.offset_ >= 0) & (rff.offset_ <= 2 * np.pi))
    assert rff.kernel() == rff.get_kernel() == RBF(2.0)


def test_rff_draw_distribution():
    """Omega_ij ~ N(0, 1/sigma^2): check the sample standard deviation."""
    sigma = 0.5
    rff = RandomFourierFeatures(sigma=sigma, n_features=20000, random_state=0).fit(np.zeros((1, 2)))
    assert abs(rff.omega_.std() * sigma - 1.0) < 0.02
    assert abs(rff.offset_.mean() - np.pi) < 0.05


def test_rff_deterministic_transform_and_seeding():
    X = _data(15, 2)
    a = RandomFourierFeatures(n_features=20, random_state=3).fit(X)
    np.testing.assert_array_equal(a.transform(X), a.transform(X))
    b = RandomFourierFeatures(n_features=20, random_state=3).fit(X)
    np.testing.assert_array_equal(a.transform(X), b.transform(X))
    c = RandomFourierFeatures(n_features=20, random_state=4).fit(X)
    assert not np.allclose(a.transform(X), c.transform(X))


def test_rff_gram_converges_to_rbf():
    X = _data(60, 3)
    sigma = 1.0
    K = RBF(sigma)(X)
    errors = {}
    for D in [10, 100, 1000, 10000, 20000]:
        seed_errors = []
        for seed in range(2):
            Z = RandomFourierFeatures(sigma, D, random_state=seed).fit_transform(X)
            seed_errors.append(np.abs(Z @ Z.T - K).max())
        errors[D] = np.mean(seed_errors)
    assert errors[20000] < 0.05
    trend = [errors[D] for D in [10, 100, 1000, 10000]]
    assert all(a > b for a, b in zip(trend, trend[1:])), errors
    # Monte Carlo rate: the error shrinks like 1/sqrt(D) (factor ~10 per factor 100 in D)
    assert errors[10] / errors[1000] > 3.0


# ------------------------------------------------------------------------------ Nystroem
@pytest.mark.parametrize(
    "kernel, params",
    [("rbf", {"sigma": 1.0}), ("rbf", {"sigma": 3.0}), ("laplacian", {"sigma": 2.0}), (Polynomial(2, 1.0), None)],
)
def test_nystroem_exact_with_all_landmarks(kernel, params):
    X = _data(150, 3)
    ny = NystroemFeatures(kernel=kernel, n_components=150, kernel_params=params, random_state=0)
    Z = ny.fit_transform(X)
    K = ny.get_kernel()(X)
    np.testing.assert_allclose(Z @ Z.T, K, rtol=0, atol=1e-10 * max(1.0, np.abs(K).max()))
    assert sorted(ny.component_indices_) == list(range(150))  # without replacement


def test_nystroem_rank_deficient_landmarks_are_handled():
    """Duplicate landmarks make K_mm singular: directions are dropped, Gram stays exact."""
    X = np.vstack([_data(20, 2)] * 2)
    ny = NystroemFeatures(kernel="linear", n_components=40, random_state=0).fit(X)
    assert ny.n_features_out_ == 2  # numerical rank of the linear kernel in 2-D
    Z = ny.transform(X)
    np.testing.assert_allclose(Z @ Z.T, X @ X.T, atol=1e-10 * np.abs(X @ X.T).max())


def test_nystroem_attributes_and_approximation():
    X = _data(200, 2)
    ny = NystroemFeatures(n_components=60, kernel_params={"sigma": 2.0}, random_state=0).fit(X)
    assert ny.components_.shape == (60, 2)
    np.testing.assert_array_equal(ny.components_, X[ny.component_indices_])
    assert len(set(ny.component_indices_)) == 60
    assert ny.kernel_ == ny.get_kernel() == RBF(2.0)
    Z = ny.transform(X)
    assert Z.shape == (200, ny.n_features_out_)
    # smooth kernel in 2-D: 60 landmarks approximate it far better than 5
    K = RBF(2.0)(X)
    Z5 = NystroemFeatures(n_components=5, kernel_params={"sigma": 2.0}, random_state=0).fit_transform(X)
    err60, err5 = np.abs(Z @ Z.T - K).max(), np.abs(Z5 @ Z5.T - K).max()
    assert err60 < 0.02 and err60 < 0.1 * err5
    # landmark rows are reproduced exactly
    Zm = ny.transform(ny.components_)
    np.testing.assert_allclose(Zm @ Z.T, RBF(2.0)(ny.components_, X), atol=1e-10)


def test_nystroem_kernel_instance_and_params():
    X = _data(30, 2)
    ny = NystroemFeatures(kernel=Laplacian(0.5), n_components=5, random_state=0).fit(X)
    assert ny.get_kernel() == Laplacian(0.5)
    with pytest.raises(ValueError, match="cannot be combined with the Kernel instance"):
        NystroemFeatures(kernel=Laplacian(0.5), kernel_params={"sigma": 1.0}).fit(X)
    with pytest.raises(ValueError, match="^kernel_params must be a dict"):
        NystroemFeatures(kernel_params=[1.0]).fit(X)
    with pytest.raises(ValueError, match="^kernel='nope' is unknown"):
        NystroemFeatures(kernel="nope").fit(X)


# ------------------------------------------------------------------------- common behaviour
@pytest.mark.parametrize("fm", ALL_MAPS, ids=lambda f: type(f).__name__)
def test_not_fitted_and_feature_count(fm):
    fm = clone(fm)
    X = _data(30, 3)
    with pytest.raises(NotFittedError):
        fm.transform(X)
    fm.fit(X)
    with pytest.raises(ValueError, match=r"^X has 2 features, but \w+ is expecting 3 features"):
        fm.transform(X[:, :2])
    with pytest.raises(ValueError, match="^X contains NaN"):
        fm.transform(np.full((2, 3), np.nan))
    with pytest.raises(ValueError, match="^X must be a 2-D array"):
        fm.fit(np.ones(3))
    with pytest.raises(ValueError, match="^X is empty"):
        fm.fit(np.zeros((0, 3)))


@pytest.mark.parametrize("fm", ALL_MAPS, ids=lambda f: type(f).__name__)
def test_fit_transform_equals_fit_then_transform(fm):
    X = _data(30, 3)
    np.testing.assert_array_equal(clone(fm).fit_transform(X), clone(fm).fit(X).transform(X))
    names = clone(fm).fit(X).get_feature_names_out()
    assert len(names) == clone(fm).fit(X).n_features_out_


@pytest.mark.parametrize(
    "fm, pattern",
    [
        (RandomFourierFeatures(sigma=0.0), r"^sigma must be in \(0.0, inf\)"),
        (RandomFourierFeatures(sigma=-1.0), "^sigma must be"),
        (RandomFourierFeatures(n_features=0), r"^n_features must be in \[1, inf\)"),
        (RandomFourierFeatures(n_features=2.5), "^n_features must be an integer"),
        (NystroemFeatures(n_components=0), r"^n_components=0 is out of range"),
        (NystroemFeatures(n_components=31), r"^n_components=31 .*<= n_samples \(= 30\)"),
        (NystroemFeatures(n_components=3, kernel_params={"sigma": -1.0}), "^sigma must be"),
    ],
)
def test_bad_hyperparameters(fm, pattern):
    with pytest.raises(ValueError, match=pattern):
        fm.fit(_data(30, 3))


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 25), d=st.integers(1, 4), seed=st.integers(0, 2**16))
def test_property_nystroem_all_landmarks_exact(n, d, seed):
    X = _data(n, d, seed)
    Z = NystroemFeatures(n_components=n, kernel_params={"sigma": 1.0}, random_state=seed).fit_transform(X)
    np.testing.assert_allclose(Z @ Z.T, RBF(1.0)(X), atol=1e-10)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.SkipTestWarning")
def test_sklearn_estimator_checks():
    from sklearn.utils.estimator_checks import check_estimator

    for fm in ALL_MAPS:
        check_estimator(clone(fm))
