"""Optimisation on the Stiefel manifold St(n, p) = {X in R^{n x p} : X^T X = I_p} and products of it.

The hidden features of kernel PCA maximise ``tr(H^T K_c H)`` on St, :eq:`eq-stiefel-trace`; any
orthonormal basis of the top-s eigenspace is a maximiser and :eq:`eq-rotation` turns it into
eigenvectors. Pieces: :func:`project_stiefel` (:eq:`eq-stiefel-projection`),
:func:`riemannian_gradient`, :func:`constraint_violation`; :func:`projected_gradient` (Armijo +
Barzilai-Borwein, over ONE Stiefel block or a PRODUCT of Stiefel and Euclidean blocks, as a deep RKM
trains several H's and classifier weights jointly; Euclidean blocks may instead move by Adam);
:func:`cayley_adam` (:eq:`eq-cayley-update`, the duality paper's optimiser, one block);
:func:`trace_objective`, :func:`factored_trace_objective`; :func:`rotate_to_eigenbasis`.

Every optimiser MINIMISES ``fun(X) -> float`` with Euclidean gradient ``grad(X)``. The metric is the
ambient Euclidean one, so the Riemannian gradient is ``G - X sym(X^T G)`` on a Stiefel block and
``G`` on a Euclidean block.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np

from .eigen import flip_signs

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
    "BLOCK_KINDS",
]

BLOCK_KINDS = ("stiefel", "euclidean", "adam")

_EPS = np.finfo(np.float64).eps

# Cayley-Adam re-projects onto St when ||X^T X - I||_F exceeds this (see cayley_adam for why).
_REPROJECT_THRESHOLD = 1e-10


@dataclass
class StiefelResult:
    """Outcome of an optimisation run on the Stiefel manifold (or a product manifold).

    ``X`` is the final iterate (one array per block for a product), ``fun`` its objective, ``n_iter``
    the accepted steps, ``converged`` whether the gradient-norm rule was met (False: ``max_iter`` or
    a failed line search; ``message`` says which). ``history`` holds, per iterate ``X_0 ... X_n``
    (``n_iter + 1`` entries each, unrounded), ``'objective'``, ``'constraint_violation'``
    (``||X^T X - I||_F``, the largest over Stiefel blocks) and ``'grad_norm'`` (Riemannian).
    """

    X: np.ndarray
    fun: float
    n_iter: int
    converged: bool
    history: dict = field(default_factory=dict)
    message: str = ""


# ----------------------------------------------------------------------------------------------
# validation helpers
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


def _check_betas(betas, name):
    """Adam's decay rates: a pair ``(b1, b2)`` of numbers in [0, 1), ValueError naming ``name``."""
    try:
        b1, b2 = (float(b) for b in betas)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a pair (b1, b2) of numbers in [0, 1), got {betas!r}.") from exc
    if not (0 <= b1 < 1 and 0 <= b2 < 1):
        raise ValueError(f"{name} must be a pair (b1, b2) of numbers in [0, 1), got {betas!r}.")
    return b1, b2


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


def _eval_blocks(fun, grad, X, single):
    """:func:`_eval` on a list of blocks (``fun`` and ``grad`` see one array when ``single``)."""
    if single:
        f, G = _eval(fun, grad, X[0])
        return f, [G]
    f = float(fun(X))
    G = [np.asarray(g, dtype=np.float64) for g in grad(X)]
    if [g.shape for g in G] != [x.shape for x in X]:
        raise ValueError(
            f"grad(X) must return one array per block with the block shapes {[x.shape for x in X]}, got "
            f"{[g.shape for g in G]}."
        )
    if not (np.isfinite(f) and all(np.all(np.isfinite(g)) for g in G)):
        raise ValueError("fun(X) or grad(X) returned NaN or infinity; check the objective and the starting point X0.")
    return f, G


