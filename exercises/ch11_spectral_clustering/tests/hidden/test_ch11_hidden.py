"""Hidden tests of the Chapter 11 exercises: more clusters, blobs, and input validation."""
import numpy as np
import pytest


@pytest.mark.points(2)
def test_dual_four_blobs_every_eigenvalue(submission, rng):
    centres = np.array([[0, 0], [5, 0], [0, 5], [5, 5]], dtype=float)
    X = np.vstack([c + 0.5 * rng.normal(size=(25, 2)) for c in centres])
    Omega = np.exp(-((X[:, None] - X[None]) ** 2).sum(axis=2) / 2.0)
    alpha, b, lam = (np.asarray(a) for a in submission.ksc_dual(Omega, 4))
    d = Omega.sum(axis=1)
    Q = np.diag(1 / d) - np.outer(1 / d, 1 / d) / (1 / d).sum()
    values = np.sort(np.linalg.eigvals(Q @ Omega).real)[::-1][:3]
    np.testing.assert_allclose(lam, values, rtol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(alpha * np.sqrt(d)[:, None], axis=0), 1.0, rtol=1e-10)


@pytest.mark.points(1)
@pytest.mark.parametrize("k", [1, 2.5, True, 1000])
def test_dual_rejects_bad_k(submission, k):
    Omega = np.exp(-np.subtract.outer(np.arange(5.0), np.arange(5.0)) ** 2)
    with pytest.raises(ValueError, match="k"):
        submission.ksc_dual(Omega, k)


@pytest.mark.points(1)
def test_dual_rejects_negative_kernel(submission):
    X = np.random.default_rng(0).normal(size=(10, 2))
    X -= X.mean(axis=0)
    with pytest.raises(ValueError, match="Omega"):
        submission.ksc_dual(X @ X.T, 2)


@pytest.mark.points(1)
def test_assign_rejects_mismatched_columns(submission):
    with pytest.raises(ValueError, match="codebook|scores"):
        submission.ksc_assign(np.zeros((3, 2)), np.ones((2, 3)))
