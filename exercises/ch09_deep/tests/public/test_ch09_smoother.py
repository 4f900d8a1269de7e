"""Exercise 3: ``smoother_latent(X_train, H, X_new, sigma)``. Reference: DeepRKMClassifier.transform."""
import numpy as np
import pytest


@pytest.mark.points(2)
def test_smoother_matches_the_deep_rkm(submission, rng):
    from rkmlearn import DeepRKMClassifier

    X = rng.normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    model = DeepRKMClassifier((3, 2), kernel_params=[{"sigma": 1.0}, {"sigma": 0.3}], smoother_sigma=0.4,
                              max_iter=5, random_state=0).fit(X, y)
    X_new = rng.normal(size=(7, 2))
    got = np.asarray(submission.smoother_latent(X, model.H_[-1], X_new, 0.4))
    np.testing.assert_allclose(got, model.transform(X_new), atol=1e-12)


@pytest.mark.points(1)
def test_smoother_weights_are_normalised_gaussians(submission, rng):
    X, H = rng.normal(size=(15, 3)), rng.normal(size=(15, 2))
    X_new = rng.normal(size=(4, 3))
    D = np.sum((X_new[:, None] - X[None]) ** 2, axis=-1)
    W = np.exp(-D / (2 * 1.5**2))
    expected = (W / W.sum(axis=1, keepdims=True)) @ H
    np.testing.assert_allclose(np.asarray(submission.smoother_latent(X, H, X_new, 1.5)), expected, atol=1e-12)
