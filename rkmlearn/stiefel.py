"""Optimisation on the Stiefel manifold St(n, p) = {X in R^{n x p} : X^T X = I_p}.

Kernel PCA in its RKM form can be trained without an eigendecomposition: the hidden features H
maximise tr(H^T K_c H) over the Stiefel manifold, :eq:`eq-stiefel-trace` (Chapter 1, *Kernels,
feature maps and conjugate feature duality*). Any orthonormal basis of the top-s eigenspace is a
maximiser, so an optimiser returns the right *subspace*; a final rotation, :eq:`eq-rotation`, turns
that basis into eigenvectors. This module provides the tools, in plain numpy:

* :func:`project_stiefel` -- the closest point on St, :eq:`eq-stiefel-projection`;
* :func:`riemannian_gradient`, :func:`constraint_violation` -- the geometry used by the optimisers;
* :func:`projected_gradient` -- Riemannian gradient descent with an Armijo backtracking line search
  and Barzilai-Borwein trial steps, retraction by projection (or Cayley); the accurate workhorse;
* :func:`cayley_adam` -- Cayley-Adam (Li, Li & Todorovic, ICLR 2020), :eq:`eq-cayley-update`, the
  optimiser used in the duality paper; robust but slower to reach high accuracy;
* :func:`rotate_to_eigenbasis` -- :eq:`eq-rotation`;
* :func:`trace_objective` -- f(H) = -1/2 tr(H^T K H) and its gradient, :eq:`eq-stiefel-trace`.

Conventions. Every optimiser *minimises* a smooth function ``fun(X) -> float`` whose Euclidean
gradient is ``grad(X) -> array (n, p)``. The manifold carries the metric inherited from the ambient
Euclidean space, so the Riemannian gradient is the projection of the Euclidean gradient onto the
tangent space, ``grad f - X sym(X^T grad f)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np

__all__ = [
    "StiefelResult",
    "project_stiefel",
    "riemannian_gradient",
    "constraint_violation",
    "projected_gradient",
    "cayley_adam",
    "rotate_to_eigenbasis",
    "trace_objective",
    "factored_trace_objective",
]

_EPS = np.finfo(np.float64).eps

# Cayley-Adam re-projects onto St when ||X^T X - I||_F exceeds this (see cayley_adam for why).
_REPROJECT_THRESHOLD = 1e-10


@dataclass
class StiefelResult:
    """Outcome of an optimisation run on the Stiefel manifold.

    Attributes
    ----------
    X : ndarray of shape (n, p)
        Final iterate, a point of St(n, p) (``X.T @ X`` equals the identity to rounding).
    fun : float
        Objective value at ``X``.
    n_iter : int
        Number of iterations (accepted steps) taken.
    converged : bool
        True when the stopping rule on the Riemannian gradient norm was met; False when the run
        stopped at ``max_iter`` or because the line search could not make progress.
    history : dict of str -> list of float
        Per iterate ``X_0, X_1, ..., X_{n_iter}`` (so each list has ``n_iter + 1`` entries), stored
        unrounded: ``'objective'`` (f), ``'constraint_violation'`` (``||X^T X - I||_F``) and
        ``'grad_norm'`` (Frobenius norm of the Riemannian gradient).
    message : str
        Why the run stopped.
    """

    X: np.ndarray
    fun: float
    n_iter: int
    converged: bool
    history: dict = field(default_factory=dict)
    message: str = ""


# ----------------------------------------------------------------------------------------------
# validation helpers (plain numpy on purpose: this module has no dependency on the rest)
# ----------------------------------------------------------------------------------------------
def _as_matrix(X, name, *, tall=True):
    """Return ``X`` as a finite float64 2-D array, raising ValueError that names ``name``."""
    if isinstance(X, (str, bytes)):
        raise ValueError(f"{name} must be a 2-D array of real numbers, got a string; pass a numpy array.")
    if np.iscomplexobj(X):
        raise ValueError(f"{name} must be real-valued, got a complex array; pass its real part if that is meant.")
    try:
        X = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 2-D array of real numbers; it could not be converted to float64 ({exc}).") from exc
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array of shape (n, p), got {X.ndim} dimension(s); reshape it.")
    if X.size == 0:
        raise ValueError(f"{name} is empty (shape {X.shape}); pass an array with at least one row and one column.")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains NaN or infinity; remove or impute those entries.")
    if tall and X.shape[1] > X.shape[0]:
        raise ValueError(
            f"{name} has shape {X.shape}, but a point of St(n, p) needs n >= p (more rows than columns); "
            "transpose it or use fewer columns."
        )
    return X


def _check_positive(value, name, *, integer=False, allow_zero=False):
    kind = Integral if integer else Real
    if isinstance(value, bool) or not isinstance(value, kind):
        raise ValueError(f"{name} must be {'an integer' if integer else 'a real number'}, got {value!r}.")
    if not np.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be finite and {bound}, got {value!r}.")
    return value


def _check_callables(fun, grad):
    if not callable(fun):
        raise ValueError(f"fun must be a callable fun(X) -> float, got {type(fun).__name__}.")
    if not callable(grad):
        raise ValueError(f"grad must be a callable grad(X) -> array of X's shape, got {type(grad).__name__}.")


def _eval(fun, grad, X):
    """Objective and Euclidean gradient at X, with the gradient's shape checked."""
    f = float(fun(X))
    G = np.asarray(grad(X), dtype=np.float64)
    if G.shape != X.shape:
        raise ValueError(f"grad(X) must return an array of shape {X.shape} (the shape of X), got {G.shape}.")
    if not (np.isfinite(f) and np.all(np.isfinite(G))):
        raise ValueError("fun(X) or grad(X) returned NaN or infinity; check the objective and the starting point X0.")
    return f, G


