"""Exercises 1 and 2: ``impute_dual`` and ``impute_primal`` with two views.

References: rkmlearn's ``MultiViewKPCA.predict_view`` (identity feature maps, so its pre-image is
exact and its output can be turned back into centred features / kernel rows here), and the
independent fact that data lying exactly in the model's subspace are imputed exactly.
"""
import numpy as np
import pytest


def _two_views(rng, n=80, m=12):
    Z = rng.normal(size=(n + m, 3))
    X0 = np.tanh(Z @ rng.normal(size=(3, 5))) + 0.05 * rng.normal(size=(n + m, 5))
    X1 = Z @ rng.normal(size=(3, 3)) + 0.05 * rng.normal(size=(n + m, 3))
    return [X0[:n], X1[:n]], [X0[n:], X1[n:]]


def _model(setting, Xs, s=3):
    from rkmlearn import MultiViewKPCA
    from rkmlearn.features import IdentityFeatures

    return MultiViewKPCA(s, setting=setting, feature_maps=[IdentityFeatures() for _ in Xs]).fit(Xs)


@pytest.mark.points(2)
@pytest.mark.parametrize("target", [0, 1])
def test_dual_matches_rkmlearn_predict_view(submission, rng, target):
    train, query = _two_views(rng)
    model = _model("dual", train)
    means = [X.mean(axis=0) for X in train]
    Xc = [X - mu for X, mu in zip(train, means)]
    K_views_c = [A @ A.T for A in Xc]
    k_other = [(Q - mu) @ A.T for Q, mu, A in zip(query, means, Xc)]
    k_other[target] = None
    k_target, h = submission.impute_dual(K_views_c, model.H_, model.Gamma_, k_other, target)
    q = list(query)
    q[target] = None
    X_pred = model.predict_view(q, target)
    expected = (X_pred - means[target]) @ Xc[target].T
    np.testing.assert_allclose(np.asarray(k_target), expected, atol=1e-8 * np.abs(expected).max())
    assert np.asarray(h).shape == (len(query[0]), 3)


@pytest.mark.points(2)
@pytest.mark.parametrize("target", [0, 1])
def test_primal_matches_rkmlearn_predict_view(submission, rng, target):
    train, query = _two_views(rng)
    model = _model("primal", train)
    means = [X.mean(axis=0) for X in train]
    phi_other = [Q - mu for Q, mu in zip(query, means)]
    phi_other[target] = None
    phi, h = submission.impute_primal(model.U_, model.Gamma_, phi_other, target)
    q = list(query)
    q[target] = None
    X_pred, h_ref = model.predict_view(q, target, return_latent=True)
    np.testing.assert_allclose(np.asarray(phi) + means[target], X_pred, atol=1e-9)
    np.testing.assert_allclose(np.asarray(h), h_ref, atol=1e-9 * np.abs(h_ref).max())


@pytest.mark.points(2)
def test_primal_and_dual_impute_the_same_view(submission, rng):
    # With explicit features the dual kernel vector is the primal feature vector seen through the
    # training features: k_v = Phi_{v,c} phi_v.
    train, query = _two_views(rng)
    primal, dual = _model("primal", train), _model("dual", train)
    means = [X.mean(axis=0) for X in train]
    Xc = [X - mu for X, mu in zip(train, means)]
    phi, _ = submission.impute_primal(primal.U_, primal.Gamma_, [query[0] - means[0], None], 1)
    k, _ = submission.impute_dual([A @ A.T for A in Xc], dual.H_, dual.Gamma_,
                                  [(query[0] - means[0]) @ Xc[0].T, None], 1)
    np.testing.assert_allclose(np.asarray(k), np.asarray(phi) @ Xc[1].T, atol=1e-8 * np.abs(k).max())


@pytest.mark.points(1)
def test_dual_exact_for_data_in_the_model_subspace(submission, rng):
    # Two linear views of a 2-D latent variable and s = 2: the model is exact, so imputing view 1
    # of new points from view 0 recovers view 1 (H, Gamma from a full eigh, no rkmlearn).
    Z = rng.normal(size=(70, 2))
    A0, A1 = rng.normal(size=(2, 4)), rng.normal(size=(2, 3))
    X0, X1 = Z[:60] @ A0, Z[:60] @ A1
    Q0, Q1 = Z[60:] @ A0, Z[60:] @ A1
    mu0, mu1 = X0.mean(0), X1.mean(0)
    K0, K1 = (X0 - mu0) @ (X0 - mu0).T, (X1 - mu1) @ (X1 - mu1).T
    values, vectors = np.linalg.eigh(K0 + K1)
    H, Gamma = vectors[:, ::-1][:, :2], np.diag(values[::-1][:2])
    k, _ = submission.impute_dual([K0, K1], H, Gamma, [(Q0 - mu0) @ (X0 - mu0).T, None], 1)
    np.testing.assert_allclose(np.asarray(k), (Q1 - mu1) @ (X1 - mu1).T, atol=1e-8 * np.abs(K1).max())
