"""Hidden tests of the Chapter 1 exercises: edge cases and input validation.

Not handed out (``python -m rkmlearn.grading --student-copy`` leaves this folder out); shown to
students after the due date. Names start with the exercise they grade.
"""
import numpy as np
import pytest


def _sqdist(A, B):
    """Squared distances by explicit differences: slow, but free of the BLAS-form cancellation."""
    return np.sum((A[:, None, :] - B[None, :, :]) ** 2, axis=-1)


def _centring_matrix(n):
    return np.eye(n) - np.ones((n, n)) / n


def _centred_rbf_gram(rng, n, d=2, sigma=1.0):
    X = rng.normal(size=(n, d))
    M = _centring_matrix(n)
    return M @ np.exp(-_sqdist(X, X) / (2 * sigma**2)) @ M


# ------------------------------------------------------------------ Exercise 1: rbf_gram
@pytest.mark.points(1)
def test_rbf_gram_stays_in_unit_interval_far_from_origin(submission, rng):
    # Points far from the origin, some repeated: ||x||^2 + ||y||^2 - 2 x^T y cancels badly and
    # can come out negative, so exp(...) > 1 unless the squared distances are clipped at 0.
    base = 1e3 + 1e-3 * rng.normal(size=(20, 3))
    X = np.vstack([base, base[::-1]])
    Y = base[:7] + 0.0
    for K in (submission.rbf_gram(X, sigma=0.01), submission.rbf_gram(X, Y, sigma=0.01)):
        assert np.all(K <= 1.0) and np.all(K >= 0.0), (
            f"kernel values must lie in [0, 1]; got range [{K.min()!r}, {K.max()!r}]: clip the "
            "squared distances at 0")
    K = submission.rbf_gram(X, Y, sigma=0.01)
    np.testing.assert_allclose(K, np.exp(-_sqdist(X, Y) / (2 * 0.01**2)), atol=1e-4)


@pytest.mark.points(1)
def test_rbf_gram_non_default_sigma(submission, rng):
    X, Y = rng.normal(size=(15, 5)), rng.normal(size=(9, 5))
    for sigma in (0.3, 7.5):
        np.testing.assert_allclose(
            submission.rbf_gram(X, Y, sigma=sigma), np.exp(-_sqdist(X, Y) / (2 * sigma**2)),
            rtol=1e-9, atol=1e-14, err_msg=f"wrong values for sigma = {sigma}")


@pytest.mark.points(1)
def test_rbf_gram_rejects_mismatched_features(submission, rng):
    with pytest.raises(ValueError, match="Y"):
        submission.rbf_gram(rng.normal(size=(5, 3)), rng.normal(size=(4, 2)))


@pytest.mark.points(1)
def test_rbf_gram_rejects_one_dimensional_X(submission):
    with pytest.raises(ValueError, match="X"):
        submission.rbf_gram(np.arange(5.0))


# ------------------------------------------------------------------ Exercise 2: center_train_test
@pytest.mark.points(1)
def test_centering_single_test_point(submission, rng):
    train, test = rng.normal(size=(25, 3)), rng.normal(size=(1, 3)) + 2.0
    mu = train.mean(axis=0)
    _, Kc_test = submission.center_train_test(train @ train.T, test @ train.T)
    np.testing.assert_allclose(Kc_test, (test - mu) @ (train - mu).T, rtol=1e-10, atol=1e-10)