def _progress_bar(progress, total, desc):
    if not progress:
        return None
    from tqdm.auto import tqdm  # imported lazily: only needed when a bar is asked for

    return tqdm(total=total, desc=desc, leave=False)


# ----------------------------------------------------------------------------------------------
# geometry
# ----------------------------------------------------------------------------------------------
def project_stiefel(X):
    """Closest point of the Stiefel manifold to ``X`` (its polar factor).

    Implements :eq:`eq-stiefel-projection` (Chapter 1, *Kernels, feature maps and conjugate feature
    duality*): with the thin SVD ``X = U S V^T``, the projection ``P(X) = X (X^T X)^{-1/2} = U V^T``
    minimises ``||X - Q||_F`` over ``Q`` in St(n, p). When ``X`` is rank deficient the minimiser is
    not unique and ``U V^T`` is one of them.

    Parameters
    ----------
    X : array-like of shape (n, p), n >= p

    Returns
    -------
    Q : ndarray of shape (n, p)
        ``Q.T @ Q`` equals ``I_p`` to rounding.
    """
    X = _as_matrix(X, "X")
    U, _, Vt = np.linalg.svd(X, full_matrices=False)
    return U @ Vt


def riemannian_gradient(X, G):
    """Riemannian gradient on St(n, p) for the metric inherited from the ambient space.

    It is the orthogonal projection of the Euclidean gradient ``G`` onto the tangent space at ``X``,
    ``G - X sym(X^T G)`` with ``sym(A) = (A + A^T) / 2``; the result ``Z`` is tangent:
    ``X^T Z + Z^T X = 0``.

    Parameters
    ----------
    X : ndarray of shape (n, p), a point of St(n, p)
    G : ndarray of shape (n, p), the Euclidean gradient at ``X``

    Returns
    -------
    ndarray of shape (n, p)
    """
    XtG = X.T @ G
    return G - X @ (0.5 * (XtG + XtG.T))


def constraint_violation(X):
    """Distance from the constraint, ``||X^T X - I_p||_F`` (0 exactly on the manifold)."""
    X = np.asarray(X, dtype=np.float64)
    return float(np.linalg.norm(X.T @ X - np.eye(X.shape[1])))


def _cayley_factors(X, D):
    """Low-rank factors of the skew matrix A with ``A X = -(tangent part of D)``.

    With ``P = D - X (X^T D) / 2`` the skew-symmetric ``A = X P^T - P X^T = U V^T`` has
    ``U = [X, P]`` and ``V = [P, -X]`` (n x 2p), and ``A X = -(D - X sym(X^T D))``
    (Wen & Yin 2013). Storing A through (U, V) keeps every step O(n p^2) instead of O(n^2 p).
    """
    P = D - 0.5 * X @ (X.T @ D)
    return np.hstack([X, P]), np.hstack([P, -X])


