"""Exercise 1: ``rescale(U_tilde, eigenvalues)``. The reference is ``rkmlearn.MultiViewKPCA``'s
primal ``U_`` and ``U_tilde_``, and the defining property ``U^T U = Lambda``.
"""
import numpy as np
import pytest


@pytest.mark.points(1)
def test_rescale_gives_U_transpose_U_equal_Lambda(submission, rng):
    U_tilde = np.linalg.qr(rng.normal(size=(12, 4)))[0]
    lam = np.sort(rng.uniform(0.5, 50.0, size=4))[::-1]
    U = np.asarray(submission.rescale(U_tilde, lam))
    assert U.shape == (12, 4)
    np.testing.assert_allclose(U.T @ U, np.diag(lam), atol=1e-10 * lam[0])
    # same directions: each column is a positive multiple of the corresponding column of U~
    np.testing.assert_allclose(U / np.linalg.norm(U, axis=0), U_tilde, atol=1e-12)


@pytest.mark.points(2)
def test_rescale_matches_rkmlearn_primal(submission, rng):
    from rkmlearn import MultiViewKPCA
    from rkmlearn.features import IdentityFeatures

    Z = rng.normal(size=(50, 3))
    Xs = [np.tanh(Z @ rng.normal(size=(3, 5))), Z @ rng.normal(size=(3, 2))]
    model = MultiViewKPCA(3, setting="primal", feature_maps=[IdentityFeatures(), IdentityFeatures()]).fit(Xs)
    U = np.asarray(submission.rescale(model.U_tilde_, model.eigenvalues_))
    np.testing.assert_allclose(U, np.vstack(model.U_), atol=1e-10 * np.abs(U).max())
