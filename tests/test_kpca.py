"""Tests of rkmlearn.KPCA: scikit-learn compatibility and agreement, primal = dual, Stiefel = eig."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays
from scipy.linalg import subspace_angles
from sklearn.decomposition import KernelPCA
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.preprocessing import KernelCenterer
from sklearn.utils.estimator_checks import parametrize_with_checks

from rkmlearn.features import IdentityFeatures, NystroemFeatures, RandomFourierFeatures
from rkmlearn.kernels import RBF
from rkmlearn import KPCA

SIGMA = 1.5


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 4))
    X[:, 0] *= 2.0  # unequal spread: well separated eigenvalues
    X_new = rng.normal(size=(40, 4))
    return X, X_new


def match_signs(A, B):
    """B with each column's sign chosen to agree with A's column."""
    return B * np.where(np.sum(A * B, axis=0) < 0, -1.0, 1.0)


# ----------------------------------------------------------------------------------------------
# scikit-learn's estimator checks
# ----------------------------------------------------------------------------------------------
def _expected_failed_checks(estimator):
    if estimator.solver == "eig":
        # check_transformer_n_iter requires an integer n_iter_ >= 1 of every transformer with a
        # max_iter parameter. max_iter only budgets the Stiefel optimiser; an eigendecomposition
        # has no iteration count, so n_iter_ is None for solver="eig" (reporting 1 would be
        # false). scikit-learn exempts its own KernelPCA from this check for the same reason
        # (the "external_solver" list in sklearn.utils.estimator_checks). With
        # solver="stiefel" the check runs and passes (see the other parametrisations).
        return {"check_transformer_n_iter": "n_iter_ is None for solver='eig' (no iterations)"}
    return {}


@parametrize_with_checks(
    [
        KPCA(),
        KPCA(solver="stiefel", random_state=0),
        KPCA(setting="primal", feature_map=RandomFourierFeatures(n_features=20, random_state=0)),
        KPCA(setting="primal", solver="stiefel", feature_map=IdentityFeatures(), random_state=0),
    ],
    expected_failed_checks=_expected_failed_checks,
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


# ----------------------------------------------------------------------------------------------
# agreement with scikit-learn's KernelPCA
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n_components", [3, 8])
@pytest.mark.parametrize("eigen_solver", ["auto", "dense", "arpack"])
@pytest.mark.parametrize("kernel_spec", ["name", "instance"])
def test_matches_sklearn_kernel_pca(data, n_components, eigen_solver, kernel_spec):
    X, X_new = data
    if kernel_spec == "name":
        model = KPCA(n_components, kernel="rbf", kernel_params={"sigma": SIGMA}, eigen_solver=eigen_solver)
    else:
        model = KPCA(n_components, kernel=RBF(SIGMA), eigen_solver=eigen_solver)
    model.fit(X)
    ref = KernelPCA(n_components, kernel="rbf", gamma=1.0 / (2.0 * SIGMA**2), eigen_solver="dense").fit(X)

    np.testing.assert_allclose(model.eigenvalues_, ref.eigenvalues_, rtol=1e-10)
    assert subspace_angles(model.H_, ref.eigenvectors_).max() <= 1e-8
    np.testing.assert_allclose(model.H_, match_signs(model.H_, ref.eigenvectors_), atol=1e-8)
    for Z in (X, X_new):  # training points and held-out points
        ours = model.transform(Z) * np.sqrt(model.eigenvalues_)
        theirs = ref.transform(Z)
        np.testing.assert_allclose(ours, match_signs(ours, theirs), atol=1e-8 * np.abs(theirs).max())


def test_explained_variance_ratio_and_orthonormality(data):
    X, _ = data
    model = KPCA(5, kernel_params={"sigma": SIGMA}).fit(X)
    K_c = KernelCenterer().fit_transform(rbf_kernel(X, gamma=1.0 / (2.0 * SIGMA**2)))
    np.testing.assert_allclose(model.explained_variance_ratio_, model.eigenvalues_ / np.trace(K_c), rtol=1e-12)
    assert model.explained_variance_ratio_.sum() < 1.0
    np.testing.assert_allclose(model.H_.T @ model.H_, np.eye(5), atol=1e-12)
    # K_c H = H Lambda (eq-kpca-dual), eigenvalues descending, signs by the library's convention
    np.testing.assert_allclose(K_c @ model.H_, model.H_ * model.eigenvalues_, atol=1e-10)
    assert np.all(np.diff(model.eigenvalues_) < 0)
    H = model.H_
    assert np.all(H[np.argmax(np.abs(H), axis=0), np.arange(5)] > 0)
    assert model.W_ is None and model.X_fit_ is not None and model.history_ is None


def test_fit_transform_returns_H_and_transform_reproduces_it(data):
    X, _ = data
    model = KPCA(4, kernel_params={"sigma": SIGMA})
    H = model.fit_transform(X)
    np.testing.assert_array_equal(H, model.H_)
    assert H is not model.H_
    np.testing.assert_allclose(model.transform(X), model.H_, atol=1e-10)


# ----------------------------------------------------------------------------------------------
# primal = dual
# ----------------------------------------------------------------------------------------------
FEATURE_MAPS = {
    "identity": lambda: IdentityFeatures(),
    "rff": lambda: RandomFourierFeatures(sigma=SIGMA, n_features=60, random_state=0),
    "nystroem": lambda: NystroemFeatures(kernel="rbf", n_components=30, kernel_params={"sigma": SIGMA}, random_state=0),
}


@pytest.mark.parametrize("fmap", sorted(FEATURE_MAPS))
def test_primal_equals_dual_on_the_same_features(data, fmap):
    X, X_new = data
    s = 3
    dual = KPCA(s, feature_map=FEATURE_MAPS[fmap]()).fit(X)
    primal = KPCA(s, feature_map=FEATURE_MAPS[fmap](), setting="primal").fit(X)
    np.testing.assert_allclose(primal.eigenvalues_, dual.eigenvalues_, rtol=1e-10)
    np.testing.assert_allclose(primal.H_, dual.H_, atol=1e-8)  # no manual sign fixing
    np.testing.assert_allclose(primal.W_, dual.W_, atol=1e-8 * np.abs(dual.W_).max())
    np.testing.assert_allclose(primal.transform(X_new), dual.transform(X_new), atol=1e-8)
    # W^T W = Lambda (eq-kpca-primal) and H = Phi_c W Lambda^{-1}
    np.testing.assert_allclose(primal.W_.T @ primal.W_, np.diag(primal.eigenvalues_), atol=1e-10 * primal.eigenvalues_[0])
    Phi = primal.feature_map_.transform(X)
    np.testing.assert_allclose((Phi - Phi.mean(axis=0)) @ primal.W_ / primal.eigenvalues_, primal.H_, atol=1e-10)
    assert primal.X_fit_ is None and primal.centerer_ is None


@pytest.mark.parametrize("fmap", ["identity", "rff"])
def test_dual_with_features_equals_linear_kernel_on_the_features(data, fmap):
    """The W-route prediction of the dual setting equals the k_c(x) route on the features."""
    X, X_new = data
    with_map = KPCA(3, feature_map=FEATURE_MAPS[fmap]()).fit(X)
    Phi, Phi_new = with_map.feature_map_.transform(X), with_map.feature_map_.transform(X_new)
    on_features = KPCA(3, kernel="linear").fit(Phi)
    np.testing.assert_allclose(with_map.eigenvalues_, on_features.eigenvalues_, rtol=1e-10)
    np.testing.assert_allclose(with_map.H_, on_features.H_, atol=1e-8)
    np.testing.assert_allclose(with_map.transform(X_new), on_features.transform(Phi_new), atol=1e-8)


def test_primal_linear_kernel_is_ordinary_pca(data):
    X, X_new = data
    model = KPCA(3, setting="primal", feature_map=IdentityFeatures()).fit(X)
    Xc = X - X.mean(axis=0)
    _, S, Vt = np.linalg.svd(Xc, full_matrices=False)
    np.testing.assert_allclose(model.eigenvalues_, S[:3] ** 2, rtol=1e-12)
    assert subspace_angles(model.W_, Vt[:3].T).max() <= 1e-10


# ----------------------------------------------------------------------------------------------
# Stiefel solver = eigendecomposition
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "setting, fmap",
    [("dual", None), ("dual", "rff"), ("primal", "rff"), ("primal", "identity")],
)
def test_stiefel_solver_reaches_eig_solution(data, setting, fmap):
    X, X_new = data
    s = 3
    params = dict(setting=setting)
    if fmap is None:
        params["kernel_params"] = {"sigma": SIGMA}
    eig = KPCA(s, feature_map=None if fmap is None else FEATURE_MAPS[fmap](), **params).fit(X)
    st_ = KPCA(
        s, feature_map=None if fmap is None else FEATURE_MAPS[fmap](), solver="stiefel", random_state=0, **params
    ).fit(X)
    assert subspace_angles(st_.H_, eig.H_).max() <= 1e-6
    np.testing.assert_allclose(st_.eigenvalues_, eig.eigenvalues_, rtol=1e-6)
    np.testing.assert_allclose(st_.H_, eig.H_, atol=1e-6)  # rotation + sign convention: same basis
    np.testing.assert_allclose(st_.transform(X_new), eig.transform(X_new), atol=1e-6)
    assert st_.n_iter_ >= 1
    assert len(st_.history_["objective"]) == st_.n_iter_ + 1
    assert max(st_.history_["constraint_violation"]) <= 1e-8


def test_cayley_adam_optimizer_reaches_eig_solution(data):
    # Looser than projected gradient (see tests/test_stiefel.py); measured angles ~1e-7 here.
    X, _ = data
    eig = KPCA(3, kernel_params={"sigma": SIGMA}).fit(X)
    ca = KPCA(3, kernel_params={"sigma": SIGMA}, solver="stiefel", optimizer="cayley_adam", tol=1e-8, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        ca.fit(X)
    assert subspace_angles(ca.H_, eig.H_).max() <= 1e-5
    np.testing.assert_allclose(ca.eigenvalues_, eig.eigenvalues_, rtol=1e-6)


def test_stiefel_warns_when_not_converged(data):
    X, _ = data
    model = KPCA(3, solver="stiefel", max_iter=2, random_state=0)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        model.fit(X)
    assert model.n_iter_ == 2


def test_verbose_prints_a_summary(data, capsys):
    X, _ = data
    KPCA(2, solver="stiefel", random_state=0, verbose=True).fit(X)
    assert "converged=True" in capsys.readouterr().out


# ----------------------------------------------------------------------------------------------
# determinism and API details
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "params",
    [
        dict(),
        dict(eigen_solver="arpack"),
        dict(solver="stiefel"),
        dict(solver="stiefel", optimizer="cayley_adam", max_iter=200),
        dict(setting="primal", feature_map=RandomFourierFeatures(n_features=30, random_state=1)),
        dict(setting="primal", solver="stiefel", feature_map=IdentityFeatures()),
    ],
)
def test_two_fits_are_bitwise_equal(data, params):
    X, X_new = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = KPCA(3, random_state=0, **params).fit(X)
        b = KPCA(3, random_state=0, **params).fit(X)
    np.testing.assert_array_equal(a.H_, b.H_)
    np.testing.assert_array_equal(a.eigenvalues_, b.eigenvalues_)
    np.testing.assert_array_equal(a.transform(X_new), b.transform(X_new))


def test_feature_names_out(data):
    X, _ = data
    model = KPCA(2).fit(X)
    assert list(model.get_feature_names_out()) == ["kpca0", "kpca1"]


def test_transform_before_fit_raises():
    with pytest.raises(NotFittedError):
        KPCA().transform(np.ones((3, 2)))


# ----------------------------------------------------------------------------------------------
# bad input
# ----------------------------------------------------------------------------------------------
GOOD = np.random.default_rng(3).normal(size=(20, 3))


@pytest.mark.parametrize(
    "X, match",
    [
        (np.array([[1.0, np.nan], [0.0, 1.0], [2.0, 2.0]]), "X contains NaN"),
        (np.array([[1.0, np.inf], [0.0, 1.0], [2.0, 2.0]]), "X contains NaN"),
        (np.arange(5.0), "X must be a 2-D"),
        (np.ones((3, 2, 2)), "X must be a 2-D"),
        ([["a", "b"], ["c", "d"], ["e", "f"]], "X must contain real numbers"),
        (np.zeros((0, 3)), "X is empty"),
        (np.ones((1, 3)), "n_samples = 1"),
    ],
)
def test_bad_X_raises(X, match):
    with pytest.raises(ValueError, match=match):
        KPCA(1).fit(X)


@pytest.mark.parametrize("n_components", [0, -1, 20, 100, 2.5, True, None, "2"])
def test_bad_n_components_raises(n_components):
    with pytest.raises(ValueError, match="n_components"):
        KPCA(n_components).fit(GOOD)  # 20 samples: at most 19 components


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(kernel="gaussian"), "kernel='gaussian' is unknown"),
        (dict(kernel=3.0), "kernel must be"),
        (dict(kernel_params={"gamma": 1.0}), "kernel_params"),
        (dict(kernel_params={"sigma": -1.0}), "sigma"),
        (dict(kernel_params="sigma=1"), "kernel_params"),
        (dict(setting="both"), "setting"),
        (dict(solver="lobpcg"), "solver"),
        (dict(eigen_solver="randomized"), "eigen_solver"),
        (dict(solver="stiefel", optimizer="sgd"), "optimizer"),
        (dict(max_iter=0), "max_iter"),
        (dict(tol=-1.0), "tol"),
        (dict(setting="primal"), "feature_map is required"),
        (dict(feature_map="rff"), "feature_map must be a transformer"),
        (dict(feature_map=IdentityFeatures(), kernel="laplacian"), "feature_map"),
        (dict(feature_map=IdentityFeatures(), kernel_params={"sigma": 2.0}), "feature_map"),
        (dict(setting="primal", feature_map=IdentityFeatures(), n_components=4), "n_components"),
        (dict(kernel="linear", n_components=4), "n_components"),  # rank 3 < 4
    ],
)
def test_bad_parameters_raise(params, match):
    params = {"n_components": 2, **params}
    with pytest.raises(ValueError, match=match):
        KPCA(**params).fit(GOOD)


def test_constant_data_has_no_components():
    with pytest.raises(ValueError, match="n_components"):
        KPCA(1).fit(np.ones((10, 2)))
    with pytest.raises(ValueError, match="n_components"):
        KPCA(1, solver="stiefel", random_state=0).fit(np.ones((10, 2)))


@pytest.mark.parametrize(
    "params",
    [dict(), dict(setting="primal", feature_map=IdentityFeatures()), dict(feature_map=IdentityFeatures())],
)
def test_feature_mismatch_at_transform_raises(params):
    model = KPCA(2, **params).fit(GOOD)
    with pytest.raises(ValueError, match="X has 4 features, but KPCA is expecting 3"):
        model.transform(np.ones((5, 4)))
    with pytest.raises(ValueError, match="X contains NaN"):
        model.transform(np.full((5, 3), np.nan))


finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
non_finite = st.sampled_from([np.nan, np.inf, -np.inf])


@st.composite
def bad_arrays(draw):
    """Arrays KPCA must reject: wrong number of dimensions, empty, or containing NaN/inf."""
    kind = draw(st.sampled_from(["ndim", "empty", "non_finite"]))
    if kind == "ndim":
        shape = draw(st.one_of(array_shapes(min_dims=1, max_dims=1, max_side=6), array_shapes(min_dims=3, max_dims=4, max_side=3)))
        return draw(arrays(np.float64, shape, elements=finite)), "2-D"
    if kind == "empty":
        shape = draw(st.sampled_from([(0, 3), (4, 0), (0, 0)]))
        return np.zeros(shape), "empty"
    shape = draw(array_shapes(min_dims=2, max_dims=2, min_side=2, max_side=8))
    X = draw(arrays(np.float64, shape, elements=finite))
    i, j = draw(st.integers(0, shape[0] - 1)), draw(st.integers(0, shape[1] - 1))
    X[i, j] = draw(non_finite)
    return X, "NaN"


@settings(max_examples=60, deadline=None)
@given(bad=bad_arrays(), setting=st.sampled_from(["dual", "primal"]), for_transform=st.booleans())
def test_hypothesis_bad_arrays_raise_value_error(bad, setting, for_transform):
    X, match = bad
    model = KPCA(1, setting=setting, feature_map=IdentityFeatures() if setting == "primal" else None)
    if for_transform:
        model.fit(np.random.default_rng(0).normal(size=(6, X.shape[-1] if X.ndim == 2 and X.shape[-1] else 3)))
        call = model.transform
    else:
        call = model.fit
    with pytest.raises(ValueError, match=match) as info:
        call(X)
    assert "X" in str(info.value)


@settings(max_examples=40, deadline=None)
@given(
    n_samples=st.integers(2, 12),
    n_components=st.one_of(st.integers(-5, 0), st.integers(12, 40)),
)
def test_hypothesis_out_of_range_n_components(n_samples, n_components):
    X = np.random.default_rng(n_samples).normal(size=(n_samples, 2))
    with pytest.raises(ValueError, match="n_components"):
        KPCA(n_components).fit(X)


def test_model_does_not_alias_caller_data(data):
    X, X_new = data
    X_own, kernel = X.copy(), RBF(SIGMA)
    model = KPCA(3, kernel=kernel).fit(X_own)
    before = model.transform(X_new)
    X_own[:] = 0.0  # the caller reuses its buffers...
    kernel.sigma = 10.0  # ...and its kernel
    np.testing.assert_array_equal(model.transform(X_new), before)


def test_kpca_composes_the_shared_level_model_and_has_no_view_imputation():
    """KPCA shares views, level and latent map with MultiViewKPCA, not its always-raising methods."""
    from rkmlearn import MultiViewKPCA
    from rkmlearn.models.latent import LatentModel

    X = np.random.default_rng(0).normal(size=(20, 3))
    model = KPCA(2, kernel_params={"sigma": 2.0}).fit(X)
    assert isinstance(model, LatentModel) and not isinstance(model, MultiViewKPCA)
    assert not hasattr(model, "predict_view") and not hasattr(model, "view_predictor")
    twin = MultiViewKPCA(2, kernels=[KPCA(kernel_params={"sigma": 2.0}).fit(X).kernel_]).fit([X])
    np.testing.assert_array_equal(model.transform(X[:5]), twin.transform([X[:5]]))