def _cayley_step(X, U, V, alpha):
    """Cayley retraction :eq:`eq-cayley-update`, ``Y = (I - a/2 A)^{-1} (I + a/2 A) X``, A = U V^T.

    The n x n inverse is never formed: by the Sherman-Morrison-Woodbury identity
    ``(I - a/2 U V^T)^{-1} = I + a/2 U (I_{2p} - a/2 V^T U)^{-1} V^T``. The 2p x 2p system is
    well conditioned because A is skew-symmetric (the eigenvalues of I - a/2 A have modulus >= 1).
    """
    half = 0.5 * alpha
    Z = X + half * (U @ (V.T @ X))
    small = np.eye(U.shape[1]) - half * (V.T @ U)
    return Z + half * (U @ np.linalg.solve(small, V.T @ Z))


def _retract(X, D, t, retraction):
    """Move from X along ``-t`` times the tangent part of D, staying on St."""
    if retraction == "projection":
        U, _, Vt = np.linalg.svd(X - t * D, full_matrices=False)
        return U @ Vt
    U, V = _cayley_factors(X, D)
    return _cayley_step(X, U, V, t)


def _new_history():
    return {"objective": [], "constraint_violation": [], "grad_norm": []}


def _record(history, f, X, gnorm):
    history["objective"].append(f)
    history["constraint_violation"].append(constraint_violation(X))
    history["grad_norm"].append(gnorm)


