"""Tests of rkmlearn.kernels: values, symmetry, PSD, validation and training-statistics centring."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.metrics import pairwise
from sklearn.preprocessing import KernelCenterer

from rkmlearn.features import RandomFourierFeatures
from rkmlearn.kernels import (
    KERNELS,
    RBF,
    CallableKernel,
    Cosine,
    GramCenterer,
    Kernel,
    Laplacian,
    Linear,
    Polynomial,
    centering_matrix,
    make_kernel,
    squared_euclidean_distances,
)

ALL_KERNELS = [Linear(), RBF(0.7), RBF(3.0), Laplacian(2.0), Polynomial(2, 0.5), Polynomial(3, 0.0), Cosine()]


def _data(n=30, d=4, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


def _sklearn_equivalent(kernel, X, Y=None):
    if isinstance(kernel, Linear):
        return pairwise.linear_kernel(X, Y)
    if isinstance(kernel, RBF):
        return pairwise.rbf_kernel(X, Y, gamma=1.0 / (2.0 * kernel.sigma**2))
    if isinstance(kernel, Laplacian):
        return pairwise.laplacian_kernel(X, Y, gamma=1.0 / kernel.sigma)
    if isinstance(kernel, Polynomial):
        return pairwise.polynomial_kernel(X, Y, degree=kernel.degree, gamma=1.0, coef0=kernel.c)
    if isinstance(kernel, Cosine):
        return pairwise.cosine_similarity(X, Y)
    raise AssertionError(kernel)


# ------------------------------------------------------------------- values vs scikit-learn
@pytest.mark.parametrize("kernel", ALL_KERNELS, ids=repr)
def test_matches_sklearn_pairwise(kernel):
    X, Y = _data(40, 5, 1), _data(25, 5, 2)
    for A, B in [(X, None), (X, Y)]:
        ours = kernel(A, B)
        ref = _sklearn_equivalent(kernel, A, B)
        assert ours.dtype == np.float64
        assert ours.shape == ref.shape
        np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kernel", ALL_KERNELS, ids=repr)
def test_gram_exactly_symmetric_with_exact_diag(kernel):
    X = _data(300, 6, 3)  # > one 256-block of the tiled symmetrisation
    K = kernel(X)
    assert np.array_equal(K, K.T)
    np.testing.assert_array_equal(np.diag(K), kernel.diag(X))


def test_unit_diagonal_kernels_have_diag_exactly_one():
    X = _data(50, 3)
    for kernel in [RBF(0.1), Laplacian(5.0), Cosine()]:
        assert np.all(np.diag(kernel(X)) == 1.0)


def test_diag_values():
    X = _data(20, 3)
    np.testing.assert_allclose(Linear().diag(X), np.sum(X**2, axis=1), rtol=1e-14)
    np.testing.assert_allclose(
        Polynomial(3, 2.0).diag(X), (np.sum(X**2, axis=1) + 2.0) ** 3, rtol=1e-13
    )


def test_rbf_formula_on_explicit_pairs():
    X, Y = _data(7, 3, 4), _data(5, 3, 5)
    sigma = 1.3
    explicit = np.exp(-((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1) / (2 * sigma**2))
    np.testing.assert_allclose(RBF(sigma)(X, Y), explicit, rtol=1e-13, atol=1e-15)
    lap = np.exp(-np.abs(X[:, None, :] - Y[None, :, :]).sum(-1) / sigma)
    np.testing.assert_allclose(Laplacian(sigma)(X, Y), lap, rtol=1e-13, atol=1e-15)


def test_cosine_zero_row_is_zero_like_sklearn():
    X = np.array([[0.0, 0.0], [1.0, 2.0], [3.0, -1.0]])
    K = Cosine()(X)
    assert np.all(K[0] == 0.0) and np.all(K[:, 0] == 0.0)
    np.testing.assert_array_equal(Cosine().diag(X), [0.0, 1.0, 1.0])
    np.testing.assert_allclose(K, pairwise.cosine_similarity(X), atol=1e-15)


def test_squared_distances_clipped_and_exact_on_duplicates():
    X = np.vstack([_data(10, 3)] * 2) * 1e3  # duplicates: distance must be exactly 0, not < 0
    D = squared_euclidean_distances(X)
    assert np.all(D >= 0.0)
    assert np.array_equal(D, D.T)
    assert np.all(np.diag(D) == 0.0)
    D_xy = squared_euclidean_distances(X[:10], X[10:])
    assert np.all(D_xy >= 0.0)
    explicit = ((X[:10, None] - X[None, 10:]) ** 2).sum(-1)
    np.testing.assert_allclose(D_xy, explicit, atol=1e-9 * explicit.max())


# ----------------------------------------------------------------------------- properties
finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False, width=64)


@settings(max_examples=40, deadline=None)
@given(
    X=arrays(np.float64, st.tuples(st.integers(2, 12), st.integers(1, 4)), elements=finite),
    k=st.sampled_from(range(len(ALL_KERNELS))),
)
def test_property_symmetric_psd(X, k):
    kernel = ALL_KERNELS[k]
    K = kernel(X)
    assert np.array_equal(K, K.T)
    evals = np.linalg.eigvalsh(K)  # tiny test matrix: the full spectrum is the point here
    assert evals.min() >= -1e-10 * max(evals.max(), 1.0)


@settings(max_examples=40, deadline=None)
@given(
    X=arrays(np.float64, st.tuples(st.integers(1, 10), st.integers(1, 3)), elements=finite),
    sigma=st.floats(0.05, 20.0),
)
def test_property_rbf_in_unit_interval_and_matches_sklearn(X, sigma):
    K = RBF(sigma)(X)
    exponent = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / (2 * sigma**2)
    assert np.all(K[exponent < 700.0] > 0.0)  # exp(-700) is still a normal float64
    assert np.all(K >= 0.0)
    assert np.all(K <= 1.0)
    ref = pairwise.rbf_kernel(X, gamma=1.0 / (2 * sigma**2))
    np.fill_diagonal(ref, 1.0)
    np.testing.assert_allclose(K, ref, rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    "build, pattern",
    [
        (lambda: RBF(0.0), r"^sigma must be in \(0.0, inf\)"),
        (lambda: RBF(-1.0), r"^sigma must be in"),
        (lambda: RBF(np.inf), r"^sigma must be a finite"),
        (lambda: RBF(np.nan), r"^sigma must be a finite"),
        (lambda: RBF("1"), r"^sigma must be a real number"),
        (lambda: Laplacian(0), r"^sigma must be in"),
        (lambda: Polynomial(degree=0), r"^degree must be in \[1, inf\)"),
        (lambda: Polynomial(degree=2.5), r"^degree must be an integer"),
        (lambda: Polynomial(degree=True), r"^degree must be an integer"),
        (lambda: Polynomial(c=-0.1), r"^c must be in \[0.0, inf\)"),
    ],
)
def test_bad_hyperparameters_at_construction(build, pattern):
    with pytest.raises(ValueError, match=pattern):
        build()


def test_bad_hyperparameters_at_call_time():
    X = _data(5, 2)
    k = RBF(1.0)
    k.sigma = -2.0
    with pytest.raises(ValueError, match="^sigma must be in"):
        k(X)
    with pytest.raises(ValueError, match="^sigma must be in"):
        k.diag(X)
    p = Polynomial()
    p.degree = 0
    with pytest.raises(ValueError, match="^degree must be in"):
        p(X, X)


@pytest.mark.parametrize("kernel", ALL_KERNELS, ids=repr)
def test_bad_inputs(kernel):
    X = _data(5, 3)
    with pytest.raises(ValueError, match="^Y has 2 features but X has 3"):
        kernel(X, X[:, :2])
    with pytest.raises(ValueError, match="^X contains NaN"):
        kernel(np.array([[np.nan, 1.0, 2.0]]))
    with pytest.raises(ValueError, match="^Y contains NaN"):
        kernel(X, np.array([[np.inf, 1.0, 2.0]]))
    with pytest.raises(ValueError, match="^X must be a 2-D array"):
        kernel(np.ones(3))
    with pytest.raises(ValueError, match="^X is empty"):
        kernel(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="^X must contain real numbers"):
        kernel(np.array([["a", "b", "c"]]))
    with pytest.raises(ValueError, match="^X must be real-valued"):
        kernel(X + 1j)


# ------------------------------------------------------------------ repr, eq, params, make
def test_repr_eq_hash_params():
    assert repr(RBF(sigma=2.0)) == "RBF(sigma=2.0)"
    assert repr(Polynomial(2, 0.5)) == "Polynomial(degree=2, c=0.5)"
    assert repr(Linear()) == "Linear()"
    assert RBF(2.0) == RBF(2.0) and RBF(2.0) != RBF(1.0) and RBF(1.0) != Laplacian(1.0)
    assert len({RBF(2.0), RBF(2.0), Linear()}) == 2
    assert RBF(2.0).get_params() == {"sigma": 2.0}
    k = RBF(1.0).set_params(sigma=3.0)
    assert k.sigma == 3.0
    with pytest.raises(ValueError, match="'gamma' is not a parameter of RBF"):
        RBF().set_params(gamma=1.0)


def test_make_kernel():
    assert make_kernel() == RBF(1.0)
    assert make_kernel("rbf", sigma=2.0) == RBF(2.0)
    assert make_kernel("Polynomial", degree=2, c=0.0) == Polynomial(2, 0.0)
    for name, cls in KERNELS.items():
        assert type(make_kernel(name)) is cls
    k = Laplacian(0.5)
    assert make_kernel(k) is k


def test_make_kernel_errors():
    with pytest.raises(ValueError, match=r"kernel='gauss' is unknown; valid names are \['cosine', 'laplacian', 'linear', 'polynomial', 'rbf'\]"):
        make_kernel("gauss")
    with pytest.raises(ValueError, match="cannot be combined with the Kernel instance"):
        make_kernel(RBF(1.0), sigma=2.0)
    with pytest.raises(ValueError, match=r"kernel_params \['gamma'\] are not parameters of the 'rbf'"):
        make_kernel("rbf", gamma=1.0)
    with pytest.raises(ValueError, match="^kernel must be a name"):
        make_kernel(3)
    with pytest.raises(ValueError, match="^sigma must be in"):
        make_kernel("laplacian", sigma=-1)


def test_callable_kernel():
    def scaled_linear(X, Y, scale=1.0):
        return scale * X @ Y.T

    k = make_kernel(scaled_linear, scale=2.0)
    assert isinstance(k, CallableKernel) and isinstance(k, Kernel)
    X, Y = _data(6, 3), _data(4, 3, 1)
    np.testing.assert_allclose(k(X, Y), 2.0 * X @ Y.T, rtol=1e-15)
    K = k(X)
    assert np.array_equal(K, K.T)
    np.testing.assert_allclose(k.diag(X), 2.0 * np.sum(X**2, axis=1), rtol=1e-14)
    assert "scaled_linear" in repr(k)
    with pytest.raises(ValueError, match="^kernel output is not symmetric"):
        make_kernel(lambda A, B: A @ B.T + np.arange(len(B)))(X)
    with pytest.raises(ValueError, match="^kernel output has shape"):
        make_kernel(lambda A, B: A @ A.T)(X, Y)
    with pytest.raises(ValueError, match="^kernel output contains NaN"):
        make_kernel(lambda A, B: np.full((len(A), len(B)), np.nan))(X)


def test_callable_kernel_does_not_modify_returned_array():
    stored = {}

    def kernel(A, B):
        stored["K"] = A @ B.T + 1e-14 * np.triu(np.ones((len(A), len(B))), 1)
        return stored["K"]

    X = _data(5, 2)
    before = kernel(X, X).copy()
    make_kernel(kernel)(X)
    np.testing.assert_array_equal(stored["K"], before)


# ------------------------------------------------------------------------------- centring
def test_centering_matrix():
    M = centering_matrix(5)
    np.testing.assert_allclose(M @ M, M, atol=1e-15)  # a projection
    np.testing.assert_allclose(M @ np.ones(5), 0.0, atol=1e-15)
    np.testing.assert_allclose(M, np.eye(5) - np.ones((5, 5)) / 5, atol=0)
    for bad in [0, -3, 2.5]:
        with pytest.raises(ValueError, match="^n must be"):
            centering_matrix(bad)


def test_fit_transform_equals_mc_k_mc_and_is_symmetric():
    X = _data(40, 3)
    K = RBF(1.5)(X)
    M = centering_matrix(len(X))
    K_c = GramCenterer().fit_transform(K)
    np.testing.assert_allclose(K_c, M @ K @ M, atol=1e-13)
    assert np.array_equal(K_c, K_c.T)
    np.testing.assert_allclose(K_c.sum(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(K_c.sum(axis=1), 0.0, atol=1e-12)


def test_fit_stores_training_statistics_of_uncentred_matrix():
    K = Linear()(_data(10, 3) + 5.0)  # far from 0: the statistics are large, not 0
    c = GramCenterer().fit(K)
    np.testing.assert_allclose(c.row_means_, K.mean(axis=1), rtol=1e-14)
    np.testing.assert_allclose(c.grand_mean_, K.mean(), rtol=1e-14)
    assert c.n_samples_fit_ == 10
    assert abs(c.grand_mean_) > 1.0


def _explicit_centred(Z_train, Z_test):
    mu = Z_train.mean(axis=0)  # TRAINING mean, also for test points
    return (Z_train - mu) @ (Z_train - mu).T, (Z_test - mu) @ (Z_train - mu).T


@pytest.mark.parametrize("features", ["linear", "rff"])
def test_test_centering_equals_explicit_feature_centering(features):
    """Regression test: centring test rows with offsets taken from the already centred
    training matrix makes the offsets 0 and gives a wrong answer; this catches it."""
    X_train, X_test = _data(60, 3, 7) + 2.0, _data(15, 3, 8) - 1.0
    if features == "linear":
        Z_train, Z_test = X_train, X_test
    else:
        rff = RandomFourierFeatures(sigma=1.0, n_features=300, random_state=0).fit(X_train)
        Z_train, Z_test = rff.transform(X_train), rff.transform(X_test)
    K_train, K_test = Z_train @ Z_train.T, Z_test @ Z_train.T
    ref_train, ref_test = _explicit_centred(Z_train, Z_test)

    centerer = GramCenterer()
    np.testing.assert_allclose(centerer.fit_transform(K_train), ref_train, rtol=0, atol=1e-12)
    np.testing.assert_allclose(centerer.transform(K_test), ref_test, rtol=0, atol=1e-12)
    # the naive (wrong) test centring differs by far more than the tolerance
    assert np.abs(K_test - ref_test).max() > 1e-3


def test_matches_sklearn_kernel_centerer():
    X, Xt = _data(50, 4), _data(9, 4, 1)
    kernel = Laplacian(2.0)
    K, Kt = kernel(X), kernel(Xt, X)
    ours = GramCenterer().fit(K)
    ref = KernelCenterer().fit(K)
    np.testing.assert_allclose(ours.transform(K), ref.transform(K), atol=1e-13)
    np.testing.assert_allclose(ours.transform(Kt), ref.transform(Kt), atol=1e-13)


@settings(max_examples=30, deadline=None)
@given(X=arrays(np.float64, st.tuples(st.integers(2, 15), st.integers(1, 3)), elements=finite))
def test_property_centring_idempotent_and_zero_sums(X):
    K = Polynomial(2, 1.0)(X)
    K_c = GramCenterer().fit_transform(K)
    # Rounding in K - (r_i + r_j - g) is relative to the entries of K, not of K_c (which can be ~0).
    scale = max(np.abs(K).max(), 1.0)
    np.testing.assert_allclose(K_c.sum(axis=0), 0.0, atol=1e-12 * scale * len(X))
    np.testing.assert_allclose(K_c.sum(axis=1), 0.0, atol=1e-12 * scale * len(X))
    np.testing.assert_allclose(GramCenterer().fit_transform(K_c), K_c, atol=1e-12 * scale)


def test_centerer_errors():
    K = RBF()(_data(6, 2))
    with pytest.raises(ValueError, match=r"^K must be a square"):
        GramCenterer().fit(K[:, :4])
    with pytest.raises(ValueError, match=r"^K must be a symmetric"):
        GramCenterer().fit(K + np.triu(np.ones_like(K), 1))
    with pytest.raises(ValueError, match=r"^K contains NaN"):
        GramCenterer().fit(np.full((3, 3), np.nan))
    c = GramCenterer().fit(K)
    with pytest.raises(ValueError, match=r"^K_test has 4 columns but .* 6 training samples"):
        c.transform(K[:, :4])
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        GramCenterer().transform(K)


def test_gram_centerer_fit_features_equals_fit_on_the_gram_matrix():
    rng = np.random.default_rng(11)
    Phi = rng.normal(size=(25, 6)) + 3.0
    Phi_test = rng.normal(size=(4, 6)) + 3.0
    mean = Phi.mean(axis=0)
    from_gram = GramCenterer().fit(Phi @ Phi.T)
    from_features = GramCenterer().fit_features(Phi - mean, mean)
    np.testing.assert_allclose(from_features.row_means_, from_gram.row_means_, rtol=1e-13)
    assert from_features.grand_mean_ == pytest.approx(from_gram.grand_mean_, rel=1e-13)
    np.testing.assert_allclose(from_features.transform(Phi_test @ Phi.T), (Phi_test - mean) @ (Phi - mean).T,
                               atol=1e-11)


@pytest.mark.parametrize("n", [255, 256, 257, 600])
def test_tiled_gram_matrices_are_exactly_symmetric_and_right_across_tile_edges(n):
    """The Gram path finishes 256 x 256 tiles of the upper triangle and mirrors them: check sizes that
    end exactly on, just before and just after a tile edge, against the direct formula."""
    rng = np.random.default_rng(n)
    X = rng.normal(size=(n, 5))
    X[7] = X[3]  # a duplicate, off the diagonal: distance >= 0 (rounding, clipped), never negative
    D = squared_euclidean_distances(X)
    direct = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    assert np.array_equal(D, D.T) and np.all(np.diag(D) == 0.0) and D.min() >= 0.0
    np.testing.assert_allclose(D, direct, atol=1e-12 * direct.max())
    K = RBF(sigma=1.5)(X)
    assert np.array_equal(K, K.T) and np.all(np.diag(K) == 1.0)
    np.testing.assert_allclose(K, np.exp(-direct / (2 * 1.5**2)), rtol=1e-12, atol=1e-15)
    # the rectangular path (row blocks) agrees with the Gram path
    np.testing.assert_allclose(RBF(sigma=1.5)(X, X), K, rtol=1e-12, atol=1e-15)


def test_fit_transform_inplace_same_bits_as_fit_transform_and_no_second_matrix():
    import tracemalloc

    X = np.random.default_rng(5).normal(size=(1500, 4))
    K = RBF(1.5)(X)
    expected = GramCenterer().fit_transform(K)
    centerer = GramCenterer()
    tracemalloc.start()
    out = centerer.fit_transform_inplace(K)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert out is K
    np.testing.assert_array_equal(out, expected)  # the same bits, exactly symmetric
    np.testing.assert_array_equal(out, out.T)
    assert peak < 0.15 * K.nbytes  # a row block at a time (~1 MB), never an n x n temporary
    np.testing.assert_allclose(centerer.row_means_, RBF(1.5)(X).mean(axis=1))


# ----------------------------------------------------------------------------- blocks
@pytest.mark.parametrize("kernel", [RBF(1.3), Laplacian(2.0), Polynomial(degree=2), RBF(1e-300), RBF(1e300)])
def test_blocks_tile_the_kernel_matrix(kernel):
    """``kernel.blocks(X[, Y])(rows, cols)`` is the ``[rows, cols]`` block of ``kernel(X[, Y])`` across
    tile edges (RBF: the fused product of augmented rows; extreme sigma and the other kernels: the
    kernel on the slices), and a diagonal block of the Gram matrix has the exact diagonal."""
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(37, 4)), rng.normal(size=(23, 4))
    for A, B, blocks in ((X, X, kernel.blocks(X)), (X, Y, kernel.blocks(X, Y))):
        full = kernel(A) if B is A else kernel(A, B)
        for i in range(0, A.shape[0], 16):
            for j in range(0, B.shape[0], 16):
                rows, cols = slice(i, min(i + 16, A.shape[0])), slice(j, min(j + 16, B.shape[0]))
                block = blocks(rows, cols)
                np.testing.assert_allclose(block, full[rows, cols], rtol=1e-12, atol=1e-15)
                if B is A and i == j:
                    np.testing.assert_array_equal(np.diag(block), kernel.diag(A[rows]))
    with pytest.raises(ValueError, match="features"):
        kernel.blocks(X, Y[:, :3])


def test_rbf_fused_gram_skips_the_finiteness_scan_only_when_a_bound_proves_it():
    """The fused RBF path is used where ``4 c max ||x||^2 < 1e300`` (its exponents cannot overflow);
    a huge X takes the distances path, whose overflow check still names the cause."""
    X = np.random.default_rng(0).normal(size=(30, 3))
    kernel = RBF(0.7)
    assert kernel._finite_by_construction(X, None, {"sigma": 0.7})
    assert not kernel._finite_by_construction(X * 1e160, None, {"sigma": 0.7})
    K = kernel(X * 1e-3)
    assert np.array_equal(K, K.T) and np.all(np.diag(K) == 1.0) and K.max() <= 1.0
    exponent = ((X[:, None] - X[None]) ** 2).sum(-1) / (2 * 0.7**2)
    np.testing.assert_allclose(kernel(X), np.exp(-exponent), rtol=1e-12, atol=1e-300)
