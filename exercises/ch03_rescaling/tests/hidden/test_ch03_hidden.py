"""Hidden tests of the Chapter 3 exercises: the derived shrink formula, more views of the same
model, and input validation. Not handed out; names start with the exercise they grade.
"""
import numpy as np
import pytest


@pytest.mark.points(1)
def test_impute_rescaled_cancels_Lambda(submission, rng):
    # with U = U~ Lambda^{1/2}, Gamma = Lambda: phi_y = U~_y (I - U~_y^T U~_y)^{-1} U~_x^T phi_x
    U_t = np.linalg.qr(rng.normal(size=(9, 3)))[0]
    lam = np.array([40.0, 7.0, 3.0])
    U = U_t * np.sqrt(lam)
    phi_x = rng.normal(size=(6, 7))
    got = np.asarray(submission.impute_target(U[:7], U[7:], np.diag(lam), phi_x))
    Ux, Uy = U_t[:7], U_t[7:]
    expected = (Uy @ np.linalg.solve(np.eye(3) - Uy.T @ Uy, Ux.T @ phi_x.T)).T
    np.testing.assert_allclose(got, expected, atol=1e-10 * np.abs(expected).max())


@pytest.mark.points(1)
def test_impute_is_exact_in_the_model_subspace(submission, rng):
    U_t = np.linalg.qr(rng.normal(size=(8, 3)))[0]
    lam = np.array([12.0, 6.0, 2.0])
    a = rng.normal(size=(3, 5))
    phi = (U_t @ a).T  # samples in the span of U~
    got = np.asarray(submission.impute_target(*(submission.rescale(U_t, lam)[:6], submission.rescale(U_t, lam)[6:]),
                                              lam, phi[:, :6]))
    np.testing.assert_allclose(got, phi[:, 6:], atol=1e-10)


@pytest.mark.points(1)
def test_impute_single_sample_and_shapes(submission, rng):
    U_x, U_y = rng.normal(size=(4, 2)), 0.2 * rng.normal(size=(3, 2))
    out = np.asarray(submission.impute_target(U_x, U_y, np.array([5.0, 4.0]), rng.normal(size=(1, 4))))
    assert out.shape == (1, 3)


@pytest.mark.points(1)
def test_rescale_rejects_bad_input(submission, rng):
    U = np.linalg.qr(rng.normal(size=(5, 2)))[0]
    for args, match in [
        ((U, [1.0, -2.0]), "eigenvalues"),
        ((U, [1.0, 2.0, 3.0]), "eigenvalues"),
        ((U[:, 0], [1.0]), "U_tilde"),
        ((U, [1.0, np.nan]), "eigenvalues"),
    ]:
        with pytest.raises(ValueError, match=match):
            submission.rescale(*args)


@pytest.mark.points(1)
def test_impute_rejects_bad_input(submission, rng):
    U_x, U_y, lam = rng.normal(size=(4, 2)), rng.normal(size=(3, 2)), np.array([50.0, 40.0])
    phi = rng.normal(size=(2, 4))
    for args, match in [
        ((U_x, U_y[:, :1], lam, phi), "U_y"),
        ((U_x, U_y, lam, phi[:, :3]), "phi_x"),
        ((U_x, U_y, np.ones(3), phi), "Gamma"),
        ((U_x, U_y, np.array([[50.0, 1.0], [0.0, 40.0]]), phi), "Gamma"),
    ]:
        with pytest.raises(ValueError, match=match):
            submission.impute_target(*args)
