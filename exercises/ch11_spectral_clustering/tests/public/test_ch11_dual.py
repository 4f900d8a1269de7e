"""Exercise 1: ``ksc_dual(Omega, k)`` against a dense solve of the paper's non-symmetric eigenproblem."""
import numpy as np
import pytest


def _moons(n, seed):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, np.pi, n)
    upper = rng.random(n) < 0.5
    X = np.where(upper[:, None], np.column_stack([np.cos(t), np.sin(t)]),
                 np.column_stack([1 - np.cos(t), 0.5 - np.sin(t)]))
    return X + 0.07 * rng.normal(size=(n, 2)), upper.astype(int)


def _rbf(X, sigma):
    return np.exp(-((X[:, None] - X[None]) ** 2).sum(axis=2) / (2 * sigma**2))


@pytest.mark.points(3)
@pytest.mark.parametrize("k", [2, 3])
def test_dual_matches_dense_nonsymmetric_solve(submission, k):
    X, _ = _moons(120, 0)
    Omega = _rbf(X, 0.2)
    alpha, b, lam = (np.asarray(a) for a in submission.ksc_dual(Omega, k))
    d = Omega.sum(axis=1)
    n = len(d)
    M_D = np.eye(n) - np.outer(np.ones(n), 1 / d) / (1 / d).sum()
    values = np.sort(np.linalg.eigvals(np.diag(1 / d) @ M_D @ Omega).real)[::-1][: k - 1]
    assert alpha.shape == (n, k - 1) and b.shape == (k - 1,) and lam.shape == (k - 1,)
    np.testing.assert_allclose(lam, values, rtol=1e-9)
    Q = np.diag(1 / d) - np.outer(1 / d, 1 / d) / (1 / d).sum()
    np.testing.assert_allclose(Q @ Omega @ alpha, alpha * lam, atol=1e-10 * np.abs(alpha).max())
    np.testing.assert_allclose(b, -(1 / d) @ Omega @ alpha / (1 / d).sum(), atol=1e-12)


@pytest.mark.points(2)
def test_dual_clusters_two_moons(submission):
    X, y = _moons(200, 1)
    Omega = _rbf(X, 0.15)
    alpha, b, _ = (np.asarray(a) for a in submission.ksc_dual(Omega, 2))
    labels = (Omega @ alpha + b)[:, 0] >= 0
    agreement = max((labels == y).mean(), (labels != y).mean())
    assert agreement >= 0.97
