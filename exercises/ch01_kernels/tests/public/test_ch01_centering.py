"""Exercise 2: ``center_train_test(K_train, K_test)``, centring with the TRAINING statistics.

The reference values come from explicit feature vectors: with the linear kernel k(x, y) = x^T y
the feature map is phi(x) = x, so centring in feature space is subtracting the training mean.
"""
import numpy as np
import pytest


def _features(rng, n=30, m=12, d=4):
    train = rng.normal(size=(n, d)) + 1.0
    test = rng.normal(size=(m, d)) * 2.0 + 3.0   # the test set has a mean of its own
    return train, test


@pytest.mark.points(1)
def test_train_equals_centring_matrix_product(submission, rng):
    A = rng.normal(size=(20, 20))
    K_train = A @ A.T
    M = np.eye(20) - np.ones((20, 20)) / 20
    Kc_train, _ = submission.center_train_test(K_train, K_train[:3])
    np.testing.assert_allclose(Kc_train, M @ K_train @ M, rtol=1e-10, atol=1e-10,
                               err_msg="Kc_train differs from M_c K M_c")


@pytest.mark.points(2)
def test_matches_explicit_feature_space_centring(submission, rng):
    train, test = _features(rng)
    mu = train.mean(axis=0)
    Kc_train, Kc_test = submission.center_train_test(train @ train.T, test @ train.T)
    np.testing.assert_allclose(Kc_train, (train - mu) @ (train - mu).T, rtol=1e-10, atol=1e-10,
                               err_msg="Kc_train differs from <phi(x_i) - mu, phi(x_j) - mu>")
    np.testing.assert_allclose(
        Kc_test, (test - mu) @ (train - mu).T, rtol=1e-10, atol=1e-10,
        err_msg="Kc_test differs from <phi(x) - mu, phi(x_i) - mu> with mu the TRAINING mean")


@pytest.mark.points(1)
def test_matches_scikit_learn_kernel_centerer(submission, rng):
    from sklearn.metrics.pairwise import rbf_kernel
    from sklearn.preprocessing import KernelCenterer

    train, test = _features(rng)
    K_train, K_test = rbf_kernel(train, gamma=0.3), rbf_kernel(test, train, gamma=0.3)
    centerer = KernelCenterer().fit(K_train)
    Kc_train, Kc_test = submission.center_train_test(K_train, K_test)
    np.testing.assert_allclose(Kc_train, centerer.transform(K_train), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(Kc_test, centerer.transform(K_test), rtol=1e-10, atol=1e-12)


@pytest.mark.points(1)
def test_test_rows_are_not_centred_with_their_own_means(submission, rng):
    train, test = _features(rng)
    _, Kc_test = submission.center_train_test(train @ train.T, test @ train.T)
    # With training statistics the test offset mu_test - mu_train survives: the columns of Kc_test
    # do not average to zero. Centring with the test set's own means would wipe it out.
    offset = (test.mean(axis=0) - train.mean(axis=0)) @ (train - train.mean(axis=0)).T
    assert not np.allclose(Kc_test.mean(axis=0), 0.0), (
        "the columns of Kc_test average to zero: the test matrix was centred with its own means; "
        "use the TRAINING row means and grand mean")
    np.testing.assert_allclose(Kc_test.mean(axis=0), offset, rtol=1e-9, atol=1e-10)


@pytest.mark.points(1)
def test_rejects_mismatched_shapes(submission, rng):
    K_train = np.eye(6)
    with pytest.raises(ValueError, match="K_test"):
        submission.center_train_test(K_train, np.ones((3, 5)))
    with pytest.raises(ValueError, match="K_train"):
        submission.center_train_test(np.ones((6, 5)), np.ones((3, 5)))