def _start_point(X0, blocks):
    """Blocks of the starting point: (list of arrays, kinds); Stiefel blocks projected onto St."""
    if blocks is None:
        return [project_stiefel(_as_matrix(X0, "X0"))], ("stiefel",)
    blocks = tuple(blocks)
    if not blocks or any(kind not in BLOCK_KINDS for kind in blocks):
        raise ValueError(f"blocks must be a non-empty sequence of {list(BLOCK_KINDS)}; got {blocks!r}.")
    if isinstance(X0, np.ndarray) or not isinstance(X0, (list, tuple)) or len(X0) != len(blocks):
        raise ValueError(
            f"X0 must be a list of {len(blocks)} arrays, one per block of blocks={blocks!r}; got "
            f"{type(X0).__name__}."
        )
    X = []
    for i, (x, kind) in enumerate(zip(X0, blocks)):
        x = _as_matrix(x, f"X0[{i}]", tall=kind == "stiefel")
        X.append(project_stiefel(x) if kind == "stiefel" else x.copy())
    return X, blocks


def _tangent(X, G, kinds):
    """Riemannian gradient per block: tangent projection (Stiefel) or G itself (Euclidean, Adam)."""
    return [riemannian_gradient(x, g) if kind == "stiefel" else g for x, g, kind in zip(X, G, kinds)]


def _norm(R):
    if len(R) == 1:
        return float(np.linalg.norm(R[0]))
    return float(np.sqrt(sum(float(np.sum(r * r)) for r in R)))


def _inner(A, B):
    return sum(float(np.sum(a * b)) for a, b in zip(A, B))


def _violation(X, kinds):
    return max((constraint_violation(x) for x, kind in zip(X, kinds) if kind == "stiefel"), default=0.0)


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

    Implements :eq:`eq-stiefel-projection` (Chapter 1): ``P(X) = X (X^T X)^{-1/2} = U V^T`` from
    the thin SVD ``X = U S V^T``; ``X`` (n, p), n >= p, gives ``Q`` (n, p) with ``Q^T Q = I``.
    """
    X = _as_matrix(X, "X")
    U, _, Vt = np.linalg.svd(X, full_matrices=False)
    return U @ Vt


def riemannian_gradient(X, G):
    """Riemannian gradient on St(n, p) for the metric inherited from the ambient space.

    The projection of the Euclidean gradient ``G`` (n, p) onto the tangent space at ``X``,
    ``G - X sym(X^T G)``; the result ``Z`` satisfies ``X^T Z + Z^T X = 0``.
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


def _record(history, f, violation, gnorm):
    history["objective"].append(f)
    history["constraint_violation"].append(violation)
    history["grad_norm"].append(gnorm)


def _iterate(advance, X, f, gnorm, *, max_iter, tol, progress, callback, desc, view=None,
             violation=constraint_violation):
    """The loop every optimiser shares: stopping rule, history, callback and progress bar.

    ``advance(k)`` makes iteration ``k`` (0-based) from the current iterate and returns the new
    ``(X, f, gnorm)``, or a message (str) when it cannot move. ``view(X)`` is what the caller sees.
    """
    view = view or (lambda X: X)
    history = _new_history()
    _record(history, f, violation(X), gnorm)
    if callback is not None:
        callback(0, view(X))
    converged, message, n_iter = False, f"reached max_iter={max_iter}", 0
    bar = _progress_bar(progress, max_iter, desc)
    try:
        while True:
            if gnorm <= tol * max(1.0, abs(f)):
                converged, message = True, "Riemannian gradient norm <= tol * max(1, |f|)"
                break
            if n_iter >= max_iter:
                break
            moved = advance(n_iter)
            if isinstance(moved, str):
                message = moved
                break
            X, f, gnorm = moved
            n_iter += 1
            _record(history, f, violation(X), gnorm)
            if callback is not None:
                callback(n_iter, view(X))
            if bar is not None:
                bar.update(1)
                bar.set_postfix(f=f, grad_norm=gnorm, refresh=False)
    finally:
        if bar is not None:
            bar.close()
    return StiefelResult(X=view(X), fun=f, n_iter=n_iter, converged=converged, history=history, message=message)


