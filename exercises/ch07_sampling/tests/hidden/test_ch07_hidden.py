"""Hidden tests of the Chapter 7 exercises: edge cases and input validation.

Not handed out (``python -m rkmlearn.grading --student-copy`` leaves this folder out); shown to
students after the due date. Names start with the exercise they grade.
"""
import numpy as np
import pytest


def _centred_rbf(rng, n=20, sigma=1.0):
    X = rng.normal(size=(n, 2))
    K = np.exp(-np.sum((X[:, None] - X[None]) ** 2, axis=-1) / (2 * sigma**2))
    M = np.eye(n) - np.ones((n, n)) / n
    return X, K, M @ K @ M


# ------------------------------------------------------------------ Exercise 1: sample_dual
@pytest.mark.points(1)
def test_sample_dual_at_the_bound_and_single_sample(submission, rng):
    _, _, K_c = _centred_rbf(rng)
    n, q = K_c.shape[0], 2
    lam = np.clip(np.linalg.eigvalsh(K_c)[::-1], 0.0, None)
    sigma2 = lam[q - 1] / n                               # the bound itself is allowed
    B = np.asarray(submission.sample_dual(K_c, q, sigma2, np.eye(n))).T
    np.testing.assert_allclose(np.linalg.eigvalsh(B @ B.T)[::-1][:q], lam[:q] ** 2 / n, rtol=1e-8)
    one = np.asarray(submission.sample_dual(K_c, q, sigma2, rng.standard_normal((1, n))))
    assert one.shape == (1, n)
    # the constant vector's eigenvalue is rounding noise (~1e-16); its square root times sigma may leak
    assert abs(one.sum()) <= 1e-6 * np.abs(one).max(), "a centred kernel vector sums to 0"


@pytest.mark.points(1)
def test_sample_dual_rejects_bad_input(submission, rng):
    _, _, K_c = _centred_rbf(rng)
    n = K_c.shape[0]
    lam = np.linalg.eigvalsh(K_c)[::-1]
    u = np.zeros((3, n))
    with pytest.raises(ValueError, match="u"):
        submission.sample_dual(K_c, 2, 1e-6, np.zeros((3, n - 1)))
    with pytest.raises(ValueError, match="sigma2"):
        submission.sample_dual(K_c, 2, 2 * lam[1] / n, u)
    with pytest.raises(ValueError, match="q"):
        submission.sample_dual(K_c, 0, 1e-6, u)
    with pytest.raises(ValueError, match="K_c"):
        submission.sample_dual(K_c[:, :-1], 2, 1e-6, u)


# ------------------------------------------------------------------ Exercise 2: kernel_smoother
@pytest.mark.points(1)
def test_kernel_smoother_falls_back_without_positive_weight(submission, rng):
    X, K, _ = _centred_rbf(rng)
    row_means, grand_mean = K.mean(axis=1), K.mean()
    k_centred = -np.ones((2, 20)) - row_means               # every uncentred value is -1
    k_centred[0, 3] += 0.5                                   # row 0: the largest value is at 3
    k_centred[1, 7] += 0.5                                   # row 1: the largest value is at 7
    got = np.asarray(submission.kernel_smoother(k_centred, X, row_means, grand_mean))
    assert np.all(np.isfinite(got)), "no NaN or inf: fall back to a training point"
    np.testing.assert_allclose(got[1], X[7], atol=1e-12)
    np.testing.assert_allclose(got[0], X[3], atol=1e-12)


@pytest.mark.points(1)
def test_kernel_smoother_clamps_negative_weights(submission, rng):
    X, K, _ = _centred_rbf(rng)
    row_means, grand_mean = K.mean(axis=1), K.mean()
    k = rng.uniform(-1.0, 1.0, size=(5, 20))
    got = np.asarray(submission.kernel_smoother(k - row_means, X, row_means, grand_mean))
    w = np.maximum(k, 0.0)
    np.testing.assert_allclose(got, (w / w.sum(axis=1, keepdims=True)) @ X, atol=1e-12)


@pytest.mark.points(1)
def test_kernel_smoother_rejects_bad_input(submission, rng):
    X, K, _ = _centred_rbf(rng)
    row_means, grand_mean = K.mean(axis=1), K.mean()
    k = np.zeros((3, 20))
    with pytest.raises(ValueError, match="X_train"):
        submission.kernel_smoother(k, X[:-1], row_means, grand_mean)
    with pytest.raises(ValueError, match="top_k"):
        submission.kernel_smoother(k, X, row_means, grand_mean, top_k=0)
    with pytest.raises(ValueError, match="top_k"):
        submission.kernel_smoother(k, X, row_means, grand_mean, top_k=21)
    with pytest.raises(ValueError, match="mean_term"):
        submission.kernel_smoother(k, X, row_means, grand_mean, mean_term=np.zeros(4))
    with pytest.raises(ValueError, match="row_means"):
        submission.kernel_smoother(k, X, row_means[:-1], grand_mean)
