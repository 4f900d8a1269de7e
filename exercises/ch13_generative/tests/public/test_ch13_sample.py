"""Exercise 2: ``sample_hidden`` draws from the Gaussian of the rows of H."""
import numpy as np
import pytest


@pytest.mark.points(2)
def test_sample_uses_the_symmetric_root(submission, rng):
    H = rng.normal(size=(50, 3)) @ np.array([[2.0, 0.0, 0.0], [0.5, 1.0, 0.0], [0.0, 0.3, 0.2]])
    draws = np.asarray(submission.sample_hidden(H, np.random.default_rng(5).standard_normal((7, 3))))
    cov = np.cov(H, rowvar=False)
    w, V = np.linalg.eigh(cov)
    expected = H.mean(axis=0) + np.random.default_rng(5).standard_normal((7, 3)) @ ((V * np.sqrt(w)) @ V.T)
    np.testing.assert_allclose(draws, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.points(1)
def test_sample_moments(submission, rng):
    H = rng.normal(size=(40, 2)) * [3.0, 0.5] + [1.0, -2.0]
    draws = np.asarray(submission.sample_hidden(H, np.random.default_rng(0).standard_normal((100_000, 2))))
    np.testing.assert_allclose(draws.mean(axis=0), H.mean(axis=0), atol=0.03)
    np.testing.assert_allclose(np.cov(draws, rowvar=False), np.cov(H, rowvar=False), atol=0.05)