# ----------------------------------------------------------------------------------------------
# optimisers
# ----------------------------------------------------------------------------------------------
def projected_gradient(
    fun,
    grad,
    X0,
    *,
    max_iter=2000,
    tol=1e-10,
    retraction="projection",
    armijo=1e-4,
    shrink=0.5,
    max_backtracks=60,
    progress=False,
    callback=None,
):
    """Minimise ``fun`` over St(n, p) by Riemannian gradient descent with a line search.

    Each iteration moves from ``X`` along minus the Riemannian gradient ``R`` (see
    :func:`riemannian_gradient`) and returns to the manifold with a retraction: the projection
    :eq:`eq-stiefel-projection` (default; the projected gradient method of Tonin et al.) or the Cayley
    transform :eq:`eq-cayley-update`. The step ``t`` starts from a Barzilai-Borwein estimate
    (alternating the two BB formulas, as in Wen & Yin 2013; ``1 / ||R||_F`` on the first iteration)
    and is multiplied by ``shrink`` until the Armijo condition
    ``fun(X_new) <= fun(X) - armijo * t * ||R||_F^2`` holds. Accepted steps therefore decrease the
    objective monotonically -- with one documented exception: once the required decrease
    ``armijo * t * ||R||_F^2`` is below the rounding level of ``fun``,
    ``32 eps max(1, |fun(X)|)``, function values can no longer tell a good step from a bad one, and a
    step is accepted if ``fun(X_new) <= fun(X) + 32 eps max(1, |fun(X)|)``. Without this the
    line search would stall far from the tolerance on well-scaled problems (the Armijo decrease is
    quadratic in the gradient norm, the rounding error of ``fun`` is not).

    Used on the trace objective of :eq:`eq-stiefel-trace` it reaches the top eigenspace of a kernel
    matrix (Chapter 1, *Kernels, feature maps and conjugate feature duality*).

    Parameters
    ----------
    fun : callable ``fun(X) -> float``
        Objective to minimise.
    grad : callable ``grad(X) -> ndarray (n, p)``
        Its Euclidean gradient.
    X0 : array-like of shape (n, p), n >= p
        Starting point; it is first projected onto St(n, p) with :func:`project_stiefel`.
    max_iter : int, default=2000
        Maximum number of iterations (accepted steps).
    tol : float, default=1e-10
        Stopping rule: the run stops, with ``converged=True``, at the first iterate where
        ``||R||_F <= tol * max(1, |fun(X)|)`` (R the Riemannian gradient). Otherwise it stops after
        ``max_iter`` iterations or when the line search fails, with ``converged=False``.
    retraction : {"projection", "cayley"}, default="projection"
        How a step returns to the manifold.
    armijo : float in (0, 1), default=1e-4
        Sufficient-decrease constant of the Armijo condition.
    shrink : float in (0, 1), default=0.5
        Factor applied to the step on each backtracking trial.
    max_backtracks : int, default=60
        Trials per iteration before the line search is declared failed.
    progress : bool, default=False
        Show a tqdm progress bar.
    callback : callable ``callback(k, X)`` or None, default=None
        Called with the iteration number ``k`` (0 for the start point) and the iterate ``X``
        after each accepted iterate, e.g. to keep snapshots for a plot over iterations. Its
        return value is ignored; it must not modify ``X``.

    Returns
    -------
    StiefelResult
        ``history`` has ``n_iter + 1`` entries per key (the start point included).

    Raises
    ------
    ValueError
        For a starting point that is not a finite 2-D array with n >= p, non-callable ``fun`` /
        ``grad``, a gradient of the wrong shape, or out-of-range options.
    """
    _check_callables(fun, grad)
    X = project_stiefel(_as_matrix(X0, "X0"))
    _check_positive(max_iter, "max_iter", integer=True, allow_zero=True)
    _check_positive(tol, "tol", allow_zero=True)
    if retraction not in ("projection", "cayley"):
        raise ValueError(f"retraction must be 'projection' or 'cayley', got {retraction!r}.")
    for value, name in ((armijo, "armijo"), (shrink, "shrink")):
        _check_positive(value, name)
        if value >= 1:
            raise ValueError(f"{name} must lie in (0, 1), got {value!r}.")
    _check_positive(max_backtracks, "max_backtracks", integer=True)

    f, G = _eval(fun, grad, X)
    R = riemannian_gradient(X, G)
    gnorm = float(np.linalg.norm(R))
    history = _new_history()
    _record(history, f, X, gnorm)
    if callback is not None:
        callback(0, X)
    t = 1.0 / max(gnorm, _EPS)
    converged, message, n_iter = False, f"reached max_iter={max_iter}", 0
    bar = _progress_bar(progress, max_iter, "projected gradient")
    try:
        while True:
            if gnorm <= tol * max(1.0, abs(f)):
                converged, message = True, "Riemannian gradient norm <= tol * max(1, |f|)"
                break
            if n_iter >= max_iter:
                break
            floor = 32.0 * _EPS * max(1.0, abs(f))  # rounding level of fun near X
            for _ in range(max_backtracks):
                X_new = _retract(X, R, t, retraction)
                f_new = float(fun(X_new))
                required = armijo * t * gnorm**2
                if np.isfinite(f_new) and (f_new <= f - required or (required <= floor and f_new <= f + floor)):
                    break
                t *= shrink
            else:
                message = "line search failed: no step decreased the objective (rounding level reached?)"
                break
            f_new, G_new = _eval(fun, grad, X_new)
            R_new = riemannian_gradient(X_new, G_new)
            # Barzilai-Borwein trial step for the next iteration, from the last displacement S and
            # the change Y of the Riemannian gradient; alternating BB1/BB2 avoids the slow zig-zag
            # either formula alone shows on ill-conditioned problems.
            S, Y = X_new - X, R_new - R
            sy = abs(float(np.sum(S * Y)))
            if sy > 0:
                t = float(np.sum(S * S)) / sy if n_iter % 2 == 0 else sy / float(np.sum(Y * Y))
            else:
                t = t / shrink  # no curvature information: try a larger step
            t = min(max(t, 1e-20), 1e20)
            X, f, R = X_new, f_new, R_new
            gnorm = float(np.linalg.norm(R))
            n_iter += 1
            _record(history, f, X, gnorm)
            if callback is not None:
                callback(n_iter, X)
            if bar is not None:
                bar.update(1)
                bar.set_postfix(f=f, grad_norm=gnorm, refresh=False)
    finally:
        if bar is not None:
            bar.close()
    return StiefelResult(X=X, fun=f, n_iter=n_iter, converged=converged, history=history, message=message)


