"""Matrix-free dual levels (issue 33): the same answer as the dense path, without the n x n matrix."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

from rkmlearn import KPCA, MultiViewKPCA, ProbabilisticKPCA, View
from rkmlearn.features import RandomFourierFeatures
from rkmlearn.kernels import RBF, Laplacian
from rkmlearn.kernels import operator as gram_operator
from rkmlearn.kernels.operator import CentredGramOperator, upper_strip_products
from rkmlearn.level import solve_level
from rkmlearn.solvers import operator as solver_operator
from rkmlearn.solvers.linear import pivoted_cholesky

RNG = np.random.default_rng(0)
X = RNG.normal(size=(700, 6))
X2 = np.tanh(X @ RNG.normal(size=(6, 4))) + 0.1 * RNG.normal(size=(700, 4))
X_NEW = RNG.normal(size=(40, 6))


def _angle(A, B):
    return float(np.max(scipy.linalg.subspace_angles(A, B)))


@pytest.fixture
def matrix_free(monkeypatch):
    """Every dual level past the budget (0 bytes): the estimators take the matrix-free path."""
    monkeypatch.setattr(gram_operator, "GRAM_BYTES", 0)


@pytest.fixture
def counted(monkeypatch):
    """Count the operators built (the matrix-free path taken)."""
    built = []
    original = CentredGramOperator.__init__

    def init(self, *args, **kwargs):
        built.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(CentredGramOperator, "__init__", init)
    return built


def _assert_same_level(dense_values, dense_H, values, H):
    np.testing.assert_allclose(values, dense_values, rtol=1e-8)
    assert _angle(H, dense_H) <= 1e-6


def test_upper_strips_sum_to_the_centred_product():
    """Strips of the upper triangle, each from its first row on, sum to K_c V (tiles centred)."""
    kernel, V = RBF(2.0), RNG.normal(size=(700, 3))
    K = kernel(X)
    r = K.mean(axis=1)
    K_c = K - (np.add.outer(r, r) - r.mean())
    total = np.zeros_like(V)
    for a, b in ((0, 100), (100, 612), (612, 700)):
        total[a:] += upper_strip_products([kernel], [X[a:]], V[a:], b - a, centre=(r[a:], r.mean()))
    np.testing.assert_allclose(total, K_c @ V, atol=1e-12 * np.abs(K_c @ V).max())
    sums = sum(np.pad(upper_strip_products([kernel], [X[a:]], None, b - a), ((0, 0), (a, 0)))
               for a, b in ((0, 300), (300, 700)))
    np.testing.assert_allclose(sums[0], K.sum(axis=1), rtol=1e-13)


def test_operator_diagonal_columns_and_statistics_match_the_centred_matrix():
    kernels = [RBF(2.0), Laplacian(3.0)]
    operator = CentredGramOperator(kernels, [X, X])
    K_c = sum(View(k).fit_centred_gram(X) for k in kernels)
    V = RNG.normal(size=(700, 5))
    np.testing.assert_allclose(operator.matmat(V), K_c @ V, atol=1e-11 * np.abs(K_c @ V).max())
    np.testing.assert_allclose(operator.diagonal(), np.diagonal(K_c), atol=1e-13)
    np.testing.assert_allclose(operator.column(17), K_c[:, 17], atol=1e-13)
    assert operator.trace() == pytest.approx(np.trace(K_c), rel=1e-13)


def test_pivoted_cholesky_from_columns_is_lapacks():
    K_c = View(RBF(3.0)).fit_centred_gram(X[:200])
    lam = float(np.linalg.eigvalsh(K_c)[-1])
    F, piv, rank = pivoted_cholesky(K_c, lam)
    G, piv2, rank2 = solver_operator.pivoted_cholesky_columns(np.diagonal(K_c).copy(), lambda i: K_c[:, i], lam)
    assert rank2 == rank and rank < 200
    np.testing.assert_array_equal(piv2, piv)
    np.testing.assert_allclose(G @ G.T, F @ F.T, atol=1e-10 * lam)


@pytest.mark.parametrize("sigma, s", [(2.0, 5), (8.0, 10)])
def test_level_matrix_free_equals_dense(sigma, s, counted):
    dense = solve_level([View("rbf", kernel_params={"sigma": sigma})], s, Xs=[X], random_state=0)
    assert not counted
    free = solve_level([View("rbf", kernel_params={"sigma": sigma})], s, Xs=[X], random_state=0, gram_budget=0)
    assert counted
    _assert_same_level(dense.eigenvalues, dense.H, free.eigenvalues, free.H)
    np.testing.assert_allclose(free.H, dense.H, atol=1e-8)  # the same signs (the one sign rule)
    assert free.trace == pytest.approx(dense.trace, rel=1e-12)
    np.testing.assert_allclose(free.scores[0], dense.scores[0], atol=1e-8 * np.abs(dense.scores[0]).max())


def test_small_problems_stay_dense_under_the_default_budget(counted):
    KPCA(3, kernel_params={"sigma": 2.0}).fit(X)
    assert not counted  # the stored notebook outputs come from the dense path, bit for bit


def test_kpca_matrix_free_equals_dense(monkeypatch, counted):
    dense = KPCA(6, kernel_params={"sigma": 3.0}, random_state=0).fit(X)
    monkeypatch.setattr(gram_operator, "GRAM_BYTES", 0)
    free = KPCA(6, kernel_params={"sigma": 3.0}, random_state=0).fit(X)
    assert counted
    _assert_same_level(dense.eigenvalues_, dense.H_, free.eigenvalues_, free.H_)
    np.testing.assert_allclose(free.centerer_.row_means_, dense.centerer_.row_means_, rtol=1e-13)
    np.testing.assert_allclose(free.explained_variance_ratio_, dense.explained_variance_ratio_, rtol=1e-8)
    np.testing.assert_allclose(free.transform(X_NEW), dense.transform(X_NEW), atol=1e-8)


@pytest.mark.parametrize("kernels, feature_maps", [(["rbf", Laplacian(4.0)], None),
                                                    (["rbf", None], [None, RandomFourierFeatures(n_features=30, random_state=0)])])
def test_multiview_kpca_matrix_free_equals_dense(kernels, feature_maps, monkeypatch, counted):
    dense = MultiViewKPCA(4, kernels=kernels, feature_maps=feature_maps, random_state=0).fit([X, X2])
    monkeypatch.setattr(gram_operator, "GRAM_BYTES", 0)
    free = MultiViewKPCA(4, kernels=kernels, feature_maps=feature_maps, random_state=0).fit([X, X2])
    assert counted
    _assert_same_level(dense.eigenvalues_, dense.H_, free.eigenvalues_, free.H_)
    new = [X_NEW, X2[:40]]
    np.testing.assert_allclose(free.transform(new), dense.transform(new), atol=1e-8)
    np.testing.assert_allclose(free.predict_view(new, 1), dense.predict_view(new, 1), atol=1e-7)


def test_probabilistic_kpca_matrix_free_equals_dense(monkeypatch, counted):
    dense = ProbabilisticKPCA(3, kernel_params={"sigma": 1.5}, random_state=0).fit(X[:400])
    monkeypatch.setattr(gram_operator, "GRAM_BYTES", 0)
    free = ProbabilisticKPCA(3, kernel_params={"sigma": 1.5}, random_state=0).fit(X[:400])
    assert counted
    _assert_same_level(dense.eigenvalues_, dense.E_, free.eigenvalues_, free.E_)
    assert free.rank_ == dense.rank_
    assert free.sigma2_ == pytest.approx(dense.sigma2_, rel=1e-8)
    assert free.total_variance_ == pytest.approx(dense.total_variance_, rel=1e-12)
    np.testing.assert_allclose(free.transform(X_NEW), dense.transform(X_NEW), atol=1e-7)
    np.testing.assert_allclose(free.score_samples(X_NEW), dense.score_samples(X_NEW), rtol=1e-7)


def test_block_solver_falls_back_to_arpack_on_the_same_products(monkeypatch):
    dense = solve_level([View("rbf", kernel_params={"sigma": 2.0})], 4, Xs=[X], random_state=0)
    monkeypatch.setattr(solver_operator, "OPERATOR_PASSES", 1)  # the block solver gives up at once
    free = solve_level([View("rbf", kernel_params={"sigma": 2.0})], 4, Xs=[X], random_state=0, gram_budget=0)
    _assert_same_level(dense.eigenvalues, dense.H, free.eigenvalues, free.H)


def test_transform_streams_kernel_rows_in_chunks(monkeypatch):
    from rkmlearn import views as views_module

    model = KPCA(3, kernel_params={"sigma": 2.0}).fit(X)
    expected = model.transform(X)
    monkeypatch.setattr(views_module, "STREAM_BYTES", 0)
    monkeypatch.setattr(views_module, "CHUNK_BYTES", 8 * 700 * 50)  # chunks of 50 rows
    np.testing.assert_allclose(model.transform(X), expected, atol=1e-13)


def test_dask_input_on_a_loopback_distributed_cluster(counted):
    da = pytest.importorskip("dask.array")
    distributed = pytest.importorskip("distributed")
    local = KPCA(5, kernel_params={"sigma": 3.0}, random_state=0).fit(X)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        lazy = da.from_array(X, chunks=(150, 6))  # five Dask tasks per product
        model = KPCA(5, kernel_params={"sigma": 3.0}, random_state=0).fit(lazy)
        assert counted
        _assert_same_level(local.eigenvalues_, local.H_, model.eigenvalues_, model.H_)
        out = model.transform(da.from_array(X_NEW, chunks=(20, 6)))
        np.testing.assert_allclose(out.compute(), local.transform(X_NEW), atol=1e-8)


def test_dask_input_needs_what_the_matrix_free_path_supports():
    da = pytest.importorskip("dask.array")
    with pytest.raises(ValueError, match="Dask input is solved matrix-free.*solver='eig'"):
        KPCA(2, solver="stiefel").fit(da.from_array(X, chunks=(100, 6)))
