"""Exercise 2: ``pgd_step(H, G, alpha)``. Reference: rkmlearn.solvers.stiefel.project_stiefel."""
import numpy as np
import pytest


@pytest.mark.points(2)
def test_pgd_step_matches_rkmlearn(submission, rng):
    from rkmlearn.solvers.stiefel import project_stiefel

    H = np.linalg.qr(rng.normal(size=(40, 3)))[0]
    G = rng.normal(size=(40, 3))
    for alpha in (0.01, 1.0):
        got = np.asarray(submission.pgd_step(H, G, alpha))
        np.testing.assert_allclose(got, project_stiefel(H - alpha * G), atol=1e-12,
                                   err_msg=f"wrong step (alpha={alpha})")


@pytest.mark.points(1)
def test_pgd_step_lands_on_the_stiefel_manifold(submission, rng):
    H = np.linalg.qr(rng.normal(size=(30, 4)))[0]
    H_new = np.asarray(submission.pgd_step(H, 5 * rng.normal(size=(30, 4)), 0.7))
    assert np.abs(H_new.T @ H_new - np.eye(4)).max() <= 1e-12, "H_new^T H_new must be I"
