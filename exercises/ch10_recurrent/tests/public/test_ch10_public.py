"""Public tests of the Chapter 10 exercises: the lag matrix, the latent recursion, the KRR pre-image.

References: explicit entry-by-entry constructions, the relation the recursion must satisfy, and
scikit-learn's KernelRidge.
"""
import numpy as np
import pytest


# ------------------------------------------------------------------ Exercise 1: lag_matrix
@pytest.mark.points(2)
def test_lag_matrix_gaussian_entries(submission):
    T, p, sigma_t = 9, 3, 1.7
    A = np.asarray(submission.lag_matrix("gaussian", T, p, sigma_t))
    expected = np.array([[np.exp(-(i - j) ** 2 / (2 * sigma_t ** 2)) if abs(i - j) <= p else 0.0
                          for j in range(T)] for i in range(T)])
    assert A.shape == (T, T)
    np.testing.assert_allclose(A, expected, rtol=1e-13, atol=0)


@pytest.mark.points(2)
def test_lag_matrix_indicator_entries(submission):
    T, p = 7, 2
    A = np.asarray(submission.lag_matrix("indicator", T, p))
    expected = np.array([[1.0 if 1 <= abs(i - j) <= p else 0.0 for j in range(T)] for i in range(T)])
    np.testing.assert_array_equal(A, expected)


# ------------------------------------------------------------------ Exercise 2: latent_step
@pytest.mark.points(2)
def test_latent_step_satisfies_the_stationarity_condition(submission, rng):
    for p, s in ((1, 2), (3, 4)):
        a = rng.uniform(0.3, 1.0, p + 1)
        M = rng.normal(size=(s, s))
        M = M + M.T
        window = rng.normal(size=(2 * p, s))
        h = np.asarray(submission.latent_step(window, M, a))
        assert h.shape == (s,)
        full = np.vstack([window, h])
        lhs = sum(a[abs(l)] * full[p + l] for l in range(-p, p + 1))
        np.testing.assert_allclose(lhs, M @ window[p], atol=1e-10, err_msg=f"p = {p}")


@pytest.mark.points(1)
def test_latent_step_rotates_a_sine(submission):
    # p = 1, a = (0, 1): h_{c+1} = M h_c - h_{c-1}; with M = 2 cos(w) a cosine continues
    w = 0.3
    window = np.array([[np.cos(4 * w)], [np.cos(5 * w)]])
    h = np.asarray(submission.latent_step(window, np.array([[2 * np.cos(w)]]), np.array([0.0, 1.0])))
    np.testing.assert_allclose(h, [np.cos(6 * w)], atol=1e-12)


# ------------------------------------------------------------------ Exercise 3: krr_preimage
@pytest.mark.points(2)
def test_krr_preimage_matches_kernel_ridge(submission, rng):
    from sklearn.kernel_ridge import KernelRidge

    H = rng.normal(size=(40, 3)) * 0.2
    X = np.column_stack([np.sin(H.sum(1) * 5), H[:, 0] ** 2])
    H_new = rng.normal(size=(6, 3)) * 0.2
    sigma, alpha = 0.3, 1e-2
    ref = KernelRidge(alpha=alpha, kernel="rbf", gamma=1 / (2 * sigma ** 2)).fit(H, X).predict(H_new)
    got = np.asarray(submission.krr_preimage(H, X, H_new, sigma, alpha))
    np.testing.assert_allclose(got, ref, rtol=1e-8, atol=1e-10)
