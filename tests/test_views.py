"""Tests of rkmlearn.views.View: one view's Gram matrices, features and kernel rows, centred with
the TRAINING statistics, for kernels and explicit feature maps alike."""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.preprocessing import KernelCenterer

from rkmlearn import View
from rkmlearn.features import IdentityFeatures, RandomFourierFeatures
from rkmlearn.kernels import RBF, Linear


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(30, 3)) + 2.0, rng.normal(size=(7, 3))


def test_kernel_view_grams_and_rows_match_scikit_learn(data):
    X, X_new = data
    view = View(kernel="rbf", kernel_params={"sigma": 1.5}).fit(X)
    gamma = 1.0 / (2 * 1.5**2)
    K, K_new = rbf_kernel(X, gamma=gamma), rbf_kernel(X_new, X, gamma=gamma)
    centerer = KernelCenterer().fit(K)
    np.testing.assert_allclose(view.gram(), K, atol=1e-14)
    np.testing.assert_allclose(view.centred_gram(), centerer.transform(K), atol=1e-12)
    np.testing.assert_allclose(view.kernel_rows(X_new), K_new, atol=1e-14)
    # test rows centred with the TRAINING statistics (not their own mean)
    np.testing.assert_allclose(view.centred_kernel_rows(X_new), centerer.transform(K_new), atol=1e-12)
    assert view.scale_ == pytest.approx(1.0) and not view.explicit and not view.identity
    assert view.description == "kernel RBF(sigma=1.5)"


def test_centred_kernel_rows_before_centred_gram_fit_the_statistics(data):
    X, X_new = data
    fresh = View(kernel=RBF(0.7)).fit(X)
    reference = View(kernel=RBF(0.7)).fit(X)
    reference.centred_gram()
    np.testing.assert_allclose(fresh.centred_kernel_rows(X_new), reference.centred_kernel_rows(X_new), atol=1e-13)


def test_explicit_identity_view_equals_the_linear_kernel_view(data):
    X, X_new = data
    linear = View().fit(X)  # kernel=None is the linear kernel
    explicit = View(feature_map=IdentityFeatures()).fit(X)
    assert isinstance(linear.kernel_, Linear) and linear.identity and explicit.identity and explicit.explicit
    np.testing.assert_allclose(explicit.centred_features(), X - X.mean(axis=0), atol=1e-14)
    np.testing.assert_allclose(explicit.centred_features(X_new), X_new - X.mean(axis=0), atol=1e-14)
    np.testing.assert_allclose(explicit.centred_gram(), linear.centred_gram(), atol=1e-11)
    np.testing.assert_allclose(explicit.gram(), X @ X.T, atol=1e-11)
    np.testing.assert_allclose(explicit.kernel_rows(X_new), X_new @ X.T, atol=1e-12)
    np.testing.assert_allclose(explicit.centred_kernel_rows(X_new), linear.centred_kernel_rows(X_new), atol=1e-11)
    # max_i ||phi_i||^2, the largest uncentred kernel value
    assert explicit.scale_ == pytest.approx(np.max(np.sum(X * X, axis=1)))
    np.testing.assert_allclose(explicit.centerer_.row_means_, (X @ X.T).mean(axis=1), rtol=1e-12)


def test_release_drops_and_recomputes_training_features(data):
    X, _ = data
    view = View(feature_map=RandomFourierFeatures(sigma=1.0, n_features=40, random_state=0)).fit(X)
    before = view.centred_features().copy()
    assert view.release() is view and view._Phi_c is None
    np.testing.assert_array_equal(view.centred_features(), before)


def test_view_copies_the_training_data_and_the_kernel(data):
    X, X_new = data
    X_own, kernel = X.copy(), RBF(1.0)
    view = View(kernel=kernel).fit(X_own)
    before = view.centred_kernel_rows(X_new)
    X_own[:] = 0.0
    kernel.sigma = 5.0
    np.testing.assert_array_equal(view.centred_kernel_rows(X_new), before)


def test_bad_views_raise(data):
    X, _ = data
    with pytest.raises(ValueError, match="kernel and kernel_params are not used when feature_map"):
        View(kernel="rbf", feature_map=IdentityFeatures()).fit(X)
    with pytest.raises(ValueError, match="feature_map must be a transformer"):
        View(feature_map="rff").fit(X)
    with pytest.raises(ValueError, match="kernel_params must be a dict"):
        View(kernel="rbf", kernel_params="sigma=1").fit(X)
    with pytest.raises(ValueError, match="implicit kernel RBF"):
        View(kernel="rbf").fit(X).centred_features()
    with pytest.raises(ValueError, match="X has 2 features, but View is expecting 3"):
        View().fit(X).check_input(np.ones((2, 2)), estimator="View")
    with pytest.raises(NotFittedError):
        View().gram()


