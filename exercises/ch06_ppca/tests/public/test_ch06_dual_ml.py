"""Exercise 2: ``dual_ml(K_c, q, sigma2)``, the dual interconnection matrix A_ML.

References: explicit random Fourier features built here (so that the primal W_ML can be computed
from the d x d covariance) and rkmlearn's ProbabilisticKPCA.
"""
import numpy as np
import pytest


def _features(rng, n=50, d=3, D=30, sigma=1.5):
    X = rng.normal(size=(n, d))
    Omega = rng.normal(size=(d, D)) / sigma
    b = rng.uniform(0, 2 * np.pi, D)
    Phi = np.sqrt(2.0 / D) * np.cos(X @ Omega + b)
    return X, Phi - Phi.mean(axis=0)


@pytest.mark.points(2)
def test_dual_ml_gives_the_primal_W(submission, rng):
    _, Phi_c = _features(rng)
    n, q = Phi_c.shape[0], 4
    C = Phi_c.T @ Phi_c
    lam, V = np.linalg.eigh(C)
    lam, V = lam[::-1][:q], V[:, ::-1][:, :q]
    sigma2 = 0.5 * lam[-1] / n
    W_primal = V * np.sqrt(lam / n - sigma2)          # eq-ppca-ml with R = I
    A = np.asarray(submission.dual_ml(Phi_c @ Phi_c.T, q, sigma2))
    assert A.shape == (n, q), f"A must have shape (N, q) = {(n, q)}, got {A.shape}"
    W_dual = Phi_c.T @ A
    # the rotation R is arbitrary: compare W W^T
    np.testing.assert_allclose(W_dual @ W_dual.T, W_primal @ W_primal.T, atol=1e-10,
                               err_msg="W = Phi_c^T A_ML must equal the primal W_ML (compared as W W^T)")


@pytest.mark.points(1)
def test_dual_ml_identity_behind_the_map(submission, rng):
    _, Phi_c = _features(rng)
    K_c = Phi_c @ Phi_c.T
    n, q = K_c.shape[0], 3
    lam = np.linalg.eigvalsh(K_c)[::-1][:q]
    sigma2 = 0.3 * lam[-1] / n
    A = np.asarray(submission.dual_ml(K_c, q, sigma2))
    np.testing.assert_allclose(A.T @ K_c @ A + sigma2 * np.eye(q), np.diag(lam / n), atol=1e-12,
                               err_msg="A^T K_c A + sigma2 I must equal Lambda_q / N")


@pytest.mark.points(1)
def test_dual_ml_matches_rkmlearn_with_sign_convention(submission, rng):
    from rkmlearn.kernels import RBF, GramCenterer
    from rkmlearn import ProbabilisticKPCA

    X = rng.normal(size=(35, 2))
    K_c = GramCenterer().fit_transform(RBF(1.2)(X))
    for q in (1, 5):
        model = ProbabilisticKPCA(q, kernel_params={"sigma": 1.2}).fit(X)
        A = np.asarray(submission.dual_ml(K_c, q, model.sigma2_))
        np.testing.assert_allclose(A, model.A_, atol=1e-9, err_msg=(
            f"A differs from rkmlearn's A_ for q = {q} (check the sign convention: each column's "
            "entry of largest absolute value is positive)"))
