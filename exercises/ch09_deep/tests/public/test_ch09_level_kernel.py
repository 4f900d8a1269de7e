"""Exercise 1: ``level_kernel(H, sigma)``. Reference: rkmlearn's RBF kernel and GramCenterer."""
import numpy as np
import pytest


@pytest.mark.points(2)
def test_level_kernel_matches_rkmlearn(submission, rng):
    from rkmlearn.kernels import RBF, GramCenterer

    H = np.linalg.qr(rng.normal(size=(30, 3)))[0]
    for sigma in (0.1, 0.5):
        expected = GramCenterer().fit_transform(RBF(sigma)(H))
        got = np.asarray(submission.level_kernel(H, sigma))
        np.testing.assert_allclose(got, expected, atol=1e-12, err_msg=f"wrong K_c (sigma={sigma})")


@pytest.mark.points(1)
def test_level_kernel_is_centred_and_symmetric(submission, rng):
    H = rng.normal(size=(25, 2)) * 0.2
    K_c = np.asarray(submission.level_kernel(H, 0.3))
    assert K_c.shape == (25, 25) and K_c.dtype == np.float64
    assert np.array_equal(K_c, K_c.T), "K_c must be exactly symmetric"
    assert np.abs(K_c.sum(axis=0)).max() <= 1e-12, "the columns of a centred kernel matrix sum to 0"
