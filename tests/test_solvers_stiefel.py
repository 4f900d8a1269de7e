"""Tests of rkmlearn.solvers.stiefel: projection, geometry, both optimisers and the final rotation."""

import numpy as np
import pytest

from rkmlearn.solvers import stiefel
from scipy.linalg import polar, subspace_angles

from rkmlearn.solvers.objectives import factored_trace_objective, trace_objective
from rkmlearn.solvers.iteration import OptimiserResult as StiefelResult
from rkmlearn.solvers.optimisers import cayley_adam, projected_gradient
from rkmlearn.solvers.stiefel import constraint_violation, project_stiefel, riemannian_gradient
from rkmlearn.solvers.subspace import rotate_to_eigenbasis
from rkmlearn.solvers.stiefel import _cayley_factors, _cayley_step  # the retraction itself

EPS = np.finfo(np.float64).eps


def centred_rbf_gram(n, d, seed):
    """A centred RBF Gram matrix (the matrix kernel PCA decomposes), built independently here."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    sq = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = np.exp(-sq / 2.0)
    M = np.eye(n) - np.full((n, n), 1.0 / n)
    return M @ K @ M


def top_eigenspace(K, s):
    """Reference: full eigendecomposition (fine for the small test matrices)."""
    w, V = np.linalg.eigh(K)
    return w[::-1][:s], V[:, ::-1][:, :s]


@pytest.fixture(scope="module")
def problem():
    K = centred_rbf_gram(60, 2, seed=0)
    s = 3
    w, V = top_eigenspace(K, s)
    H0 = np.random.default_rng(1).normal(size=(60, s))
    return K, s, w, V, H0


# ----------------------------------------------------------------------------------------------
# projection and geometry
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(7, 3), (20, 5), (4, 4), (30, 1)])
def test_projection_is_orthonormal_idempotent_and_the_polar_factor(shape):
    rng = np.random.default_rng(sum(shape))
    X = rng.normal(size=shape)
    Q = project_stiefel(X)
    assert Q.shape == shape and Q.dtype == np.float64
    assert constraint_violation(Q) <= 1e-12
    np.testing.assert_allclose(project_stiefel(Q), Q, atol=1e-12)
    # X (X^T X)^{-1/2}, computed through the s x s eigendecomposition, and scipy's polar factor
    w, V = np.linalg.eigh(X.T @ X)
    np.testing.assert_allclose(Q, X @ (V / np.sqrt(w)) @ V.T, atol=1e-10)
    np.testing.assert_allclose(Q, polar(X)[0], atol=1e-10)


def test_projection_is_the_nearest_point():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(12, 4))
    Q = project_stiefel(X)
    best = np.linalg.norm(X - Q)
    # far away: random points of St(12, 4)
    others = [project_stiefel(rng.normal(size=X.shape)) for _ in range(200)]
    assert all(np.linalg.norm(X - P) >= best for P in others)
    # close by: small moves of Q along the manifold
    for scale in (1e-1, 1e-3):
        nearby = [project_stiefel(Q + scale * rng.normal(size=X.shape)) for _ in range(200)]
        assert all(np.linalg.norm(X - P) >= best - 1e-12 for P in nearby)


def test_riemannian_gradient_is_the_tangent_projection():
    rng = np.random.default_rng(4)
    X = project_stiefel(rng.normal(size=(15, 4)))
    G = rng.normal(size=(15, 4))
    Z = riemannian_gradient(X, G)
    # tangent: X^T Z is skew-symmetric
    XtZ = X.T @ Z
    np.testing.assert_allclose(XtZ + XtZ.T, 0.0, atol=1e-12)
    # a projection: idempotent, and what it removes is normal (X S with S symmetric)
    np.testing.assert_allclose(riemannian_gradient(X, Z), Z, atol=1e-12)
    S = X.T @ (G - Z)
    np.testing.assert_allclose(S, S.T, atol=1e-12)
    np.testing.assert_allclose(X @ S, G - Z, atol=1e-12)


def test_trace_objective_value_and_gradient(problem):
    K, s, *_ = problem
    fun, grad = trace_objective(K)
    rng = np.random.default_rng(5)
    H = rng.normal(size=(K.shape[0], s))
    assert fun(H) == pytest.approx(-0.5 * np.trace(H.T @ K @ H), rel=1e-13)
    # directional derivative by central differences (f is quadratic: exact up to rounding)
    D = rng.normal(size=H.shape)
    h = 1e-4
    fd = (fun(H + h * D) - fun(H - h * D)) / (2 * h)
    assert fd == pytest.approx(np.sum(grad(H) * D), rel=1e-8)
    # the cache never serves a stale product
    H2 = H.copy()
    H2[0, 0] += 1.0
    np.testing.assert_allclose(grad(H2), -K @ H2, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(grad(H), -K @ H, rtol=1e-13, atol=1e-13)


def test_cayley_retraction_stays_on_manifold_and_follows_minus_gradient():
    rng = np.random.default_rng(6)
    X = project_stiefel(rng.normal(size=(25, 3)))
    G = rng.normal(size=X.shape)
    R = riemannian_gradient(X, G)
    U, V = _cayley_factors(X, G)
    # the skew matrix A = U V^T satisfies A X = -R
    A = U @ V.T
    np.testing.assert_allclose(A, -A.T, atol=1e-13)
    np.testing.assert_allclose(A @ X, -R, atol=1e-12)
    # the Woodbury form equals the dense Cayley transform (I - a/2 A)^{-1} (I + a/2 A) X
    for alpha in (1e-3, 0.3, 2.0):
        Y = _cayley_step(X, U, V, alpha)
        I = np.eye(X.shape[0])
        dense = np.linalg.solve(I - 0.5 * alpha * A, (I + 0.5 * alpha * A) @ X)
        np.testing.assert_allclose(Y, dense, atol=1e-11)
        assert constraint_violation(Y) <= 1e-12
    # first order: Y(alpha) = X - alpha R + O(alpha^2)
    alpha = 1e-5
    Y = _cayley_step(X, U, V, alpha)
    assert np.linalg.norm(Y - (X - alpha * R)) <= 10 * alpha**2 * np.linalg.norm(R) ** 2 + 1e-13


# ----------------------------------------------------------------------------------------------
# optimisers on the trace problem
# ----------------------------------------------------------------------------------------------
def check_history(result):
    assert isinstance(result, StiefelResult)
    for key in ("objective", "constraint_violation", "grad_norm"):
        assert len(result.history[key]) == result.n_iter + 1
        assert all(isinstance(v, float) for v in result.history[key])
    assert result.history["objective"][-1] == result.fun
    assert max(result.history["constraint_violation"]) <= 1e-8
    assert constraint_violation(result.X) <= 1e-8


@pytest.mark.parametrize("retraction", ["projection", "cayley"])
def test_projected_gradient_reaches_top_eigenspace(problem, retraction):
    K, s, w, V, H0 = problem
    fun, grad = trace_objective(K)
    tol = 1e-10
    res = projected_gradient(fun, grad, H0, tol=tol, retraction=retraction)
    check_history(res)
    assert res.converged, res.message
    # stopping rule exactly as documented
    g = res.history["grad_norm"]
    f = res.history["objective"]
    assert g[-1] <= tol * max(1.0, abs(f[-1]))
    assert all(gk > tol * max(1.0, abs(fk)) for gk, fk in zip(g[:-1], f[:-1]))
    # the trace tr(H^T K H) = -2 f increases monotonically (up to the documented rounding level)
    f = np.asarray(f)
    assert np.all(np.diff(f) <= 32 * EPS * np.maximum(1.0, np.abs(f[:-1])))
    assert f[-1] < f[0]
    assert subspace_angles(res.X, V).max() <= 1e-6
    H, gamma, O = rotate_to_eigenbasis(res.X, K)
    assert subspace_angles(H, V).max() <= 1e-6
    np.testing.assert_allclose(gamma, w, rtol=1e-6)
    # columns are the eigenvectors themselves, each sign-normalised like the reference
    signs = np.sign(V[np.argmax(np.abs(V), axis=0), np.arange(s)])
    np.testing.assert_allclose(H, V * signs, atol=1e-6)


def test_projected_gradient_stops_at_max_iter(problem):
    K, s, w, V, H0 = problem
    fun, grad = trace_objective(K)
    res = projected_gradient(fun, grad, H0, max_iter=3)
    assert res.n_iter == 3 and not res.converged and "max_iter" in res.message
    check_history(res)
    res0 = projected_gradient(fun, grad, H0, max_iter=0)
    assert res0.n_iter == 0 and len(res0.history["objective"]) == 1
    np.testing.assert_allclose(res0.X, project_stiefel(H0))


def test_cayley_adam_reaches_top_eigenspace(problem):
    # Measured on this problem family (n=60, s=3, ten seeds): convergence to tol=1e-9 in 400-1300
    # iterations, principal angles <= 1e-8. The assertion leaves a margin: tol=1e-8 within
    # max_iter=3000, angles <= 1e-6.
    K, s, w, V, H0 = problem
    fun, grad = trace_objective(K)
    tol = 1e-8
    res = cayley_adam(fun, grad, H0, tol=tol, max_iter=3000)
    check_history(res)
    assert res.converged, res.message
    assert res.history["grad_norm"][-1] <= tol * max(1.0, abs(res.fun))
    assert res.fun < res.history["objective"][0]
    H, gamma, _ = rotate_to_eigenbasis(res.X, K)
    assert subspace_angles(H, V).max() <= 1e-6
    np.testing.assert_allclose(gamma, w, rtol=1e-6)


def test_cayley_adam_stops_at_max_iter(problem):
    K, s, w, V, H0 = problem
    fun, grad = trace_objective(K)
    res = cayley_adam(fun, grad, H0, max_iter=5)
    assert res.n_iter == 5 and not res.converged
    check_history(res)


def test_progress_bar_runs(problem, capsys):
    K, s, w, V, H0 = problem
    fun, grad = trace_objective(K)
    a = projected_gradient(fun, grad, H0, max_iter=5, progress=True)
    b = projected_gradient(fun, grad, H0, max_iter=5, progress=False)
    np.testing.assert_array_equal(a.X, b.X)  # the bar changes nothing
    cayley_adam(fun, grad, H0, max_iter=5, progress=True)


def test_optimisers_are_deterministic(problem):
    K, s, w, V, H0 = problem
    fun, grad = trace_objective(K)
    for method in (projected_gradient, cayley_adam):
        a, b = method(fun, grad, H0, max_iter=50), method(fun, grad, H0, max_iter=50)
        np.testing.assert_array_equal(a.X, b.X)
        assert a.history == b.history


# ----------------------------------------------------------------------------------------------
# rotation
# ----------------------------------------------------------------------------------------------
def test_rotation_recovers_eigenvectors_from_any_basis(problem):
    K, s, w, V, _ = problem
    rng = np.random.default_rng(7)
    Q = project_stiefel(rng.normal(size=(s, s)))  # random orthogonal mixing
    H, gamma, O = rotate_to_eigenbasis(V @ Q, K)
    np.testing.assert_allclose(O.T @ O, np.eye(s), atol=1e-12)
    np.testing.assert_allclose((V @ Q) @ O, H, atol=1e-12)
    Gamma = H.T @ K @ H
    np.testing.assert_allclose(Gamma, np.diag(gamma), atol=1e-10 * w[0])
    np.testing.assert_allclose(gamma, w, rtol=1e-10)
    assert np.all(np.diff(gamma) <= 0)
    # sign convention: each column's largest-magnitude entry is positive
    assert np.all(H[np.argmax(np.abs(H), axis=0), np.arange(s)] > 0)
    signs = np.sign(V[np.argmax(np.abs(V), axis=0), np.arange(s)])
    np.testing.assert_allclose(H, V * signs, atol=1e-10)


# ----------------------------------------------------------------------------------------------
# bad input
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "X, match",
    [
        (np.ones(5), "2-D"),
        (np.ones((2, 3, 4)), "2-D"),
        (np.ones((2, 5)), "n >= p"),
        (np.array([[1.0, np.nan], [0.0, 1.0]]), "NaN"),
        (np.array([[1.0, np.inf], [0.0, 1.0]]), "NaN or infinity"),
        (np.zeros((0, 2)), "empty"),
        ("abc", "string"),
        (np.array([["a", "b"], ["c", "d"]]), "real numbers"),
        (np.eye(3) * 1j, "complex"),
    ],
)
def test_project_stiefel_rejects_bad_input(X, match):
    with pytest.raises(ValueError, match=match):
        project_stiefel(X)


@pytest.mark.parametrize("method", [projected_gradient, cayley_adam])
def test_optimisers_reject_bad_input(problem, method):
    K, s, w, V, H0 = problem
    fun, grad = trace_objective(K)
    with pytest.raises(ValueError, match="X0"):
        method(fun, grad, H0.T)
    with pytest.raises(ValueError, match="X0"):
        method(fun, grad, np.full_like(H0, np.nan))
    with pytest.raises(ValueError, match="fun"):
        method("not callable", grad, H0)
    with pytest.raises(ValueError, match="grad"):
        method(fun, None, H0)
    with pytest.raises(ValueError, match="grad"):
        method(fun, lambda X: np.zeros(3), H0)
    with pytest.raises(ValueError, match="max_iter"):
        method(fun, grad, H0, max_iter=-1)
    with pytest.raises(ValueError, match="max_iter"):
        method(fun, grad, H0, max_iter=2.5)
    with pytest.raises(ValueError, match="tol"):
        method(fun, grad, H0, tol=np.nan)


def test_option_validation(problem):
    K, s, w, V, H0 = problem
    fun, grad = trace_objective(K)
    with pytest.raises(ValueError, match="retraction"):
        projected_gradient(fun, grad, H0, retraction="qr")
    with pytest.raises(ValueError, match="armijo"):
        projected_gradient(fun, grad, H0, armijo=1.5)
    with pytest.raises(ValueError, match="shrink"):
        projected_gradient(fun, grad, H0, shrink=0.0)
    with pytest.raises(ValueError, match="learning_rate"):
        cayley_adam(fun, grad, H0, learning_rate=-0.1)
    with pytest.raises(ValueError, match="betas"):
        cayley_adam(fun, grad, H0, betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="betas"):
        cayley_adam(fun, grad, H0, betas=0.9)
    with pytest.raises(ValueError, match="K"):
        trace_objective(np.ones((3, 4)))
    with pytest.raises(ValueError, match="K must be"):
        rotate_to_eigenbasis(H0, np.eye(5))


# -- factored objective and callbacks (Part I, Chapter 4) -------------------------------------------
def test_factored_trace_objective_equals_trace_objective_on_the_gram_matrix():
    rng = np.random.default_rng(5)
    Phi = rng.normal(size=(7, 30))  # wide: C = Phi^T Phi is 30 x 30 of rank 7
    f_full, g_full = trace_objective(Phi.T @ Phi)
    f_fact, g_fact = factored_trace_objective(Phi)
    U = stiefel.project_stiefel(rng.normal(size=(30, 3)))
    assert f_fact(U) == pytest.approx(f_full(U), rel=1e-13)
    np.testing.assert_allclose(g_fact(U), g_full(U), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("optimizer", [projected_gradient, cayley_adam])
def test_callback_sees_every_iterate(optimizer):
    rng = np.random.default_rng(6)
    A = rng.normal(size=(12, 12))
    fun, grad = trace_objective(A @ A.T)
    seen = []
    result = optimizer(fun, grad, rng.normal(size=(12, 2)), max_iter=25, tol=0.0,
                       callback=lambda k, X: seen.append((k, X.copy())))
    assert [k for k, _ in seen] == list(range(result.n_iter + 1))
    np.testing.assert_array_equal(seen[-1][1], result.X)
    recomputed = [fun(X) for _, X in seen]
    np.testing.assert_allclose(recomputed, result.history["objective"], rtol=1e-12)


# -- product manifolds: several Stiefel blocks and Euclidean blocks (Part IV's deep RKM) -----------
def reference_projected_gradient(fun, grad, X0, *, max_iter=2000, tol=1e-10, retraction="projection",
                                 armijo=1e-4, shrink=0.5, max_backtracks=60):
    """The single-block algorithm as it was before product manifolds, written out.

    The product-manifold implementation must reproduce it bit for bit on one Stiefel block.
    """
    X = project_stiefel(X0)
    f, R = float(fun(X)), riemannian_gradient(X, grad(X))
    gnorm, objective, n_iter = float(np.linalg.norm(R)), [float(fun(X))], 0
    t = 1.0 / max(gnorm, EPS)
    while gnorm > tol * max(1.0, abs(f)) and n_iter < max_iter:
        floor = 32.0 * EPS * max(1.0, abs(f))
        for _ in range(max_backtracks):
            X_new = stiefel._retract(X, R, t, retraction)
            f_new, required = float(fun(X_new)), armijo * t * gnorm**2
            if np.isfinite(f_new) and (f_new <= f - required or (required <= floor and f_new <= f + floor)):
                break
            t *= shrink
        else:
            break
        R_new = riemannian_gradient(X_new, grad(X_new))
        S, Y = X_new - X, R_new - R
        sy = abs(float(np.sum(S * Y)))
        if sy > 0:
            t = float(np.sum(S * S)) / sy if n_iter % 2 == 0 else sy / float(np.sum(Y * Y))
        else:
            t = t / shrink
        t = min(max(t, 1e-20), 1e20)
        X, f, R = X_new, f_new, R_new
        gnorm, n_iter = float(np.linalg.norm(R)), n_iter + 1
        objective.append(f)
    return X, objective


@pytest.mark.parametrize("retraction", ["projection", "cayley"])
def test_single_block_results_are_bit_identical_to_the_single_block_algorithm(problem, retraction):
    K, s, w, V, H0 = problem
    fun, grad = trace_objective(K)
    X_ref, objective = reference_projected_gradient(fun, grad, H0, retraction=retraction)
    result = projected_gradient(fun, grad, H0, retraction=retraction)
    np.testing.assert_array_equal(result.X, X_ref)
    assert result.history["objective"] == objective
    # the same run through the product-manifold API, with one Stiefel block
    as_product = projected_gradient(lambda Xs: fun(Xs[0]), lambda Xs: [grad(Xs[0])], [H0], blocks=("stiefel",),
                                    retraction=retraction)
    np.testing.assert_array_equal(as_product.X[0], X_ref)
    assert as_product.history == result.history


def test_product_of_two_stiefel_blocks_and_a_euclidean_block_converges_monotonically():
    """min -1/2 tr(H1^T K1 H1) - 1/2 tr(H2^T K2 H2) + 1/2 ||A W - B||^2 over St x St x R^{4 x 2}."""
    rng = np.random.default_rng(11)
    K1, K2 = centred_rbf_gram(40, 2, seed=1), centred_rbf_gram(30, 3, seed=2)
    A, B = rng.normal(size=(50, 4)), rng.normal(size=(50, 2))

    def fun(X):
        H1, H2, W = X
        return -0.5 * np.sum(H1 * (K1 @ H1)) - 0.5 * np.sum(H2 * (K2 @ H2)) + 0.5 * np.sum((A @ W - B) ** 2)

    def grad(X):
        H1, H2, W = X
        return [-K1 @ H1, -K2 @ H2, A.T @ (A @ W - B)]

    worst = []
    result = projected_gradient(
        fun, grad, [rng.normal(size=(40, 3)), rng.normal(size=(30, 2)), np.zeros((4, 2))],
        blocks=("stiefel", "stiefel", "euclidean"), max_iter=5000, tol=1e-10,
        callback=lambda k, X: worst.append(max(constraint_violation(X[0]), constraint_violation(X[1]))),
    )
    assert result.converged, result.message
    assert len(worst) == result.n_iter + 1 and max(worst) <= 1e-10  # on the manifold after every step
    f = np.asarray(result.history["objective"])
    assert np.all(np.diff(f) <= 32 * EPS * np.maximum(1.0, np.abs(f[:-1])))  # monotone
    H1, H2, W = result.X
    assert subspace_angles(H1, top_eigenspace(K1, 3)[1]).max() <= 1e-6
    assert subspace_angles(H2, top_eigenspace(K2, 2)[1]).max() <= 1e-6
    np.testing.assert_allclose(W, np.linalg.lstsq(A, B, rcond=None)[0], atol=1e-7)
    assert result.history["constraint_violation"] == pytest.approx(worst, abs=0)


def test_product_manifold_input_errors(problem):
    K, s, w, V, H0 = problem
    fun, grad = trace_objective(K)
    with pytest.raises(ValueError, match="blocks must be a non-empty sequence"):
        projected_gradient(fun, grad, [H0], blocks=("grassmann",))
    with pytest.raises(ValueError, match="X0 must be a list of 2 arrays"):
        projected_gradient(fun, grad, H0, blocks=("stiefel", "euclidean"))
    with pytest.raises(ValueError, match="grad\\(X\\) must return one array per block"):
        projected_gradient(lambda X: fun(X[0]), lambda X: [grad(X[0])], [H0, np.zeros((3, 1))],
                           blocks=("stiefel", "euclidean"))
    with pytest.raises(ValueError, match=r"X0\[0\] has shape"):
        projected_gradient(lambda X: 0.0, lambda X: X, [H0.T], blocks=("stiefel",))


# -- Adam blocks (Part IV: the deep RKM paper trains its MLP weights with Adam) -----------------------
def _least_squares(seed=12):
    rng = np.random.default_rng(seed)
    A, B = rng.normal(size=(30, 4)), rng.normal(size=(30, 2))

    def fun(X):
        return 0.5 * float(np.sum((A @ X[-1] - B) ** 2))

    def grad(X):
        return [np.zeros_like(x) for x in X[:-1]] + [A.T @ (A @ X[-1] - B)]

    return rng, A, B, fun, grad


def test_adam_blocks_alone_are_plain_adam_and_reach_the_minimiser():
    rng, A, B, fun, grad = _least_squares()
    result = projected_gradient(fun, grad, [np.zeros((4, 2))], blocks=("adam",), adam_learning_rate=0.05,
                                max_iter=5000, tol=1e-10)
    assert result.converged, result.message
    np.testing.assert_allclose(result.X[0], np.linalg.lstsq(A, B, rcond=None)[0], atol=1e-8)
    # the first iterates are Kingma & Ba's Adam, written out
    lr, (b1, b2), eps = 0.01, (0.8, 0.99), 1e-6
    W, m, v, expected = np.zeros((4, 2)), 0.0, 0.0, []
    for k in range(1, 6):
        g = grad([W])[0]
        m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
        W = W - lr * (m / (1 - b1**k)) / (np.sqrt(v / (1 - b2**k)) + eps)
        expected.append(fun([W]))
    short = projected_gradient(fun, grad, [np.zeros((4, 2))], blocks=("adam",), adam_learning_rate=lr,
                               adam_betas=(b1, b2), adam_epsilon=eps, max_iter=5, tol=0.0)
    np.testing.assert_allclose(short.history["objective"][1:], expected, rtol=1e-12)


def test_stiefel_and_adam_blocks_stay_on_the_manifold_and_decrease_the_objective():
    """min -1/2 tr(H^T K H) + 1/2 ||A W - B||^2 over St(40, 3) x R^{4 x 2}, W moved by Adam."""
    rng, A, B, ls_fun, ls_grad = _least_squares()
    K = centred_rbf_gram(40, 2, seed=1)

    def fun(X):
        return -0.5 * float(np.sum(X[0] * (K @ X[0]))) + ls_fun(X)

    def grad(X):
        return [-K @ X[0], ls_grad(X)[-1]]

    worst = []
    result = projected_gradient(fun, grad, [rng.normal(size=(40, 3)), np.zeros((4, 2))], blocks=("stiefel", "adam"),
                                adam_learning_rate=0.05, max_iter=3000, tol=1e-9,
                                callback=lambda k, X: worst.append(constraint_violation(X[0])))
    assert result.converged, result.message
    assert len(worst) == result.n_iter + 1 and max(worst) <= 1e-10
    assert max(result.history["constraint_violation"]) <= 1e-10
    f = np.asarray(result.history["objective"])
    assert f[-1] < f[0]
    H, W = result.X
    assert subspace_angles(H, top_eigenspace(K, 3)[1]).max() <= 1e-6
    np.testing.assert_allclose(W, np.linalg.lstsq(A, B, rcond=None)[0], atol=1e-7)


def test_adam_options_are_validated_and_change_nothing_without_adam_blocks(problem):
    K, s, w, V, H0 = problem
    fun, grad = trace_objective(K)
    for options, name in [({"adam_learning_rate": 0.0}, "adam_learning_rate"),
                          ({"adam_learning_rate": np.inf}, "adam_learning_rate"),
                          ({"adam_betas": (0.9, 1.0)}, "adam_betas"), ({"adam_betas": 0.9}, "adam_betas"),
                          ({"adam_epsilon": -1e-8}, "adam_epsilon")]:
        with pytest.raises(ValueError, match=name):
            projected_gradient(fun, grad, H0, **options)
    # without "adam" blocks the Adam options are not used: bit for bit the plain algorithm
    X_ref, objective = reference_projected_gradient(fun, grad, H0, max_iter=50)
    result = projected_gradient(fun, grad, H0, max_iter=50, adam_learning_rate=0.5, adam_betas=(0.5, 0.5))
    np.testing.assert_array_equal(result.X, X_ref)
    assert result.history["objective"] == objective


def test_product_results_without_adam_blocks_are_bit_identical_to_the_written_out_algorithm():
    """The Stiefel x Euclidean iteration (the LS-SVM deep RKM's) written out; Adam must not change it."""
    rng = np.random.default_rng(13)
    K, A, B = centred_rbf_gram(30, 2, seed=3), rng.normal(size=(40, 3)), rng.normal(size=(40, 2))

    def fun(X):
        return -0.5 * float(np.sum(X[0] * (K @ X[0]))) + 0.5 * float(np.sum((A @ X[1] - B) ** 2))

    def grad(X):
        return [-K @ X[0], A.T @ (A @ X[1] - B)]

    X0 = [rng.normal(size=(30, 2)), np.zeros((3, 2))]
    result = projected_gradient(fun, grad, X0, blocks=("stiefel", "euclidean"), max_iter=60, tol=0.0)
    X, armijo, shrink = [project_stiefel(X0[0]), X0[1].copy()], 1e-4, 0.5
    f, G = fun(X), grad(X)
    R = [riemannian_gradient(X[0], G[0]), G[1]]
    gnorm = float(np.sqrt(sum(float(np.sum(r * r)) for r in R)))
    t, objective = 1.0 / gnorm, [f]
    for k in range(60):
        floor = 32.0 * EPS * max(1.0, abs(f))
        for _ in range(60):
            X_new = [stiefel._retract(X[0], R[0], t, "projection"), X[1] - t * R[1]]
            f_new, required = float(fun(X_new)), armijo * t * gnorm**2
            if f_new <= f - required or (required <= floor and f_new <= f + floor):
                break
            t *= shrink
        G_new = grad(X_new)
        R_new = [riemannian_gradient(X_new[0], G_new[0]), G_new[1]]
        S, Y = [a - b for a, b in zip(X_new, X)], [a - b for a, b in zip(R_new, R)]
        sy = abs(sum(float(np.sum(a * b)) for a, b in zip(S, Y)))
        t = sum(float(np.sum(a * a)) for a in S) / sy if k % 2 == 0 else sy / sum(float(np.sum(a * a)) for a in Y)
        t = min(max(t, 1e-20), 1e20)
        X, f, R = X_new, fun(X_new), R_new
        gnorm = float(np.sqrt(sum(float(np.sum(r * r)) for r in R)))
        objective.append(f)
    assert result.history["objective"] == objective
    np.testing.assert_array_equal(result.X[0], X[0])
    np.testing.assert_array_equal(result.X[1], X[1])