def cayley_adam(
    fun,
    grad,
    X0,
    *,
    learning_rate=0.1,
    betas=(0.9, 0.999),
    max_iter=5000,
    tol=1e-8,
    epsilon=1e-8,
    q=0.5,
    progress=False,
    callback=None,
):
    """Minimise ``fun`` over St(n, p) with Cayley-Adam (Li, Li & Todorovic, ICLR 2020).

    Algorithm 2 of "Efficient Riemannian optimization on the Stiefel manifold via the Cayley
    transform", the optimiser the duality paper uses for its Stiefel algorithms. Per iteration k
    (G the Euclidean gradient at X):

    1. momentum and a single second-moment scalar, Adam style:
       ``M <- b1 M + (1 - b1) G``, ``v <- b2 v + (1 - b2) ||G||_F^2``,
       ``r = (1 - b1^k) sqrt(v / (1 - b2^k) + epsilon)``;
    2. the skew-symmetric ``A = -(W_hat - W_hat^T) / r`` with ``W_hat = M X^T - X (X^T M X^T) / 2``,
       and the momentum is projected onto the tangent space, ``M <- M - X sym(X^T M)``;
    3. step ``alpha = min(learning_rate, 2 q / (||A||_F + epsilon))`` and the Cayley retraction
       :eq:`eq-cayley-update` ``X <- (I - alpha/2 A)^{-1} (I + alpha/2 A) X``.

    Two departures from the paper, both for accuracy: the Cayley transform is applied exactly, via
    the Sherman-Morrison-Woodbury identity on A's rank-2p factors (O(n p^2) per step), instead of
    the paper's two fixed-point iterations; and v starts at 0 (standard Adam bias correction).
    The Cayley transform of a skew-symmetric matrix is orthogonal, so in exact arithmetic X never
    leaves the manifold; in floating point each step adds an error of order eps, and over thousands
    of steps that drift accumulates. Whenever ``||X^T X - I||_F`` exceeds 1e-10 the iterate is
    therefore re-projected with :func:`project_stiefel` (the closest point, so the iterate moves by
    about that amount only) -- far below any tolerance the optimiser reaches, and far above
    rounding so it happens rarely.

    Adam's step does not shrink with the gradient the way a line-search step adapts, so Cayley-Adam
    converges reliably but slowly to high accuracy; use :func:`projected_gradient` when the answer
    must be accurate to many digits.

    Parameters
    ----------
    fun : callable ``fun(X) -> float``
        Objective to minimise.
    grad : callable ``grad(X) -> ndarray (n, p)``
        Its Euclidean gradient.
    X0 : array-like of shape (n, p), n >= p
        Starting point; it is first projected onto St(n, p).
    learning_rate : float, default=0.1
        Upper bound on the Cayley step ``alpha``.
    betas : tuple (b1, b2) in [0, 1), default=(0.9, 0.999)
        Decay rates of the momentum and of the second moment.
    max_iter : int, default=5000
        Maximum number of iterations.
    tol : float, default=1e-8
        Stopping rule: stop, with ``converged=True``, at the first iterate where the Riemannian
        gradient norm ``||G - X sym(X^T G)||_F <= tol * max(1, |fun(X)|)``; otherwise stop after
        ``max_iter`` iterations with ``converged=False``.
    epsilon : float, default=1e-8
        Guard added under the square root and to ``||A||_F``.
    q : float, default=0.5
        Bounds the step by ``2 q / ||A||_F`` (keeps the fixed-point form of the paper contractive;
        kept here so the step sizes match the paper).
    progress : bool, default=False
        Show a tqdm progress bar.
    callback : callable ``callback(k, X)`` or None, default=None
        Called with the iteration number ``k`` (0 for the start point) and the iterate ``X``
        after each accepted iterate, e.g. to keep snapshots for a plot over iterations. Its
        return value is ignored; it must not modify ``X``.

    Returns
    -------
    StiefelResult
        ``history`` has ``n_iter + 1`` entries per key (the start point included).
    """
    _check_callables(fun, grad)
    X = project_stiefel(_as_matrix(X0, "X0"))
    _check_positive(learning_rate, "learning_rate")
    _check_positive(max_iter, "max_iter", integer=True, allow_zero=True)
    _check_positive(tol, "tol", allow_zero=True)
    _check_positive(epsilon, "epsilon")
    _check_positive(q, "q")
    try:
        b1, b2 = (float(b) for b in betas)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"betas must be a pair (b1, b2) of numbers in [0, 1), got {betas!r}.") from exc
    if not (0 <= b1 < 1 and 0 <= b2 < 1):
        raise ValueError(f"betas must be a pair (b1, b2) of numbers in [0, 1), got {betas!r}.")

    f, G = _eval(fun, grad, X)
    gnorm = float(np.linalg.norm(riemannian_gradient(X, G)))
    history = _new_history()
    _record(history, f, X, gnorm)
    if callback is not None:
        callback(0, X)
    M = np.zeros_like(X)
    v = 0.0
    converged, message, n_iter = False, f"reached max_iter={max_iter}", 0
    bar = _progress_bar(progress, max_iter, "Cayley-Adam")
    try:
        while True:
            if gnorm <= tol * max(1.0, abs(f)):
                converged, message = True, "Riemannian gradient norm <= tol * max(1, |f|)"
                break
            if n_iter >= max_iter:
                break
            k = n_iter + 1
            M = b1 * M + (1.0 - b1) * G
            v = b2 * v + (1.0 - b2) * float(np.sum(G * G))
            r = (1.0 - b1**k) * np.sqrt(v / (1.0 - b2**k) + epsilon)
            U, V = _cayley_factors(X, M / r)
            # ||A||_F^2 = ||U V^T||_F^2 = sum((U^T U) * (V^T V)), computed without the n x n A.
            norm_A = float(np.sqrt(max(np.sum((U.T @ U) * (V.T @ V)), 0.0)))
            M = riemannian_gradient(X, M)
            alpha = min(learning_rate, 2.0 * q / (norm_A + epsilon))
            X = _cayley_step(X, U, V, alpha)
            if constraint_violation(X) > _REPROJECT_THRESHOLD:
                X = project_stiefel(X)
            f, G = _eval(fun, grad, X)
            gnorm = float(np.linalg.norm(riemannian_gradient(X, G)))
            n_iter += 1
            _record(history, f, X, gnorm)
            if callback is not None:
                callback(n_iter, X)
            if bar is not None:
                bar.update(1)
                bar.set_postfix(f=f, grad_norm=gnorm, refresh=False)
    finally:
        if bar is not None:
            bar.close()
    return StiefelResult(X=X, fun=f, n_iter=n_iter, converged=converged, history=history, message=message)


