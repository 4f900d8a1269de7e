"""Hidden tests of the Chapter 13 exercises: one view, a singular covariance, input validation."""
import numpy as np
import pytest


@pytest.mark.points(1)
def test_fit_one_view_is_kernel_pca(submission, rng):
    X = rng.normal(size=(30, 3))
    K = X @ X.T
    H, lam = (np.asarray(a) for a in submission.genrkm_fit([K], 2))
    Xc = X - X.mean(axis=0)
    np.testing.assert_allclose(lam, np.linalg.svd(Xc, compute_uv=False)[:2] ** 2, rtol=1e-10)


@pytest.mark.points(1)
def test_sample_singular_covariance(submission, rng):
    t = rng.normal(size=(20, 1))
    H = np.hstack([t, 2 * t])  # rank-1 covariance: draws stay on the line
    draws = np.asarray(submission.sample_hidden(H, np.random.default_rng(1).standard_normal((50, 2))))
    np.testing.assert_allclose(draws[:, 1] - 2 * draws[:, 0], H[:, 1].mean() - 2 * H[:, 0].mean(), atol=1e-10)


@pytest.mark.points(1)
@pytest.mark.parametrize("s", [0, 30, 1.5])
def test_fit_rejects_bad_s(submission, rng, s):
    K = np.eye(30)
    with pytest.raises(ValueError, match="s"):
        submission.genrkm_fit([K], s)


@pytest.mark.points(1)
def test_sample_rejects_mismatched_columns(submission):
    with pytest.raises(ValueError, match="z"):
        submission.sample_hidden(np.ones((5, 2)) + np.arange(5)[:, None], np.zeros((3, 3)))


@pytest.mark.points(1)
def test_fit_rejects_mismatched_views(submission):
    with pytest.raises(ValueError, match="Ks"):
        submission.genrkm_fit([np.eye(5), np.eye(4)], 1)
