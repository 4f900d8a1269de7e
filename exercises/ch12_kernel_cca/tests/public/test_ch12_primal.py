"""Exercise 1: ``kcca_primal`` against Hotelling's classical CCA and the pencil itself."""
import numpy as np
import pytest


def _views(rng, n=200):
    z = rng.normal(size=(n, 2))
    X = np.hstack([z, rng.normal(size=(n, 3))]) @ rng.normal(size=(5, 5))
    Y = np.hstack([np.sin(z[:, :1]), rng.normal(size=(n, 2)), z[:, 1:] ** 2])
    return X - X.mean(axis=0), Y - Y.mean(axis=0)


@pytest.mark.points(2)
def test_primal_tends_to_classical_cca(submission, rng):
    X, Y = _views(rng)
    rho, w, v = (np.asarray(a) for a in submission.kcca_primal(X, Y, 1e-12, 3))
    Lx, Ly = np.linalg.cholesky(X.T @ X), np.linalg.cholesky(Y.T @ Y)
    M = np.linalg.solve(Lx, X.T @ Y) @ np.linalg.inv(Ly).T
    np.testing.assert_allclose(rho, np.linalg.svd(M, compute_uv=False)[:3], rtol=1e-6)


@pytest.mark.points(3)
def test_primal_solves_the_pencil_and_is_normalised(submission, rng):
    X, Y = _views(rng)
    kappa = 5.0
    rho, w, v = (np.asarray(a) for a in submission.kcca_primal(X, Y, kappa, 2))
    C11, C22, C12 = X.T @ X + kappa * np.eye(5), Y.T @ Y + kappa * np.eye(4), X.T @ Y
    assert w.shape == (5, 2) and v.shape == (4, 2) and rho.shape == (2,)
    np.testing.assert_allclose(C12 @ v, C11 @ w * rho, atol=1e-10 * np.abs(C12 @ v).max())
    np.testing.assert_allclose(C12.T @ w, C22 @ v * rho, atol=1e-10 * np.abs(C12.T @ w).max())
    np.testing.assert_allclose(np.einsum("ij,ik,kj->j", w, C11, w) + np.einsum("ij,ik,kj->j", v, C22, v), 1.0, rtol=1e-10)