# ----------------------------------------------------------------------------------------------
# optimisers
# ----------------------------------------------------------------------------------------------
def _armijo_search(evaluate, move, f, t, snorm2, *, armijo, shrink, max_backtracks):
    """Backtracking from the trial step ``t``: ``(X_new, t)`` of the first accepted step, or None.

    ``move(t)`` is the iterate after a step ``t``; ``evaluate(X)`` its objective; ``snorm2`` the
    squared norm of the searched direction. Accepted: the Armijo decrease ``armijo t snorm2``, or,
    once that is below the rounding level ``32 eps max(1, |f|)``, no increase beyond it.
    """
    floor = 32.0 * _EPS * max(1.0, abs(f))  # rounding level of fun near X
    for _ in range(max_backtracks):
        X_new = move(t)
        f_new = float(evaluate(X_new))
        required = armijo * t * snorm2
        if np.isfinite(f_new) and (f_new <= f - required or (required <= floor and f_new <= f + floor)):
            return X_new, t
        t *= shrink
    return None


def _barzilai_borwein(S, Y, k, t, shrink):
    """The next trial step from the displacement ``S`` and the change ``Y`` of the Riemannian gradient.

    Alternating BB1/BB2 avoids the zig-zag of either alone; no curvature information: a larger step.
    """
    sy = abs(_inner(S, Y))
    if sy > 0:
        t = _inner(S, S) / sy if k % 2 == 0 else sy / _inner(Y, Y)
    else:
        t = t / shrink
    return min(max(t, 1e-20), 1e20)


_LINE_SEARCH_FAILED = "line search failed: no step decreased the objective (rounding level reached?)"


