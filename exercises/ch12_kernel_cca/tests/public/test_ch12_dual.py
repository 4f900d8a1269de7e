"""Exercise 2: ``kcca_dual_coef`` solves the dual conditions."""
import numpy as np
import pytest


def _centred_rbf(A, sigma):
    K = np.exp(-((A[:, None] - A[None]) ** 2).sum(axis=2) / (2 * sigma**2))
    return K - K.mean(axis=0) - K.mean(axis=1)[:, None] + K.mean()


@pytest.mark.points(3)
def test_dual_coefficients_solve_the_dual(submission, rng):
    n, kappa = 60, 0.5
    z = rng.normal(size=(n, 1))
    O1 = _centred_rbf(np.hstack([z, rng.normal(size=(n, 1))]), 1.0)
    O2 = _centred_rbf(z ** 2 + 0.1 * rng.normal(size=(n, 1)), 1.0)
    F = [np.linalg.cholesky(O + 1e-12 * np.eye(n)) for O in (O1, O2)]
    # the primal pairs of the factors, computed here independently (whitened SVD)
    L1 = np.linalg.cholesky(F[0].T @ F[0] + kappa * np.eye(n))
    L2 = np.linalg.cholesky(F[1].T @ F[1] + kappa * np.eye(n))
    M = np.linalg.solve(L1, F[0].T @ F[1]) @ np.linalg.inv(L2).T
    U, rho, Vt = np.linalg.svd(M)
    w, v = np.linalg.solve(L1.T, U[:, :2]), np.linalg.solve(L2.T, Vt[:2].T)
    alpha, beta = (np.asarray(a) for a in submission.kcca_dual_coef(F[0], F[1], w, v, rho[:2], kappa))
    G1, G2 = F[0] @ F[0].T, F[1] @ F[1].T
    np.testing.assert_allclose(G2 @ beta, (G1 + kappa * np.eye(n)) @ alpha * rho[:2], atol=1e-8 * np.abs(G2 @ beta).max())
    np.testing.assert_allclose(F[0].T @ alpha, w, atol=1e-8 * np.abs(w).max())
