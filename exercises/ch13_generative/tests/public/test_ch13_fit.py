"""Exercise 1: ``genrkm_fit`` against a full eigendecomposition and rkmlearn's MultiViewKPCA."""
import numpy as np
import pytest


def _views(rng, n=80):
    z = rng.normal(size=(n, 2))
    X = np.tanh(z @ rng.normal(size=(2, 4)))
    L = np.eye(3)[(z[:, 0] > 0).astype(int) + (z[:, 1] > 1).astype(int)]
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(axis=2) / 2.0)
    return X, L, K, L @ L.T


@pytest.mark.points(3)
def test_fit_matches_full_eigendecomposition(submission, rng):
    _, _, K1, K2 = _views(rng)
    H, lam = (np.asarray(a) for a in submission.genrkm_fit([K1, K2], 3))
    n = len(K1)
    M = np.eye(n) - 1.0 / n
    values, vectors = np.linalg.eigh(M @ K1 @ M + M @ K2 @ M)
    np.testing.assert_allclose(lam, values[::-1][:3], rtol=1e-10)
    assert H.shape == (n, 3)
    np.testing.assert_allclose(H.T @ H, np.eye(3), atol=1e-10)
    np.testing.assert_allclose(np.abs(H.T @ vectors[:, ::-1][:, :3]), np.eye(3), atol=1e-8)


@pytest.mark.points(2)
def test_fit_is_multiview_kpca(submission, rng):
    from rkmlearn import MultiViewKPCA
    from rkmlearn.kernels import RBF

    X, L, K1, K2 = _views(rng)
    model = MultiViewKPCA(2, kernels=[RBF(sigma=1.0), None]).fit([X, L])
    H, lam = (np.asarray(a) for a in submission.genrkm_fit([K1, K2], 2))
    np.testing.assert_allclose(lam, model.eigenvalues_, rtol=1e-9)
    np.testing.assert_allclose(np.abs(H), np.abs(model.H_), atol=1e-8)