def projected_gradient(
    fun,
    grad,
    X0,
    *,
    blocks=None,
    max_iter=2000,
    tol=1e-10,
    retraction="projection",
    armijo=1e-4,
    shrink=0.5,
    max_backtracks=60,
    adam_learning_rate=1e-3,
    adam_betas=(0.9, 0.999),
    adam_epsilon=1e-8,
    progress=False,
    callback=None,
):
    """Minimise ``fun`` over St(n, p), or a product of Stiefel and Euclidean blocks, by line search.

    Each iteration moves along minus the Riemannian gradient ``R`` and returns to the manifold with
    a retraction per Stiefel block: the projection :eq:`eq-stiefel-projection` (default; the
    projected gradient method of Tonin et al.) or the Cayley transform :eq:`eq-cayley-update`.
    Euclidean blocks move linearly. The step ``t`` starts from a Barzilai-Borwein estimate
    (alternating BB1/BB2 over the summed inner products of all blocks; ``1 / ||R||_F`` at first) and
    shrinks until the Armijo condition ``fun(X_new) <= fun(X) - armijo * t * ||R||_F^2`` holds, so
    the objective decreases monotonically -- except below its rounding level: once the required
    decrease is under ``32 eps max(1, |fun(X)|)``, a step with ``fun(X_new) <= fun(X) + 32 eps
    max(1, |fun(X)|)`` is accepted (function values can no longer rank steps there).

    Blocks of kind ``"adam"`` are Euclidean blocks moved by Adam (Kingma & Ba: bias-corrected
    moments, a second moment per entry), outside the line search, as the deep RKM paper trains its
    MLP weights. One iteration: the gradient at ``X``; the line search above on the other blocks,
    the Adam blocks held at their values (its Armijo test stays valid); one Adam step of the Adam
    blocks from the gradient at ``X``; ``fun`` and ``grad`` at the new point. Adam's step is not line
    searched, so the objective is then no longer guaranteed to decrease monotonically; with only
    Adam blocks the iteration is plain Adam. Without Adam blocks nothing changes (bit for bit).

    Parameters
    ----------
    fun : callable ``fun(X) -> float``
        Objective to minimise; with ``blocks`` it receives the list of blocks.
    grad : callable ``grad(X) -> ndarray (n, p)``
        Its Euclidean gradient; with ``blocks``, one array per block.
    X0 : array-like of shape (n, p), n >= p, or list of arrays
        Starting point (Stiefel blocks are first projected with :func:`project_stiefel`).
    blocks : sequence of {"stiefel", "euclidean", "adam"}, optional
        The kind of each block of ``X0`` (a product manifold, e.g. ``("stiefel", "stiefel",
        "euclidean")`` for two levels' hidden features and classifier weights). Default: ``X0`` is
        one Stiefel block, passed to ``fun`` and ``grad`` as an array.
    max_iter : int, default=2000
        Maximum number of iterations (accepted steps).
    tol : float, default=1e-10
        Stop, ``converged=True``, at the first iterate with ``||R||_F <= tol * max(1, |fun(X)|)``.
    retraction : {"projection", "cayley"}, default="projection"
    armijo : float in (0, 1), default=1e-4
        Sufficient-decrease constant.
    shrink : float in (0, 1), default=0.5
        Backtracking factor.
    max_backtracks : int, default=60
        Trials per iteration before the line search is declared failed.
    adam_learning_rate : float, default=1e-3
        Adam's step size (``"adam"`` blocks only).
    adam_betas : tuple (b1, b2) in [0, 1), default=(0.9, 0.999)
        Decay rates of Adam's first and second moments.
    adam_epsilon : float, default=1e-8
        Added to the square root of Adam's second moment.
    progress : bool, default=False
        Show a tqdm progress bar.
    callback : callable ``callback(k, X)`` or None, default=None
        Called after each accepted iterate (``k = 0`` for the start point); must not modify ``X``.

    Returns
    -------
    StiefelResult
        ``history`` has ``n_iter + 1`` entries per key; ``X`` is a list when ``blocks`` is given;
        ``'grad_norm'`` includes the Adam blocks' gradients (the stopping rule too).

    Examples
    --------
    >>> K = np.diag([3.0, 2.0, 1.0])
    >>> fun, grad = trace_objective(K)
    >>> result = projected_gradient(fun, grad, np.ones((3, 1)))
    >>> bool(result.converged), round(-2 * result.fun, 8)
    (True, 3.0)
    """
    _check_callables(fun, grad)
    single = blocks is None
    X, kinds = _start_point(X0, blocks)
    _check_positive(max_iter, "max_iter", integer=True, allow_zero=True)
    _check_positive(tol, "tol", allow_zero=True)
    if retraction not in ("projection", "cayley"):
        raise ValueError(f"retraction must be 'projection' or 'cayley', got {retraction!r}.")
    for value, name in ((armijo, "armijo"), (shrink, "shrink")):
        _check_positive(value, name)
        if value >= 1:
            raise ValueError(f"{name} must lie in (0, 1), got {value!r}.")
    _check_positive(max_backtracks, "max_backtracks", integer=True)
    _check_positive(adam_learning_rate, "adam_learning_rate")
    adam_betas = _check_betas(adam_betas, "adam_betas")
    _check_positive(adam_epsilon, "adam_epsilon")
    if "adam" in kinds:
        return _projected_gradient_adam(
            fun, grad, X, kinds, max_iter=max_iter, tol=tol, retraction=retraction, armijo=armijo, shrink=shrink,
            max_backtracks=max_backtracks, learning_rate=adam_learning_rate, betas=adam_betas,
            epsilon=adam_epsilon, progress=progress, callback=callback)

    def out(X):
        return X[0] if single else X

    def step(X, R, t):
        return [_retract(x, r, t, retraction) if kind == "stiefel" else x - t * r for x, r, kind in zip(X, R, kinds)]

    f, G = _eval_blocks(fun, grad, X, single)
    R = _tangent(X, G, kinds)
    gnorm = _norm(R)
    t = 1.0 / max(gnorm, _EPS)

    def advance(k):
        nonlocal X, f, R, gnorm, t
        found = _armijo_search(lambda Z: fun(out(Z)), lambda t: step(X, R, t), f, t, gnorm**2,
                               armijo=armijo, shrink=shrink, max_backtracks=max_backtracks)
        if found is None:
            return _LINE_SEARCH_FAILED
        X_new, t = found
        f_new, G_new = _eval_blocks(fun, grad, X_new, single)
        R_new = _tangent(X_new, G_new, kinds)
        S = [a - b for a, b in zip(X_new, X)]
        Y = [a - b for a, b in zip(R_new, R)]
        t = _barzilai_borwein(S, Y, k, t, shrink)
        X, f, R = X_new, f_new, R_new
        gnorm = _norm(R)
        return X, f, gnorm

    return _iterate(advance, X, f, gnorm, max_iter=max_iter, tol=tol, progress=progress, callback=callback,
                    desc="projected gradient", view=out, violation=lambda X: _violation(X, kinds))


