"""Exercise 2: ``primal_eig(Xs, n_components)``, Algorithm 1, checked against the dual, against
``rkmlearn.MultiViewKPCA(setting="primal")`` and against the stationarity conditions.
"""
import numpy as np
import pytest


def _views(rng, n=60, dims=(5, 3, 1)):
    Z = rng.normal(size=(n, 3))
    return [np.tanh(Z @ rng.normal(size=(3, d))) + 0.1 * rng.normal(size=(n, d)) for d in dims]


def _centred(Xs):
    return [X - X.mean(axis=0) for X in Xs]


def _result(submission, Xs, s):
    out = submission.primal_eig(Xs, s)
    assert isinstance(out, tuple) and len(out) == 3, "primal_eig must return (Us, eigenvalues, H)"
    Us, lam, H = [np.asarray(U) for U in out[0]], np.asarray(out[1]), np.asarray(out[2])
    assert len(Us) == len(Xs), f"Us must have one matrix per view ({len(Xs)}), got {len(Us)}"
    for v, (U, X) in enumerate(zip(Us, Xs)):
        assert U.shape == (X.shape[1], s), f"Us[{v}] must have shape ({X.shape[1]}, {s}), got {U.shape}"
    assert lam.shape == (s,) and H.shape == (Xs[0].shape[0], s)
    return Us, lam, H


@pytest.mark.points(2)
def test_primal_agrees_with_an_independent_dual(submission, rng):
    Xs = _views(rng)
    Us, lam, H = _result(submission, Xs, 4)
    Phi = np.hstack(_centred(Xs))
    K = Phi @ Phi.T
    w, V = np.linalg.eigh(K)
    top = V[:, ::-1][:, :4]
    np.testing.assert_allclose(lam, w[::-1][:4], rtol=1e-9, err_msg="eigenvalues of C must equal those of K")
    np.testing.assert_allclose(H @ H.T, top @ top.T, atol=1e-8,
                               err_msg="H must span the top eigenvectors of the dual K")


@pytest.mark.points(2)
def test_primal_matches_rkmlearn(submission, rng):
    from rkmlearn import MultiViewKPCA
    from rkmlearn.features import IdentityFeatures

    Xs = _views(rng)
    model = MultiViewKPCA(4, setting="primal", feature_maps=[IdentityFeatures() for _ in Xs]).fit(Xs)
    Us, lam, H = _result(submission, Xs, 4)
    np.testing.assert_allclose(lam, model.eigenvalues_, rtol=1e-9)
    np.testing.assert_allclose(H, model.H_, atol=1e-8, err_msg="H differs from MultiViewKPCA (primal)")
    for v, (U, U_ref) in enumerate(zip(Us, model.U_)):
        np.testing.assert_allclose(U, U_ref, atol=1e-8 * np.abs(U_ref).max(), err_msg=f"Us[{v}] differs")


@pytest.mark.points(2)
def test_primal_rescaling_and_orthonormal_H(submission, rng):
    Xs = _views(rng)
    Us, lam, H = _result(submission, Xs, 4)
    U = np.vstack(Us)
    np.testing.assert_allclose(U.T @ U, np.diag(lam), atol=1e-9 * lam[0],
                               err_msg="U^T U must equal Lambda: did you rescale U = U~ Lambda^{1/2}?")
    np.testing.assert_allclose(H.T @ H, np.eye(4), atol=1e-9, err_msg="H^T H must equal I")


@pytest.mark.points(2)
def test_primal_stationarity_conditions(submission, rng):
    Xs = _views(rng)
    Us, lam, H = _result(submission, Xs, 4)
    Phis = _centred(Xs)
    for v, (P, U) in enumerate(zip(Phis, Us)):  # (5): U_v = Phi_v^T H
        np.testing.assert_allclose(U, P.T @ H, atol=1e-8 * np.abs(U).max(), err_msg=f"(5) fails for view {v}")
    # (6): H Gamma = sum_v Phi_v U_v
    np.testing.assert_allclose(H * lam, sum(P @ U for P, U in zip(Phis, Us)), atol=1e-8 * lam[0])
    # (17): sum_w C_vw U_w = U_v Gamma
    Phi, U = np.hstack(Phis), np.vstack(Us)
    np.testing.assert_allclose(Phi.T @ (Phi @ U), U * lam, atol=1e-8 * lam[0] * np.abs(U).max())