@pytest.mark.points(1)
def test_centering_training_points_as_test_points(submission, rng):
    A = rng.normal(size=(15, 15))
    K = A @ A.T
    Kc_train, Kc_test = submission.center_train_test(K, K.copy())
    M = _centring_matrix(15)
    np.testing.assert_allclose(Kc_train, M @ K @ M, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(Kc_test, Kc_train, rtol=1e-10, atol=1e-10)


@pytest.mark.points(1)
def test_centering_does_not_modify_its_inputs(submission, rng):
    train, test = rng.normal(size=(10, 2)), rng.normal(size=(4, 2))
    K_train, K_test = train @ train.T, test @ train.T
    before = K_train.copy(), K_test.copy()
    out = submission.center_train_test(K_train, K_test)
    # The function works on its own copies (the grader never writes them back); the grader
    # reports which arguments it changed in place.
    assert not submission.last_call.modified, (
        "center_train_test changed its input arrays in place; work on copies")
    # Leaving the inputs alone is only worth a point for a function that does its job.
    assert isinstance(out, tuple) and len(out) == 2, "center_train_test must return (Kc_train, Kc_test)"
    M = _centring_matrix(10)
    np.testing.assert_allclose(out[0], M @ before[0] @ M, rtol=1e-10, atol=1e-10)


# ------------------------------------------------------------------ Exercise 3: kpca_eig
@pytest.mark.points(1)
def test_kpca_eig_all_n_minus_1_components(submission, rng):
    n = 12
    Kc = _centred_rbf_gram(rng, n)
    eigenvalues, H = submission.kpca_eig(Kc, n - 1)
    eigenvalues, H = np.asarray(eigenvalues), np.asarray(H)
    assert eigenvalues.shape == (n - 1,) and H.shape == (n, n - 1)
    np.testing.assert_allclose(eigenvalues, np.linalg.eigvalsh(Kc)[::-1][: n - 1], rtol=1e-8,
                               atol=1e-12)
    np.testing.assert_allclose(H.T @ H, np.eye(n - 1), atol=1e-9)
    np.testing.assert_allclose(Kc @ H, H * eigenvalues, atol=1e-9)


@pytest.mark.points(1)
def test_kpca_eig_rejects_bad_n_components(submission, rng):
    n = 10
    Kc = _centred_rbf_gram(rng, n)
    for bad in (0, -1, n, n + 5, 2.5):
        with pytest.raises(ValueError, match="n_components"):
            submission.kpca_eig(Kc, bad)


@pytest.mark.points(1)
def test_kpca_eig_rejects_non_symmetric_or_non_square(submission, rng):
    Kc = _centred_rbf_gram(rng, 8)
    skewed = Kc.copy()
    skewed[0, 1] += 0.5
    with pytest.raises(ValueError, match="Kc"):
        submission.kpca_eig(skewed, 2)
    with pytest.raises(ValueError, match="Kc"):
        submission.kpca_eig(Kc[:, :6], 2)


# ------------------------------------------------------------------ Exercise 4: kpca_transform
@pytest.mark.points(1)
def test_kpca_transform_equals_primal_projection_for_linear_kernel(submission, rng):
    # Linear kernel: phi(x) = x, so the primal route can be computed explicitly. With eta = 1,
    # W = Phi_c^T H and h(x) = Lambda^{-1} W^T phi_c(x).
    train, test = rng.normal(size=(30, 3)) @ np.diag([3.0, 2.0, 1.0]), rng.normal(size=(6, 3))
    mu = train.mean(axis=0)
    Phi_c, phi_c_test = train - mu, test - mu
    values, vectors = np.linalg.eigh(Phi_c @ Phi_c.T)
    eigenvalues, H = values[::-1][:2], vectors[:, ::-1][:, :2]
    W = Phi_c.T @ H
    expected = (phi_c_test @ W) / eigenvalues
    h = submission.kpca_transform(phi_c_test @ Phi_c.T, eigenvalues, H)
    np.testing.assert_allclose(h, expected, rtol=1e-9, atol=1e-12)


@pytest.mark.points(1)
def test_kpca_transform_rejects_mismatched_shapes(submission, rng):
    H = np.linalg.qr(rng.normal(size=(8, 3)))[0]
    eigenvalues = np.array([3.0, 2.0, 1.0])
    with pytest.raises(ValueError, match="Kc_test"):
        submission.kpca_transform(np.ones((4, 7)), eigenvalues, H)
    with pytest.raises(ValueError, match="eigenvalues"):
        submission.kpca_transform(np.ones((4, 8)), eigenvalues[:2], H)