def _projected_gradient_adam(fun, grad, X, kinds, *, max_iter, tol, retraction, armijo, shrink, max_backtracks,
                             learning_rate, betas, epsilon, progress, callback):
    """:func:`projected_gradient` with ``"adam"`` blocks (validated there; see its docstring).

    The line-searched blocks (``search``) follow the Armijo + Barzilai-Borwein rule of the plain path
    with the Adam blocks held fixed; the Adam blocks then take one Adam step from the gradient at the
    start of the iteration. The BB step of the next iteration is estimated from the line-searched
    blocks only (their displacement and the change of their Riemannian gradient).
    """
    b1, b2 = betas
    search = [i for i, kind in enumerate(kinds) if kind != "adam"]
    adam = [i for i, kind in enumerate(kinds) if kind == "adam"]

    def searched_step(t):  # the line-searched blocks move, the Adam blocks are held
        X_new = list(X)
        for i in search:
            X_new[i] = _retract(X[i], R[i], t, retraction) if kinds[i] == "stiefel" else X[i] - t * R[i]
        return X_new

    f, G = _eval_blocks(fun, grad, X, False)
    R = _tangent(X, G, kinds)
    gnorm = _norm(R)
    t = 1.0 / max(_norm([R[i] for i in search]), _EPS) if search else 0.0
    M = {i: np.zeros_like(X[i]) for i in adam}  # Adam's first and second moments, per entry
    V = {i: np.zeros_like(X[i]) for i in adam}

    def advance(k):
        nonlocal X, f, G, R, gnorm, t
        X_new = list(X)
        if search:  # Armijo backtracking on the line-searched blocks, the Adam blocks held
            found = _armijo_search(fun, searched_step, f, t, _norm([R[i] for i in search]) ** 2,
                                   armijo=armijo, shrink=shrink, max_backtracks=max_backtracks)
            if found is None:
                return _LINE_SEARCH_FAILED
            X_new, t = found
        step = k + 1  # Adam (Kingma & Ba), from the gradient at the start of the iteration
        for i in adam:
            M[i] = b1 * M[i] + (1.0 - b1) * G[i]
            V[i] = b2 * V[i] + (1.0 - b2) * (G[i] * G[i])
            m_hat, v_hat = M[i] / (1.0 - b1**step), V[i] / (1.0 - b2**step)
            X_new[i] = X[i] - learning_rate * m_hat / (np.sqrt(v_hat) + epsilon)
        f_new, G_new = _eval_blocks(fun, grad, X_new, False)
        R_new = _tangent(X_new, G_new, kinds)
        if search:  # the next trial step from the line-searched blocks only
            t = _barzilai_borwein([X_new[i] - X[i] for i in search], [R_new[i] - R[i] for i in search], k, t, shrink)
        X, f, G, R = X_new, f_new, G_new, R_new
        gnorm = _norm(R)
        return X, f, gnorm

    return _iterate(advance, X, f, gnorm, max_iter=max_iter, tol=tol, progress=progress, callback=callback,
                    desc="projected gradient + Adam", violation=lambda X: _violation(X, kinds))


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

    Implements :eq:`eq-cayley-update` with Adam's moments (Algorithm 2 of the Cayley-Adam paper,
    the duality paper's optimiser; derived in Chapter 4). Two departures, both for accuracy: the
    Cayley transform is applied exactly through the Sherman-Morrison-Woodbury identity on the skew
    matrix's rank-2p factors (``O(n p^2)`` per step) instead of two fixed-point iterations, and the
    iterate is re-projected onto St whenever ``||X^T X - I||_F > 1e-10`` (rounding drift over
    thousands of steps). Adam's step does not shrink with the gradient, so it converges reliably
    but slowly to many digits: use :func:`projected_gradient` for accuracy.

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
    b1, b2 = _check_betas(betas, "betas")

    f, G = _eval(fun, grad, X)
    gnorm = float(np.linalg.norm(riemannian_gradient(X, G)))
    M = np.zeros_like(X)
    v = 0.0

    def advance(k):
        nonlocal X, f, G, M, v
        k += 1
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
        return X, f, float(np.linalg.norm(riemannian_gradient(X, G)))

    return _iterate(advance, X, f, gnorm, max_iter=max_iter, tol=tol, progress=progress, callback=callback,
                    desc="Cayley-Adam")


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

    ``f(H) = -1/2 tr(H^T K H)`` and its gradient ``-K H`` for a symmetric ``K`` (N, N), symmetrised
    so that the formula holds exactly; the two callables share a cache of ``K H`` (one product per
    point). Returns ``fun(H) -> float`` and ``grad(H) -> (N, s)``.
    """
    K = _check_square(K)
    K = 0.5 * (K + K.T)
    KH = _last_product(lambda H: K @ H)

    def fun(H):
        return -0.5 * float(np.sum(np.asarray(H, dtype=np.float64) * KH(H)))

    def grad(H):
        return -KH(H)

    return fun, grad


def _last_product(product):
    """``at(X) = product(X)``, remembering the last ``X``: ``fun`` then ``grad`` at one point pay once."""
    cache = {"X": None, "value": None}

    def at(X):
        X = np.asarray(X, dtype=np.float64)
        last = cache["X"]
        if last is None or last.shape != X.shape or not np.array_equal(last, X):
            cache["X"], cache["value"] = X.copy(), product(X)
        return cache["value"]

    return at


def factored_trace_objective(Phi):
    """:func:`trace_objective` for ``K = Phi^T Phi`` given by its factor, never forming ``K``.

    For the primal problem ``max tr(U^T C U)``, ``C = Phi_c^T Phi_c`` (d_f x d_f) with ``d_f > n``
    (Chapter 4): ``f(U) = -1/2 ||Phi U||_F^2`` and ``-Phi^T (Phi U)`` cost ``O(n d_f s)`` per
    gradient instead of ``O(d_f^2 s)``, and no ``d_f^2`` memory. ``Phi`` is (n, d).
    """
    Phi = _as_matrix(Phi, "Phi", tall=False)
    PU = _last_product(lambda U: Phi @ U)

    def fun(U):
        value = PU(U)
        return -0.5 * float(np.sum(value * value))

    def grad(U):
        return -(Phi.T @ PU(U))

    return fun, grad


def rotate_to_eigenbasis(H, K):
    """Rotate an orthonormal basis of an invariant subspace into eigenvectors, :eq:`eq-rotation`.

    ``Gamma' = H^T K H = O Gamma O^T`` (s x s only); ``H O`` diagonalises it (Chapter 1). ``H`` is
    (N, s) orthonormal, ``K`` (N, N) symmetric. Returns ``H_rot = H O`` (N, s) with the signs of
    :func:`~rkmlearn.solvers.eigen.flip_signs` (``O``'s columns flipped with it), the Ritz values
    ``gamma`` (s,) descending, and ``O`` (s, s).
    """
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
