"""Tests of rkmlearn.level.solve_level: the shared RKM level in dual / primal x eig / Stiefel, the
coupling matrix of the recurrent RKM, its conventions and its checks."""

import warnings

import numpy as np
import pytest
from scipy.linalg import subspace_angles
from sklearn.exceptions import ConvergenceWarning

from rkmlearn import View, solve_level
from rkmlearn.features import IdentityFeatures, RandomFourierFeatures


@pytest.fixture(scope="module")
def two_views():
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(60, 3))
    X0 = np.tanh(Z @ rng.normal(size=(3, 5))) + 0.05 * rng.normal(size=(60, 5))
    X1 = Z[:, :2] * [3.0, 1.0] + 0.05 * rng.normal(size=(60, 2))
    return [X0, X1]


def identity_views(Xs):
    return [View(feature_map=IdentityFeatures()).fit(X) for X in Xs]


def reference(Xs, s):
    """Top-s eigenpairs of K = sum_v M_c X_v X_v^T M_c by a full eigh (fine at this size)."""
    K = sum((X - X.mean(0)) @ (X - X.mean(0)).T for X in Xs)
    w, V = np.linalg.eigh(K)
    return w[::-1][:s], V[:, ::-1][:, :s], K


@pytest.mark.parametrize("setting", ["dual", "primal"])
@pytest.mark.parametrize("solver", ["eig", "stiefel"])
def test_four_algorithms_give_the_same_level(two_views, setting, solver):
    s = 3
    values, V, K = reference(two_views, s)
    level = solve_level(identity_views(two_views), s, setting=setting, solver=solver, random_state=0)
    np.testing.assert_allclose(level.eigenvalues, values, rtol=1e-8)
    assert subspace_angles(level.H, V).max() <= 1e-7
    # the sign convention, the same in every setting: primal == dual with no sign fixing
    dual_eig = solve_level(identity_views(two_views), s)
    np.testing.assert_allclose(level.H, dual_eig.H, atol=1e-7)
    np.testing.assert_allclose(level.Gamma, np.diag(level.eigenvalues), atol=1e-8 * values[0])
    # stationarity (eq-mv-stationarity): h_i = Gamma^{-1} sum_v e_{v,i}, U_v = Phi_{v,c}^T H
    np.testing.assert_allclose(sum(level.scores), level.H @ level.Gamma, atol=1e-7 * values[0])
    for view, U_v in zip(identity_views(two_views), level.U):
        np.testing.assert_allclose(U_v, view.centred_features().T @ level.H, atol=1e-7 * np.abs(U_v).max())
    assert (level.U_tilde is not None) == (setting == "primal")
    assert (level.spectrum.history is not None) == (solver == "stiefel")
    np.testing.assert_allclose(level.trace, np.trace(K), rtol=1e-12)


def test_primal_rescaling_and_orthonormality(two_views):
    level = solve_level(identity_views(two_views), 3, setting="primal")
    U = np.vstack(level.U)
    np.testing.assert_allclose(level.U_tilde.T @ level.U_tilde, np.eye(3), atol=1e-12)
    np.testing.assert_allclose(U, level.U_tilde * np.sqrt(level.eigenvalues), atol=1e-10)  # U = U~ Gamma^{1/2}
    np.testing.assert_allclose(level.H.T @ level.H, np.eye(3), atol=1e-10)
    raw = solve_level(identity_views(two_views), 3, setting="primal", rescale=False)
    np.testing.assert_allclose(raw.H, level.H / np.sqrt(level.eigenvalues), atol=1e-10)  # Figure 7


def test_unrotated_stiefel_keeps_gamma_prime(two_views):
    level = solve_level(identity_views(two_views), 3, solver="stiefel", rotate=False, random_state=1)
    G = level.spectrum.Gamma_prime
    np.testing.assert_array_equal(level.Gamma, G)
    assert np.abs(G - np.diag(np.diag(G))).max() > 1e-3 * np.abs(G).max()
    np.testing.assert_allclose(np.linalg.eigvalsh(G)[::-1], level.eigenvalues, rtol=1e-10)


def test_primal_stiefel_with_wide_features_never_forms_C(two_views):
    views = [View(feature_map=RandomFourierFeatures(sigma=2.0, n_features=80, random_state=v)).fit(X)
             for v, X in enumerate(two_views)]  # d_f = 160 > n = 60
    eig = solve_level(views, 2, setting="primal", keep_matrix=True)
    st = solve_level(views, 2, setting="primal", solver="stiefel", random_state=0, keep_matrix=True)
    assert eig.matrix.shape == (160, 160) and st.matrix is None
    np.testing.assert_allclose(st.H, eig.H, atol=1e-7)


