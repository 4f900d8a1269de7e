"""The generalised symmetric eigenproblem A x = lambda B x (B SPD) through the solvers and the level.

A small regularised kernel CCA, written here, is the model problem: two views with Gram matrices
K1, K2 (centred), ``[[0, K1 K2], [K2 K1, 0]] x = rho [[(K1 + kappa I)^2, 0], [0, (K2 + kappa I)^2]] x``.
Its eigenvalues are +- the canonical correlations of the regularised problem, i.e. the singular
values of ``(K1 + kappa I)^{-1} K1 K2 (K2 + kappa I)^{-1}``.
"""

import numpy as np
import pytest
import scipy.linalg

from rkmlearn import View, solve_level
from rkmlearn.solvers.generalized import generalized_eigenpairs
from rkmlearn.solvers.subspace import LevelOptions, leading_subspace


def centred_gram(X, sigma):
    sq = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    M = np.eye(len(X)) - 1.0 / len(X)
    return M @ np.exp(-sq / (2 * sigma**2)) @ M


@pytest.fixture(scope="module")
def cca():
    """Two noisy views of one latent signal; the kernel CCA's A and B, and its n, kappa."""
    rng = np.random.default_rng(0)
    n, kappa = 30, 0.1
    z = rng.normal(size=(n, 1))
    X1 = np.hstack([z, z**2]) + 0.3 * rng.normal(size=(n, 2))
    X2 = np.hstack([np.sin(z), z]) + 0.3 * rng.normal(size=(n, 2))
    K1, K2 = centred_gram(X1, 1.0), centred_gram(X2, 1.0)
    R1, R2 = K1 + kappa * np.eye(n), K2 + kappa * np.eye(n)
    Z = np.zeros((n, n))
    A = np.block([[Z, K1 @ K2], [K2 @ K1, Z]])
    B = np.block([[R1 @ R1, Z], [Z, R2 @ R2]])
    A, B = 0.5 * (A + A.T), 0.5 * (B + B.T)
    return A, B, K1, K2, R1, R2, n


def canonical_correlations(K1, K2, R1, R2):
    """Direct: the singular values of R1^{-1} K1 K2 R2^{-1} (a = R1 alpha, b = R2 beta)."""
    M = np.linalg.solve(R1, K1 @ K2) @ np.linalg.inv(R2)
    return np.linalg.svd(M, compute_uv=False)


def correlation(alpha, beta, K1, K2, R1, R2):
    """The regularised canonical correlation of the directions (alpha, beta), computed directly."""
    return (alpha @ K1 @ K2 @ beta) / np.sqrt((alpha @ R1 @ R1 @ alpha) * (beta @ R2 @ R2 @ beta))


def same_up_to_sign(X, Y, atol):
    signs = np.sign(np.sum(X * Y, axis=0))
    np.testing.assert_allclose(X, Y * signs, atol=atol)


@pytest.mark.parametrize("solver", ["dense", "arpack", "block"])
def test_kernel_cca_matches_dense_generalized_eigh_and_direct_correlations(cca, solver):
    A, B, K1, K2, R1, R2, n = cca
    s = 3
    values, X = generalized_eigenpairs(A, B, s, solver=solver)
    w, V = scipy.linalg.eigh(A, B)  # dense reference, ascending
    np.testing.assert_allclose(values, w[::-1][:s], rtol=1e-9)
    np.testing.assert_allclose(X.T @ B @ X, np.eye(s), atol=1e-9)
    same_up_to_sign(X, V[:, ::-1][:, :s], atol=1e-6)
    np.testing.assert_allclose(values, canonical_correlations(K1, K2, R1, R2)[:s], rtol=1e-9)
    for k in range(s):  # each eigenvector is a pair of directions with that correlation
        alpha, beta = X[:n, k], X[n:, k]
        assert correlation(alpha, beta, K1, K2, R1, R2) == pytest.approx(values[k], rel=1e-9)


@pytest.mark.parametrize("method", ["eig", "stiefel"])
def test_leading_subspace_with_a_metric_solves_the_generalized_problem(cca, method):
    A, B, K1, K2, R1, R2, n = cca
    s = 2
    L = np.linalg.cholesky(B)
    sub = leading_subspace(A, s, np.random.RandomState(0), LevelOptions(solver=method), metric_factor=L)
    w = scipy.linalg.eigh(A, B, eigvals_only=True)[::-1][:s]
    np.testing.assert_allclose(sub.values, w, rtol=1e-7)
    np.testing.assert_allclose(sub.basis.T @ B @ sub.basis, np.eye(s), atol=1e-9)
    np.testing.assert_allclose(A @ sub.basis, B @ sub.basis * sub.values, atol=1e-6 * np.abs(A).max())


@pytest.mark.parametrize("solver", ["eig", "stiefel"])
def test_solve_level_with_a_metric_matches_dense_generalized_eigh(solver):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    view = View("rbf", kernel_params={"sigma": 1.5}).fit(X)
    G = rng.normal(size=(40, 40))
    B = np.eye(40) + 0.1 * (G @ G.T) / 40  # SPD, far from the identity
    level = solve_level([view], 3, metric=B, solver=solver, random_state=0, keep_matrix=True)
    w, V = scipy.linalg.eigh(level.matrix, B)
    np.testing.assert_allclose(level.eigenvalues, w[::-1][:3], rtol=1e-8)
    np.testing.assert_allclose(level.H.T @ B @ level.H, np.eye(3), atol=1e-9)
    same_up_to_sign(level.H, V[:, ::-1][:, :3], atol=1e-6)
    # the standard level is the metric B = I
    plain = solve_level([view], 3, solver=solver, random_state=0)
    identity = solve_level([view], 3, metric=np.eye(40), solver=solver, random_state=0)
    np.testing.assert_allclose(identity.H, plain.H, atol=1e-8)


def test_bad_metric_raises_value_error_naming_it(cca):
    A, B, *_ = cca
    m = len(A)
    for bad, match in [(-np.eye(m), "positive definite"), (np.zeros((m, m)), "positive definite"),
                       (np.eye(m - 1), r"\(60, 60\)"), (np.triu(np.ones((m, m))), "symmetric"),
                       (np.full((m, m), np.nan), "NaN")]:
        with pytest.raises(ValueError, match="B") as info:
            generalized_eigenpairs(A, bad, 2)
        assert info.match(match)
    view = View().fit(np.random.default_rng(2).normal(size=(10, 3)))
    with pytest.raises(ValueError, match="metric must be symmetric positive definite"):
        solve_level([view], 2, metric=-np.eye(10))
    with pytest.raises(ValueError, match=r"metric must be \(10, 10\)"):
        solve_level([view], 2, metric=np.eye(9))
    with pytest.raises(ValueError, match="metric is an n x n matrix of the dual problem"):
        solve_level([view], 2, setting="primal", metric=np.eye(10))