# ----------------------------------------------------------------------------------------------
# the trace problem of kernel PCA
# ----------------------------------------------------------------------------------------------
def _check_square(K, name="K"):
    K = _as_matrix(K, name, tall=False)
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"{name} must be a square (n, n) matrix, got shape {K.shape}.")
    return K


def trace_objective(K):
    """Objective and gradient of the Stiefel form of kernel PCA, :eq:`eq-stiefel-trace`.

    Maximising ``tr(H^T K H)`` over St(N, s) is written as minimising
    ``f(H) = -1/2 tr(H^T K H)``, whose Euclidean gradient is ``-K H`` (Chapter 1, *Kernels, feature
    maps and conjugate feature duality*). ``K`` is symmetrised, ``(K + K^T) / 2``, so the gradient
    formula holds exactly.

    The two callables share a one-entry cache of ``K @ H``: an optimiser that asks for ``fun(H)``
    and then ``grad(H)`` at the same ``H`` pays for one O(N^2 s) product, not two.

    Parameters
    ----------
    K : array-like of shape (N, N)
        Symmetric matrix, typically the centred Gram matrix.

    Returns
    -------
    fun : callable ``fun(H) -> float``
    grad : callable ``grad(H) -> ndarray (N, s)``
    """
    K = _check_square(K)
    K = 0.5 * (K + K.T)
    cache = {"H": None, "KH": None}

    def _KH(H):
        H = np.asarray(H, dtype=np.float64)
        last = cache["H"]
        if last is None or last.shape != H.shape or not np.array_equal(last, H):
            cache["H"], cache["KH"] = H.copy(), K @ H
        return cache["H"], cache["KH"]

    def fun(H):
        H, KH = _KH(H)
        return -0.5 * float(np.sum(H * KH))

    def grad(H):
        return -_KH(H)[1]

    return fun, grad


