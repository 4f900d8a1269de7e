"""Hidden tests of the Chapter 5 exercises: three views, the ignored target entry, validation.

With three views the sum over the OTHER views has two terms: an implementation that uses only
one other view, or the target's own kernel vector (the formula as printed in the paper), fails
here. Test names say which function they grade.
"""
import numpy as np
import pytest


def _three_views(rng, n=80, m=10):
    Z = rng.normal(size=(n + m, 3))
    Xs = [np.tanh(Z @ rng.normal(size=(3, d))) + 0.01 * rng.normal(size=(n + m, d)) for d in (4, 3, 2)]
    return [X[:n] for X in Xs], [X[n:] for X in Xs]


def _features(train, query):
    from rkmlearn.features import RandomFourierFeatures

    maps = [RandomFourierFeatures(sigma=1.5, n_features=150, random_state=v) for v in range(3)]
    Phi, Phi_q = [], []
    for fm, X, Q in zip(maps, train, query):
        P = fm.fit_transform(X)
        mu = P.mean(axis=0)
        Phi.append(P - mu)
        Phi_q.append(fm.transform(Q) - mu)
    return maps, Phi, Phi_q


@pytest.mark.points(2)
def test_dual_three_views_matches_rkmlearn(submission, rng):
    from rkmlearn import MultiViewKPCA

    train, query = _three_views(rng)
    maps, Phi, Phi_q = _features(train, query)
    model = MultiViewKPCA(5, setting="dual", feature_maps=maps).fit(train)
    K_views_c = [P @ P.T for P in Phi]
    for target in range(3):
        k_other = [Pq @ P.T for Pq, P in zip(Phi_q, Phi)]
        k_other[target] = None
        k, h = submission.impute_dual(K_views_c, model.H_, model.Gamma_, k_other, target)
        q = list(query)
        q[target] = None
        _, h_ref = model.predict_view(q, target, return_latent=True)
        np.testing.assert_allclose(np.asarray(h), h_ref, atol=1e-8 * np.abs(h_ref).max(),
                                   err_msg=f"target={target}: sum over ALL other views")
        expected = h_ref @ (K_views_c[target] @ model.H_).T
        np.testing.assert_allclose(np.asarray(k), expected, atol=1e-8 * np.abs(expected).max())


@pytest.mark.points(2)
def test_primal_three_views_matches_rkmlearn(submission, rng):
    from rkmlearn import MultiViewKPCA

    train, query = _three_views(rng)
    maps, Phi, Phi_q = _features(train, query)
    model = MultiViewKPCA(5, setting="primal", feature_maps=maps).fit(train)
    for target in range(3):
        phi_other = list(Phi_q)
        phi_other[target] = None
        phi, h = submission.impute_primal(model.U_, model.Gamma_, phi_other, target)
        q = list(query)
        q[target] = None
        _, h_ref = model.predict_view(q, target, return_latent=True)
        np.testing.assert_allclose(np.asarray(h), h_ref, atol=1e-8 * np.abs(h_ref).max())
        np.testing.assert_allclose(np.asarray(phi), h_ref @ model.U_[target].T, atol=1e-8)


@pytest.mark.points(1)
def test_dual_and_primal_ignore_the_target_entry(submission, rng):
    from rkmlearn import MultiViewKPCA

    train, query = _three_views(rng)
    maps, Phi, Phi_q = _features(train, query)
    dual = MultiViewKPCA(4, setting="dual", feature_maps=maps).fit(train)
    primal = MultiViewKPCA(4, setting="primal", feature_maps=maps).fit(train)
    K_views_c = [P @ P.T for P in Phi]
    full = [Pq @ P.T for Pq, P in zip(Phi_q, Phi)]  # includes the target's TRUE kernel rows
    none = list(full)
    none[2] = None
    k_full, _ = submission.impute_dual(K_views_c, dual.H_, dual.Gamma_, full, 2)
    k_none, _ = submission.impute_dual(K_views_c, dual.H_, dual.Gamma_, none, 2)
    np.testing.assert_allclose(np.asarray(k_full), np.asarray(k_none), atol=0)
    phi_none = list(Phi_q)
    phi_none[0] = None
    p_full, _ = submission.impute_primal(primal.U_, primal.Gamma_, list(Phi_q), 0)
    p_none, _ = submission.impute_primal(primal.U_, primal.Gamma_, phi_none, 0)
    np.testing.assert_allclose(np.asarray(p_full), np.asarray(p_none), atol=0)


@pytest.mark.points(1)
def test_dual_rejects_bad_input(submission, rng):
    n, s = 10, 2
    H, _ = np.linalg.qr(rng.normal(size=(n, s)))
    K = [np.eye(n), np.eye(n)]
    k = [np.ones((3, n)), None]
    cases = [
        ((K, H, np.eye(s), k, 2), "target"),
        ((K, H, np.eye(s), k, -1), "target"),
        ((K, H, np.eye(s + 1), k, 1), "Gamma"),
        (([np.eye(n), np.eye(n + 1)], H, np.eye(s), k, 1), "K_views_c"),
        ((K, H, np.eye(s), [np.ones((3, n + 1)), None], 1), "k_other_c"),
    ]
    for args, name in cases:
        with pytest.raises(ValueError, match=name):
            submission.impute_dual(*args)


@pytest.mark.points(1)
def test_primal_rejects_bad_input(submission, rng):
    U = [rng.normal(size=(4, 2)), rng.normal(size=(3, 2))]
    phi = [np.ones((5, 4)), None]
    cases = [
        ((U, np.eye(2), phi, 5), "target"),
        ((U, np.eye(3), phi, 1), "Gamma"),
        ((U, np.eye(2), [np.ones((5, 3)), None], 1), "phi_other_c"),
        ((U, np.eye(2), [np.ones((5, 4))], 1), "phi_other_c"),
    ]
    for args, name in cases:
        with pytest.raises(ValueError, match=name):
            submission.impute_primal(*args)
