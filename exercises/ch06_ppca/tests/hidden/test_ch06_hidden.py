"""Hidden tests of the Chapter 6 exercises: edge cases and input validation.

Not handed out (``python -m rkmlearn.grading --student-copy`` leaves this folder out); shown to
students after the due date. Names start with the exercise they grade.
"""
import numpy as np
import pytest


def _centred_rbf(rng, n=20, sigma=1.0):
    X = rng.normal(size=(n, 2))
    K = np.exp(-np.sum((X[:, None] - X[None]) ** 2, axis=-1) / (2 * sigma**2))
    M = np.eye(n) - np.ones((n, n)) / n
    return M @ K @ M


# ------------------------------------------------------------------ Exercise 1: sigma2_ml
@pytest.mark.points(1)
def test_sigma2_ml_last_discarded_direction(submission, rng):
    # q = r - 1: one discarded direction, sigma2 = lambda_r / N; zeros beyond the rank are ignored
    spectrum = np.sort(rng.uniform(0.5, 3.0, size=6))[::-1]
    padded = np.concatenate([spectrum, np.zeros(4)])
    got = submission.sigma2_ml(padded, 10, 5, 6)
    np.testing.assert_allclose(got, spectrum[5] / 10, rtol=1e-12)


@pytest.mark.points(1)
def test_sigma2_ml_rejects_bad_input(submission):
    spectrum = np.array([3.0, 2.0, 1.0, 0.5])
    for kwargs, name in [({"q": 4, "rank": 4}, "q"), ({"q": 0, "rank": 4}, "q"),
                         ({"q": 1, "rank": 5}, "rank"), ({"q": 1, "rank": 4, "n_samples": 0}, "n_samples")]:
        args = {"eigenvalues": spectrum, "n_samples": 10, **kwargs}
        with pytest.raises(ValueError, match=name):
            submission.sigma2_ml(**args)
    with pytest.raises(ValueError, match="eigenvalues"):
        submission.sigma2_ml(np.array([1.0, 2.0, 3.0]), 10, 1, 3)   # ascending


# ------------------------------------------------------------------ Exercise 2: dual_ml
@pytest.mark.points(1)
def test_dual_ml_at_the_bound_switches_off_the_last_component(submission, rng):
    K_c = _centred_rbf(rng)
    n, q = K_c.shape[0], 3
    lam = np.linalg.eigvalsh(K_c)[::-1][:q]
    A = np.asarray(submission.dual_ml(K_c, q, lam[-1] / n))
    assert np.all(np.isfinite(A))
    np.testing.assert_allclose(A[:, -1], 0.0, atol=1e-7)
    np.testing.assert_allclose(np.linalg.norm(A[:, 0]) ** 2, 1 / n - lam[-1] / (n * lam[0]), rtol=1e-8)


@pytest.mark.points(1)
def test_dual_ml_rejects_bad_input(submission, rng):
    K_c = _centred_rbf(rng)
    n = K_c.shape[0]
    lam = np.linalg.eigvalsh(K_c)[::-1]
    with pytest.raises(ValueError, match="sigma2"):
        submission.dual_ml(K_c, 2, 2 * lam[1] / n)        # above lambda_q / N
    with pytest.raises(ValueError, match="sigma2"):
        submission.dual_ml(K_c, 2, -1e-3)
    with pytest.raises(ValueError, match="q"):
        submission.dual_ml(K_c, n, 1e-6)
    bad = K_c.copy()
    bad[0, 1] += 1.0
    with pytest.raises(ValueError, match="K_c"):
        submission.dual_ml(bad, 2, 1e-6)


# ------------------------------------------------------------------ Exercise 3: latent_posterior
@pytest.mark.points(1)
def test_latent_posterior_of_training_points_at_the_optimum(submission, rng):
    # With A_ML: M = Lambda_q / N, so mean = N Lambda_q^{-1} A^T k_c and cov = N sigma2 Lambda_q^{-1}.
    K_c = _centred_rbf(rng, n=25)
    n, q = 25, 2
    lam, E = np.linalg.eigh(K_c)
    lam, E = lam[::-1][:q], E[:, ::-1][:, :q]
    sigma2 = 0.2 * lam[-1] / n
    A = E * np.sqrt(1 / n - sigma2 / lam)
    mean, cov = submission.latent_posterior(K_c, K_c, A, sigma2)
    np.testing.assert_allclose(mean, n * (K_c @ A) / lam, atol=1e-9)
    np.testing.assert_allclose(cov, np.diag(n * sigma2 / lam), rtol=1e-9, atol=1e-14)


@pytest.mark.points(1)
def test_latent_posterior_rejects_bad_input(submission, rng):
    K_c = _centred_rbf(rng)
    A = rng.normal(size=(20, 2))
    with pytest.raises(ValueError, match="Kc_test"):
        submission.latent_posterior(np.ones((3, 19)), K_c, A, 0.1)
    with pytest.raises(ValueError, match="A"):
        submission.latent_posterior(np.ones((3, 20)), K_c, A[:10], 0.1)
    with pytest.raises(ValueError, match="sigma2"):
        submission.latent_posterior(np.ones((3, 20)), K_c, A, 0.0)