def factored_trace_objective(Phi):
    """:func:`trace_objective` for ``K = Phi^T Phi`` given by its factor, never forming ``K``.

    The primal Stiefel problem of multi-view kernel PCA maximises ``tr(U^T C U)`` with
    ``C = Phi_c^T Phi_c`` of size ``d_f x d_f`` (Chapter 4, *Stiefel training and rotation*,
    :eq:`eq-stiefel-trace`). When ``d_f`` exceeds the number of samples ``n`` (5001 random Fourier
    features for 1000 samples in the paper's SantaFe experiment), forming ``C`` costs
    ``O(n d_f^2)`` time and ``d_f^2`` memory, and each product ``C U`` costs ``O(d_f^2 s)``;
    ``Phi^T (Phi U)`` costs ``O(n d_f s)`` instead. ``f(U) = -1/2 ||Phi U||_F^2`` and its gradient
    ``-Phi^T (Phi U)`` share a one-entry cache of ``Phi U``.

    Parameters
    ----------
    Phi : array-like of shape (n, d)

    Returns
    -------
    fun : callable ``fun(U) -> float``
    grad : callable ``grad(U) -> ndarray (d, s)``
    """
    Phi = _as_matrix(Phi, "Phi", tall=False)
    cache = {"U": None, "PU": None}

    def _PU(U):
        U = np.asarray(U, dtype=np.float64)
        last = cache["U"]
        if last is None or last.shape != U.shape or not np.array_equal(last, U):
            cache["U"], cache["PU"] = U.copy(), Phi @ U
        return cache["PU"]

    def fun(U):
        PU = _PU(U)
        return -0.5 * float(np.sum(PU * PU))

    def grad(U):
        return -(Phi.T @ _PU(U))

    return fun, grad


def rotate_to_eigenbasis(H, K):
    """Rotate an orthonormal basis of an invariant subspace into eigenvectors, :eq:`eq-rotation`.

    Any maximiser ``H`` of :eq:`eq-stiefel-trace` spans the top-s eigenspace but is only defined up to
    an orthogonal ``O``. With ``Gamma' = H^T K H`` (s x s, symmetrised) ``= O Gamma O^T`` its
    eigendecomposition (eigenvalues descending), ``H O`` has ``(H O)^T K (H O) = Gamma`` diagonal
    (Chapter 1, *Kernels, feature maps and conjugate feature duality*). Only the small s x s matrix
    is decomposed. The library's sign convention (:func:`rkmlearn.linalg.flip_signs`: each column's
    entry of largest absolute value is positive) is applied to ``H O``, and ``O``'s columns are
    flipped with it so that ``H @ O`` equals the returned basis.

    Parameters
    ----------
    H : array-like of shape (N, s), orthonormal columns
    K : array-like of shape (N, N), symmetric

    Returns
    -------
    H_rot : ndarray of shape (N, s)
        ``H @ O``, columns sign-normalised.
    gamma : ndarray of shape (s,)
        Diagonal of ``H_rot^T K H_rot``, descending (the Ritz values).
    O : ndarray of shape (s, s)
        The orthogonal rotation.
    """
    from .linalg import flip_signs  # lazy: keeps this module importable on its own

    H = _as_matrix(H, "H")
    K = _check_square(K)
    if K.shape[0] != H.shape[0]:
        raise ValueError(f"K must be ({H.shape[0]}, {H.shape[0]}) to match H's {H.shape[0]} rows, got {K.shape}.")
    gamma_prime = H.T @ (K @ H)
    gamma_prime = 0.5 * (gamma_prime + gamma_prime.T)
    gamma, O = np.linalg.eigh(gamma_prime)  # s x s only
    gamma, O = gamma[::-1], O[:, ::-1]
    H_rot, signs = flip_signs(H @ O, return_signs=True)
    return H_rot, gamma.copy(), O * signs