@pytest.mark.parametrize("solver", ["eig", "stiefel"])
def test_coupling_matrix_is_added_to_the_dual_problem(two_views, solver):
    """Part V's recurrent RKM: (K + A) H = H Lambda with a symmetric coupling A."""
    n = two_views[0].shape[0]
    A = 0.5 * (np.eye(n, k=1) + np.eye(n, k=-1))  # a_{t,1} = 1/2: neighbours in time
    K = reference(two_views, 1)[2]
    w, V = np.linalg.eigh(K + A)
    level = solve_level(identity_views(two_views), 3, solver=solver, coupling=A, random_state=0, keep_matrix=True)
    np.testing.assert_allclose(level.eigenvalues, w[::-1][:3], rtol=1e-8)
    assert subspace_angles(level.H, V[:, ::-1][:, :3]).max() <= 1e-7
    np.testing.assert_allclose(level.matrix, K + A, atol=1e-10)


def test_coupling_errors(two_views):
    views = identity_views(two_views)
    with pytest.raises(ValueError, match="coupling must be symmetric"):
        solve_level(views, 2, coupling=np.triu(np.ones((60, 60))))
    with pytest.raises(ValueError, match=r"coupling must be \(60, 60\)"):
        solve_level(views, 2, coupling=np.eye(5))
    with pytest.raises(ValueError, match="use setting='dual'"):
        solve_level(views, 2, setting="primal", coupling=np.eye(60))


def test_option_and_rank_errors_name_the_parameter(two_views):
    views = identity_views(two_views)
    for kwargs, match in [
        (dict(setting="both"), r"setting must be one of \['dual', 'primal'\]"),
        (dict(optimizer="sgd"), "optimizer must be one of"),
        (dict(rotate="yes"), "rotate must be True or False"),
        (dict(max_iter=0), "max_iter must be in"),
        (dict(rescale=False), "rescale=False only applies to setting='primal'"),
    ]:
        with pytest.raises(ValueError, match=match):
            solve_level(views, 2, **kwargs)
    with pytest.raises(ValueError, match=r"n_components=8 exceeds the numerical rank 7 .*use n_components <= 7"):
        solve_level(views, 8)  # linear views of dimension 5 + 2
    with pytest.raises(ValueError, match="n_components"):
        solve_level(views, 60)
    with pytest.raises(ValueError, match="view 1 has an implicit kernel"):
        solve_level([views[0], View().fit(two_views[1])], 2, setting="primal")


def test_unconverged_stiefel_warns_with_the_solver_name(two_views):
    with pytest.warns(ConvergenceWarning, match="^MyModel: the Stiefel optimiser did not converge in 3 iterations"):
        solve_level(identity_views(two_views), 2, solver="stiefel", max_iter=3, random_state=0, name="MyModel")


def test_random_state_generator_and_determinism(two_views):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        a = solve_level(identity_views(two_views), 2, solver="stiefel", random_state=np.random.default_rng(3))
        b = solve_level(identity_views(two_views), 2, solver="stiefel", random_state=np.random.default_rng(3))
    np.testing.assert_array_equal(a.H, b.H)


def test_dual_kpca_fit_holds_one_n_by_n_matrix():
    """Peak memory of a dual fit: the centred Gram matrix, centred in place, and O(n s) besides."""
    import tracemalloc

    from rkmlearn import KPCA

    n = 1200
    X = np.random.default_rng(0).normal(size=(n, 5))
    for solver in ["dense", "block"]:
        tracemalloc.start()
        KPCA(3, kernel="rbf", kernel_params={"sigma": 2.0}, eigen_solver=solver).fit(X)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak <= 1.05 * n * n * 8 + 4e6, (solver, peak / (n * n * 8))  # + the 256 x 256 tiles


def test_sparse_coupling_equals_dense_and_leaves_the_scores_exact():
    import scipy.sparse

    from rkmlearn.models.recurrent.latent_dynamics import lag_matrix

    X = np.random.default_rng(3).normal(size=(60, 2))
    A = lag_matrix([1.0, 0.6, 0.2], 60)
    dense = solve_level([View("rbf", kernel_params={"sigma": 1.0}).fit(X)], 3, coupling=A)
    sparse = solve_level([View("rbf", kernel_params={"sigma": 1.0}).fit(X)], 3, coupling=scipy.sparse.dia_array(A))
    kept = solve_level([View("rbf", kernel_params={"sigma": 1.0}).fit(X)], 3, coupling=scipy.sparse.csr_array(A),
                       keep_matrix=True)
    np.testing.assert_array_equal(sparse.H, dense.H)
    np.testing.assert_array_equal(sparse.eigenvalues, dense.eigenvalues)
    np.testing.assert_array_equal(sparse.scores[0], dense.scores[0])  # K_c restored exactly: K_c H
    np.testing.assert_array_equal(kept.matrix, View("rbf", kernel_params={"sigma": 1.0}).fit(X).centred_gram() + A)
    with pytest.raises(ValueError, match="coupling must be symmetric"):
        solve_level([View().fit(X)], 2, coupling=scipy.sparse.csr_array(np.triu(A)))
