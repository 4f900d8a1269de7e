"""Hidden tests of the Chapter 10 exercises: edge cases and input validation.

Not handed out (``python -m rkmlearn.grading --student-copy`` leaves this folder out); shown to
students after the due date. Names start with the exercise they grade.
"""
import numpy as np
import pytest


@pytest.mark.points(1)
def test_lag_matrix_lag_beyond_the_series(submission):
    A = np.asarray(submission.lag_matrix("gaussian", 4, 10, 2.0))
    i, j = np.indices((4, 4))
    np.testing.assert_allclose(A, np.exp(-(i - j) ** 2 / 8.0), rtol=1e-13)
    assert np.asarray(submission.lag_matrix("indicator", 1, 1)).shape == (1, 1)


@pytest.mark.points(1)
def test_lag_matrix_rejects_bad_input(submission):
    for args, name in ((("box", 5, 1), "family"), (("gaussian", 0, 1), "T"), (("gaussian", 5, 0), "p"),
                       (("gaussian", 5, 1, 0.0), "sigma_t"), (("gaussian", 5, 1, -1.0), "sigma_t")):
        with pytest.raises(ValueError, match=name):
            submission.lag_matrix(*args)


@pytest.mark.points(1)
def test_latent_step_uses_a_p_and_keeps_inputs(submission, rng):
    p, s = 2, 3
    a = np.array([1.0, 0.6, 0.2])  # dividing by a_0 or a_1 instead of a_p gives another vector
    M = np.eye(s) * 1.5
    window = rng.normal(size=(2 * p, s))
    before = window.copy()
    h = np.asarray(submission.latent_step(window, M, a))
    expected = (M @ window[p] - a[[2, 1, 0, 1]] @ window) / a[p]
    np.testing.assert_allclose(h, expected, atol=1e-12)
    np.testing.assert_array_equal(window, before)


@pytest.mark.points(1)
def test_latent_step_rejects_bad_input(submission):
    M = np.eye(2)
    with pytest.raises(ValueError, match="a"):
        submission.latent_step(np.zeros((2, 2)), M, np.array([1.0, 0.0]))
    with pytest.raises(ValueError, match="a"):
        submission.latent_step(np.zeros((2, 2)), M, np.array([1.0]))
    with pytest.raises(ValueError, match="window"):
        submission.latent_step(np.zeros((3, 2)), M, np.array([1.0, 0.5]))
    with pytest.raises(ValueError, match="M"):
        submission.latent_step(np.zeros((2, 2)), np.eye(3), np.array([1.0, 0.5]))


@pytest.mark.points(1)
def test_krr_preimage_one_column_and_bad_input(submission, rng):
    from sklearn.kernel_ridge import KernelRidge

    H = rng.normal(size=(20, 2))
    x = np.cos(H[:, 0])
    got = np.asarray(submission.krr_preimage(H, x, H[:3], 1.0, 0.1))
    ref = KernelRidge(alpha=0.1, kernel="rbf", gamma=0.5).fit(H, x).predict(H[:3])
    np.testing.assert_allclose(got.ravel(), ref, rtol=1e-8, atol=1e-10)
    for kwargs, name in (({"sigma": 0.0}, "sigma"), ({"alpha": -1.0}, "alpha")):
        args = {"sigma": 1.0, "alpha": 0.1, **kwargs}
        with pytest.raises(ValueError, match=name):
            submission.krr_preimage(H, x, H[:3], args["sigma"], args["alpha"])
    with pytest.raises(ValueError, match="H_new"):
        submission.krr_preimage(H, x, np.zeros((2, 3)), 1.0, 0.1)
    with pytest.raises(ValueError, match="X_train"):
        submission.krr_preimage(H, x[:5], H[:3], 1.0, 0.1)
