"""Hidden tests of the Chapter 9 exercises: edge cases and input validation.

Not handed out; shown to students after the due date. Names start with the exercise they grade.
"""
import numpy as np
import pytest


# ------------------------------------------------------------------ Exercise 1: level_kernel
@pytest.mark.points(1)
def test_level_kernel_rejects_bad_input(submission, rng):
    H = rng.normal(size=(10, 2))
    for sigma in (0.0, -1.0):
        with pytest.raises(ValueError, match="sigma"):
            submission.level_kernel(H, sigma)
    with pytest.raises(ValueError, match="H"):
        submission.level_kernel(np.full((4, 2), np.nan), 1.0)


# ------------------------------------------------------------------ Exercise 2: pgd_step
@pytest.mark.points(1)
def test_pgd_step_zero_gradient_keeps_a_stiefel_point(submission, rng):
    H = np.linalg.qr(rng.normal(size=(12, 3)))[0]
    np.testing.assert_allclose(np.asarray(submission.pgd_step(H, np.zeros_like(H), 0.5)), H, atol=1e-12)


@pytest.mark.points(1)
def test_pgd_step_rejects_bad_input(submission, rng):
    H = np.linalg.qr(rng.normal(size=(8, 2)))[0]
    with pytest.raises(ValueError, match="alpha"):
        submission.pgd_step(H, H, 0.0)
    with pytest.raises(ValueError, match="G"):
        submission.pgd_step(H, np.ones((8, 3)), 0.1)
    with pytest.raises(ValueError, match="H"):
        submission.pgd_step(np.ones((2, 3)), np.ones((2, 3)), 0.1)


# ------------------------------------------------------------------ Exercise 3: smoother_latent
@pytest.mark.points(1)
def test_smoother_far_points_take_their_nearest_neighbours_features(submission, rng):
    X, H = rng.normal(size=(20, 2)), rng.normal(size=(20, 3))
    far = X[[5]] * 1e3 + np.array([[1e4, 0.0]])
    got = np.asarray(submission.smoother_latent(X, H, far, 0.1))
    assert np.all(np.isfinite(got)), "no NaN: weights must not all underflow to 0"
    nearest = np.argmin(np.sum((X - far) ** 2, axis=1))
    np.testing.assert_allclose(got[0], H[nearest], atol=1e-12)


@pytest.mark.points(1)
def test_smoother_rejects_bad_input(submission, rng):
    X, H = rng.normal(size=(6, 2)), rng.normal(size=(6, 2))
    with pytest.raises(ValueError, match="sigma"):
        submission.smoother_latent(X, H, X, 0.0)
    with pytest.raises(ValueError, match="H"):
        submission.smoother_latent(X, H[:5], X, 1.0)
    with pytest.raises(ValueError, match="X_new"):
        submission.smoother_latent(X, H, np.ones((2, 3)), 1.0)