@pytest.mark.parametrize("make", [lambda: View(kernel="rbf", kernel_params={"sigma": 1.5}),
                                  lambda: View(feature_map=RandomFourierFeatures(n_features=20, random_state=0))],
                         ids=["kernel", "features"])
def test_fit_computes_the_statistics_and_queries_never_change_the_view(data, make):
    X, X_new = data
    view = make().fit(X)
    assert view.centerer_ is not None and np.isfinite(view.scale_)  # before any query
    fitted = {k: np.copy(v) for k, v in vars(view).items() if isinstance(v, (np.ndarray, float))}
    centerer = (view.centerer_.row_means_.copy(), view.centerer_.grand_mean_)
    queried = [view.centred_kernel_rows(X_new), view.centred_gram(), view.gram(), view.centred_gram(),
               view.centred_kernel_rows(X_new)]
    np.testing.assert_array_equal(queried[0], queried[4])
    np.testing.assert_array_equal(queried[1], queried[3])
    for key, value in fitted.items():
        np.testing.assert_array_equal(getattr(view, key), value)
    np.testing.assert_array_equal(view.centerer_.row_means_, centerer[0])
    assert view.centerer_.grand_mean_ == centerer[1]


def test_fit_centred_gram_returns_the_matrix_of_fit(data):
    X, _ = data
    fitted = View(kernel="rbf", kernel_params={"sigma": 1.5}).fit(X)
    view = View(kernel="rbf", kernel_params={"sigma": 1.5})
    np.testing.assert_array_equal(view.fit_centred_gram(X), fitted.centred_gram())
    assert view.scale_ == fitted.scale_
    np.testing.assert_array_equal(view.centerer_.row_means_, fitted.centerer_.row_means_)


def test_an_uncentred_view_builds_no_gram_matrix_and_refuses_centred_queries(data):
    X, X_new = data
    calls = []

    class Counting(RBF):
        def __call__(self, X, Y=None):
            calls.append(Y is None)
            return super().__call__(X, Y)

    view = View(kernel=Counting(1.5)).fit(X, centre=False)
    assert calls == [] and view.centerer_ is None
    np.testing.assert_array_equal(view.gram(), View(kernel=RBF(1.5)).fit(X).gram())
    for query in (view.centred_gram, lambda: view.centred_kernel_rows(X_new),
                  lambda: view.preimage_mean_term(np.ones(X.shape[0]))):
        with pytest.raises(ValueError, match="centre=False"):
            query()


@pytest.mark.parametrize("make", [lambda: View(kernel="rbf", kernel_params={"sigma": 1.5}),
                                  lambda: View(feature_map=IdentityFeatures())], ids=["kernel", "features"])
def test_preimage_mean_term_is_the_mean_times_the_point(data, make):
    """``mu^T phi_c`` for ``phi_c = Phi_c^T alpha``: with explicit features, computed directly."""
    X, _ = data
    view = make().fit(X)
    alpha = np.random.default_rng(1).normal(size=(4, X.shape[0]))
    if view.explicit:
        expected = (alpha @ view.centred_features()) @ view.feature_mean_
    else:  # k(x_i, phi) = k_c,i + r_i + mu^T phi_c: the kernel smoother's uncentring (Chapter 7)
        r, g = view.centerer_.row_means_, view.centerer_.grand_mean_
        expected = alpha @ (r - g)
    np.testing.assert_allclose(view.preimage_mean_term(alpha), expected, rtol=1e-12, atol=1e-12)
    assert view.preimage_mean_term(alpha[0]).shape == ()


def test_a_dual_fit_evaluates_the_training_kernel_once(data):
    """The level fits the view while building its centred Gram matrix: no second n x n evaluation."""
    from rkmlearn import KPCA

    calls = []

    class Counting(RBF):
        def __call__(self, X, Y=None):
            calls.append(Y is None)
            return super().__call__(X, Y)

    X, _ = data
    KPCA(2, kernel=Counting(1.5)).fit(X)
    assert calls == [True]


@pytest.mark.parametrize("make", [lambda: View("rbf", kernel_params={"sigma": 1.2}),
                                  lambda: View(feature_map=RandomFourierFeatures(n_features=15, random_state=0))])
def test_kernel_blocks_are_blocks_of_the_uncentred_kernel_matrices(make):
    """``kernel_blocks()`` tiles ``gram()``, ``kernel_blocks(X)`` tiles ``kernel_rows(X)`` (kernel or features)."""
    rng = np.random.default_rng(1)
    X, X_new = rng.normal(size=(30, 3)), rng.normal(size=(11, 3))
    view = make().fit(X, centre=False)
    for blocks, full in ((view.kernel_blocks(), view.gram()), (view.kernel_blocks(X_new), view.kernel_rows(X_new))):
        for rows in (slice(0, 8), slice(8, 11)):
            for cols in (slice(0, 8), slice(8, 30)):
                np.testing.assert_allclose(blocks(rows, cols), full[rows, cols], rtol=1e-12, atol=1e-14)
