"""Kernel spectral clustering (rkmlearn.models.spectral_clustering): the dual eigenproblem, the
codes, the out-of-sample extension and the BLF criterion, against independent computations."""

import numpy as np
import pytest
from sklearn.cluster import SpectralClustering
from sklearn.datasets import make_circles, make_moons
from sklearn.metrics import adjusted_rand_score
from sklearn.utils.estimator_checks import check_estimator

from rkmlearn.models.spectral_clustering import KernelSpectralClustering, balanced_line_fit


def _dense_dual(X, sigma, k):
    """The paper's non-symmetric dual D^-1 M_D Omega alpha = lambda alpha, by a dense general eig."""
    sq = ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)
    Omega = np.exp(-sq / (2 * sigma ** 2))
    d = Omega.sum(axis=1)
    n = len(d)
    M_D = np.eye(n) - np.outer(np.ones(n), 1 / d) / (1 / d).sum()
    values, vectors = np.linalg.eig(np.diag(1 / d) @ M_D @ Omega)
    order = np.argsort(-values.real)[: k - 1]
    return values.real[order], vectors[:, order].real, Omega, d


@pytest.mark.parametrize("k", [2, 3, 4])
def test_dual_agrees_with_dense_nonsymmetric_solve(k):
    X, _ = make_moons(200, noise=0.06, random_state=0)
    model = KernelSpectralClustering(k, kernel_params={"sigma": 0.2}).fit(X)
    values, vectors, Omega, d = _dense_dual(X, 0.2, k)
    np.testing.assert_allclose(model.eigenvalues_, values, rtol=1e-10)
    # the same subspace: every principal angle ~ 0
    q1, _ = np.linalg.qr(vectors)
    q2, _ = np.linalg.qr(model.alpha_)
    np.testing.assert_allclose(np.linalg.svd(q1.T @ q2, compute_uv=False), 1.0, atol=1e-8)
    # the bias of the paper and the residual of the dual equation
    b = -(1 / d) @ Omega @ model.alpha_ / (1 / d).sum()
    np.testing.assert_allclose(model.intercept_, b, rtol=1e-10, atol=1e-14)
    Q = np.diag(1 / d) - np.outer(1 / d, 1 / d) / (1 / d).sum()
    np.testing.assert_allclose(Q @ Omega @ model.alpha_, model.alpha_ * model.eigenvalues_, atol=1e-12)


def test_two_moons_and_circles_recovered_like_sklearn():
    for X, y, sigma in [(*make_moons(300, noise=0.06, random_state=0), 0.1),
                        (*make_circles(300, factor=0.4, noise=0.05, random_state=0), 0.15)]:
        labels = KernelSpectralClustering(2, kernel_params={"sigma": sigma}).fit(X).labels_
        reference = SpectralClustering(2, affinity="rbf", gamma=1 / (2 * sigma ** 2), random_state=0).fit(X).labels_
        assert adjusted_rand_score(y, labels) == 1.0
        assert adjusted_rand_score(reference, labels) == 1.0


def test_out_of_sample_extension_is_the_dual_model():
    X, y = make_moons(400, noise=0.06, random_state=1)
    model = KernelSpectralClustering(2, kernel_params={"sigma": 0.1}).fit(X[:200])
    np.testing.assert_array_equal(model.predict(X[:200]), model.labels_)
    sq = ((X[200:, None, :] - X[None, :200, :]) ** 2).sum(axis=2)
    K = np.exp(-sq / (2 * 0.1 ** 2))
    np.testing.assert_allclose(model.transform(X[200:]), K @ model.alpha_ + model.intercept_, atol=1e-13)
    assert adjusted_rand_score(y[200:], model.predict(X[200:])) == 1.0


def test_blf_prefers_the_bandwidth_that_separates():
    X, y = make_moons(300, noise=0.06, random_state=0)
    train, valid = X[::2], X[1::2]
    scores = {s: KernelSpectralClustering(2, kernel_params={"sigma": s}).fit(train).score(valid)
              for s in (0.1, 0.5, 2.0)}
    assert max(scores, key=scores.get) == 0.1


def test_balanced_line_fit_on_ideal_clusters():
    # k = 3: two clusters, each on a line through its own direction, equal sizes -> BLF = 1
    t = np.linspace(1, 2, 10)[:, None]
    scores = np.vstack([t * [1.0, 0.0], t * [0.0, 1.0], t * [-1.0, -1.0]])
    labels = np.repeat([0, 1, 2], 10)
    assert balanced_line_fit(scores, labels, 3) == pytest.approx(1.0)
    # unbalanced: balance 5/10
    assert balanced_line_fit(scores[5:], labels[5:], 3, eta=0.0) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="eta"):
        balanced_line_fit(scores, labels, 3, eta=1.5)


@pytest.mark.parametrize("bad, message", [(0, "n_clusters must be >= 1"), (2.5, "n_clusters must be an integer"),
                                           (True, "n_clusters must be an integer"), (500, "larger than the number")])
def test_bad_n_clusters_named(bad, message):
    X, _ = make_moons(50, random_state=0)
    with pytest.raises(ValueError, match=message):
        KernelSpectralClustering(bad).fit(X)


def test_one_cluster_is_the_trivial_model():
    X, _ = make_moons(50, random_state=0)
    model = KernelSpectralClustering(1).fit(X)
    assert model.transform(X).shape == (50, 0)
    np.testing.assert_array_equal(model.predict(X), 0)


def test_kernel_with_negative_values_rejected():
    X, _ = make_moons(50, random_state=0)
    with pytest.raises(ValueError, match="non-negative with positive row sums"):
        KernelSpectralClustering(2, kernel=None).fit(X - X.mean(axis=0))


def test_scikit_learn_estimator_checks():
    check_estimator(KernelSpectralClustering())
