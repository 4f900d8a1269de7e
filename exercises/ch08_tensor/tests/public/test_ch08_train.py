"""Exercise 2: ``train_rho_tmv(kernels, Y, rho, lam, eta)``, all outputs with one factorisation."""
import numpy as np
import pytest


def _problem(rng, n=30, V=3):
    from rkmlearn.kernels import RBF

    y = np.arange(n) % 3
    Xs = [y[:, None] + 0.8 * rng.normal(size=(n, 2)) for _ in range(V)]
    return Xs, y, [RBF(sigma=1.5)(X) for X in Xs]


@pytest.mark.points(2)
def test_train_matches_a_dense_solve(submission, rng):
    Xs, y, grams = _problem(rng)
    Y = 2.0 * np.eye(3)[y] - 1.0
    for rho in (0.0, 0.5):
        tau = (1 - rho) * 3 + rho
        K = (1 - rho) * sum(grams) + rho * grams[0] * grams[1] * grams[2]
        A = np.zeros((31, 31))
        A[:30, :30], A[:30, 30], A[30, :30] = K / 0.8 + 0.2 * np.eye(30), tau, 1.0
        sol = np.linalg.solve(A, np.vstack([tau * Y, np.zeros((1, 3))]))
        alpha, b = submission.train_rho_tmv(grams, Y, rho, 0.2, 0.8)
        np.testing.assert_allclose(np.asarray(alpha), sol[:30], rtol=1e-9, atol=1e-10,
                                   err_msg=f"alpha differs from the dense solve of the system at rho = {rho}")
        np.testing.assert_allclose(np.asarray(b).ravel(), sol[30], rtol=1e-9, atol=1e-10,
                                   err_msg=f"b differs from the dense solve at rho = {rho}")


@pytest.mark.points(1)
def test_train_matches_rkmlearn(submission, rng):
    from rkmlearn import TensorMultiViewRKM
    from rkmlearn.kernels import RBF

    Xs, y, grams = _problem(rng)
    model = TensorMultiViewRKM([RBF(sigma=1.5)] * 3, rho=0.7, lam=0.3).fit(Xs, y)
    alpha, b = submission.train_rho_tmv(grams, model.codebook_[y], 0.7, 0.3)
    np.testing.assert_allclose(np.asarray(alpha), model.dual_coef_, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(np.asarray(b).ravel(), model.intercept_, rtol=1e-9, atol=1e-10)
