"""Optimisers on St(n, p) and on products of Stiefel and Euclidean blocks (as pymanopt's ``optimizers``).

:func:`projected_gradient` (Armijo + Barzilai-Borwein, :mod:`~rkmlearn.solvers.line_search`) over one
Stiefel block or a product; the update rule is chosen per block: the line search, or :class:`Adam`
for a group of Euclidean blocks (the deep RKM paper trains its MLP weights so). :func:`cayley_adam`
(:eq:`eq-cayley-update`, the duality paper's optimiser, one block). Both return an
:class:`~rkmlearn.solvers.iteration.OptimiserResult` and share one iteration loop
(:func:`~rkmlearn.solvers.iteration.iterate`: stopping rule, history, callback, progress).

Every optimiser MINIMISES ``fun(X) -> float`` with Euclidean gradient ``grad(X)``; the geometry is
:mod:`~rkmlearn.solvers.stiefel`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .._validation import check_option, check_scalar_range, in_range, validate
from .iteration import check_run, evaluate, evaluate_blocks, iterate
from .line_search import LINE_SEARCH_FAILED, LineSearch, armijo_search, barzilai_borwein
from .stiefel import (GEOMETRIES, _cayley_factors, _cayley_step, _polar, as_point, constraint_violation, move,
                      norm, riemannian_gradient, tangent, violation)

__all__ = ["Adam", "projected_gradient", "cayley_adam", "BLOCK_KINDS"]

#: Block kinds ``projected_gradient`` accepts: the geometries, and ``"adam"``, short for a Euclidean
#: block moved by the Adam of the ``adam_*`` settings.
BLOCK_KINDS = GEOMETRIES + ("adam",)

_EPS = np.finfo(np.float64).eps

# Cayley-Adam re-projects onto St when ||X^T X - I||_F exceeds this (see cayley_adam for why).
_REPROJECT_THRESHOLD = 1e-10


def _check_betas(betas, name):
    """Adam's decay rates: a pair ``(b1, b2)`` of numbers in [0, 1), ValueError naming ``name``."""
    try:
        b1, b2 = (float(b) for b in betas)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a pair (b1, b2) of numbers in [0, 1), got {betas!r}.") from exc
    if not (0 <= b1 < 1 and 0 <= b2 < 1):
        raise ValueError(f"{name} must be a pair (b1, b2) of numbers in [0, 1), got {betas!r}.")
    return b1, b2


@dataclass(frozen=True)
class Adam:
    """Adam's update rule (Kingma & Ba: bias-corrected moments, a second moment per entry) for a
    group of Euclidean blocks of :func:`projected_gradient`: step size, decay rates, epsilon."""

    learning_rate: float = 1e-3
    betas: tuple = (0.9, 0.999)
    epsilon: float = 1e-8

    def checked(self, prefix="adam_"):
        """A copy with checked values (messages name ``prefix + field``, e.g. ``adam_betas``)."""
        check_scalar_range(self.learning_rate, f"{prefix}learning_rate", low=0.0)
        betas = _check_betas(self.betas, f"{prefix}betas")
        check_scalar_range(self.epsilon, f"{prefix}epsilon", low=0.0)
        return replace(self, betas=betas)


def _start_point(X0, blocks, update, adam):
    """``(blocks of X0, geometries, rules)``: Stiefel blocks projected onto St; a rule per block is
    None (the line search) or an :class:`Adam` (Euclidean blocks only)."""
    if blocks is None:
        if update is not None:
            raise ValueError("update needs blocks: pass X0 as a list of blocks with blocks=(...).")
        return [_polar(as_point(X0, "X0"))], ("stiefel",), (None,)
    blocks = tuple(blocks)
    if not blocks or any(not isinstance(kind, str) or kind not in BLOCK_KINDS for kind in blocks):
        raise ValueError(f"blocks must be a non-empty sequence of {list(BLOCK_KINDS)}; got {blocks!r}.")
    if isinstance(X0, np.ndarray) or not isinstance(X0, (list, tuple)) or len(X0) != len(blocks):
        raise ValueError(
            f"X0 must be a list of {len(blocks)} arrays, one per block of blocks={blocks!r}; got "
            f"{type(X0).__name__}."
        )
    update = (None,) * len(blocks) if update is None else tuple(update)
    if len(update) != len(blocks):
        raise ValueError(f"update must give one rule per block ({len(blocks)}); got {len(update)}.")
    kinds, rules = [], []
    for i, (kind, rule) in enumerate(zip(blocks, update)):
        if rule is not None and not (isinstance(rule, str) and rule == "line_search") and not isinstance(rule, Adam):
            raise ValueError(f"update[{i}] must be 'line_search', None or an Adam(...); got {rule!r}.")
        rule = rule.checked(f"update[{i}].") if isinstance(rule, Adam) else (adam if kind == "adam" else None)
        if rule is not None and kind == "stiefel":
            raise ValueError(f"update[{i}]: Adam moves Euclidean blocks only; block {i} is a Stiefel block.")
        kinds.append("euclidean" if kind == "adam" else kind)
        rules.append(rule)
    X = [_polar(as_point(x, f"X0[{i}]")) if kind == "stiefel" else as_point(x, f"X0[{i}]", tall=False).copy()
         for i, (x, kind) in enumerate(zip(X0, kinds))]
    return X, tuple(kinds), tuple(rules)


_SETTINGS = {"armijo", "shrink", "max_backtracks", "adam_learning_rate", "adam_betas", "adam_epsilon"}


def _run_rules(arguments):
    """The declared rule of :func:`cayley_adam` across parameters (:func:`~rkmlearn.solvers.iteration.check_run`)."""
    check_run(arguments["fun"], arguments["grad"], arguments["max_iter"], arguments["tol"])


def projected_gradient(fun, grad, X0, *, blocks=None, update=None, max_iter=2000, tol=1e-10, retraction="projection",
                       line_search=None, progress=False, callback=None, **settings):
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

    Euclidean blocks whose rule (``update``) is an :class:`Adam` move by Adam, outside the line
    search, as the deep RKM paper trains its MLP weights. One iteration: the gradient at ``X``; the
    line search above on the other blocks, the Adam blocks held at their values (its Armijo test
    stays valid); one Adam step of the Adam blocks from the gradient at ``X``; ``fun`` and ``grad``
    at the new point; the next BB step from the line-searched blocks only. Adam's step is not line
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
        The geometry of each block of ``X0`` (a product manifold, e.g. ``("stiefel", "stiefel",
        "euclidean")`` for two levels' hidden features and classifier weights); ``"adam"`` is short
        for a Euclidean block with the rule ``Adam(adam_learning_rate, adam_betas, adam_epsilon)``.
        Default: ``X0`` is one Stiefel block, passed to ``fun`` and ``grad`` as an array.
    update : sequence of (None, "line_search" or Adam), optional
        The update rule of each block (default: the line search for every block).
    max_iter : int, default=2000
        Maximum number of iterations (accepted steps).
    tol : float, default=1e-10
        Stop, ``converged=True``, at the first iterate with ``||R||_F <= tol * max(1, |fun(X)|)``.
    retraction : {"projection", "cayley"}, default="projection"
    line_search : LineSearch, optional
        Its constants (default ``LineSearch()``: ``armijo=1e-4``, ``shrink=0.5``, ``max_backtracks=60``).
    progress : bool, default=False
        Show a tqdm progress bar.
    callback : callable ``callback(k, X)`` or None, default=None
        Called after each accepted iterate (``k = 0`` for the start point); must not modify ``X``.
    **settings
        The fields of ``line_search`` by name (``armijo``, ``shrink``, ``max_backtracks``) and
        ``adam_learning_rate`` (1e-3), ``adam_betas`` ((0.9, 0.999)), ``adam_epsilon`` (1e-8) of the
        ``"adam"`` blocks.

    Returns
    -------
    ~rkmlearn.solvers.iteration.OptimiserResult
        ``history`` has ``n_iter + 1`` entries per key; ``X`` is a list when ``blocks`` is given;
        ``'grad_norm'`` includes the Adam blocks' gradients (the stopping rule too).

    Examples
    --------
    >>> from rkmlearn.solvers.objectives import trace_objective
    >>> K = np.diag([3.0, 2.0, 1.0])
    >>> fun, grad = trace_objective(K)
    >>> result = projected_gradient(fun, grad, np.ones((3, 1)))
    >>> bool(result.converged), round(-2 * result.fun, 8)
    (True, 3.0)
    """
    if not settings.keys() <= _SETTINGS:
        raise TypeError(f"projected_gradient() got unexpected keyword arguments {sorted(settings.keys() - _SETTINGS)}")
    check_run(fun, grad, max_iter, tol)
    adam = Adam(**{k[5:]: v for k, v in settings.items() if k.startswith("adam_")}).checked()
    single = blocks is None
    X, kinds, rules = _start_point(X0, blocks, update, adam)
    check_option(retraction, "retraction", ("projection", "cayley"))
    rule = replace(line_search or LineSearch(), **{k: v for k, v in settings.items() if not k.startswith("adam_")})
    search = [i for i, r in enumerate(rules) if r is None]  # line-searched blocks
    moved_by_adam = [i for i, r in enumerate(rules) if r is not None]

    def out(X):
        return X[0] if single else X

    def searched_step(t):  # the line-searched blocks move, the Adam blocks are held
        X_new = list(X)
        for i in search:
            X_new[i] = move(X[i], R[i], t, kinds[i], retraction)
        return X_new

    def searched_norm():
        return gnorm if not moved_by_adam else norm([R[i] for i in search])

    f, G = evaluate_blocks(fun, grad, X, single)
    R = tangent(X, G, kinds)
    gnorm = norm(R)
    t = 1.0 / max(searched_norm(), _EPS) if search else 0.0
    M = {i: np.zeros_like(X[i]) for i in moved_by_adam}  # Adam's first and second moments, per entry
    V = {i: np.zeros_like(X[i]) for i in moved_by_adam}

    def advance(k):
        nonlocal X, f, G, R, gnorm, t
        X_new = list(X)
        if search:  # Armijo backtracking on the line-searched blocks, the Adam blocks held
            found = armijo_search(lambda Z: fun(out(Z)), searched_step, f, t, searched_norm() ** 2, rule)
            if found is None:
                return LINE_SEARCH_FAILED
            X_new, t = found
        for i in moved_by_adam:  # Adam (Kingma & Ba), from the gradient at the start of the iteration
            X_new[i] = _adam_step(rules[i], X[i], G[i], M, V, i, k + 1)
        f_new, G_new = evaluate_blocks(fun, grad, X_new, single)
        R_new = tangent(X_new, G_new, kinds)
        if search:  # the next trial step from the line-searched blocks only
            t = barzilai_borwein([X_new[i] - X[i] for i in search], [R_new[i] - R[i] for i in search], k, t,
                                 rule.shrink)
        X, f, G, R = X_new, f_new, G_new, R_new
        gnorm = norm(R)
        return X, f, gnorm

    return iterate(advance, X, f, gnorm, max_iter=max_iter, tol=tol, progress=progress, callback=callback,
                   desc="projected gradient + Adam" if moved_by_adam else "projected gradient", view=out,
                   violation=lambda X: violation(X, kinds))


def _adam_step(rule, x, g, M, V, i, step):
    """Block ``i`` after one Adam step (moments ``M[i]``, ``V[i]`` updated in the dicts)."""
    b1, b2 = rule.betas
    M[i] = b1 * M[i] + (1.0 - b1) * g
    V[i] = b2 * V[i] + (1.0 - b2) * (g * g)
    m_hat, v_hat = M[i] / (1.0 - b1**step), V[i] / (1.0 - b2**step)
    return x - rule.learning_rate * m_hat / (np.sqrt(v_hat) + rule.epsilon)


@validate(X0=lambda value, name, arguments: as_point(value, name), learning_rate=in_range(low=0.0),
          epsilon=in_range(low=0.0), q=in_range(low=0.0), betas=lambda value, name, arguments: _check_betas(value, name),
          then=_run_rules)  # all before the start point's projection; a level's own call trusts its options
def cayley_adam(fun, grad, X0, *, learning_rate=0.1, betas=(0.9, 0.999), max_iter=5000, tol=1e-8, epsilon=1e-8,
                q=0.5, progress=False, callback=None):
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
    ~rkmlearn.solvers.iteration.OptimiserResult
        ``history`` has ``n_iter + 1`` entries per key (the start point included).
    """
    X = _polar(as_point(X0, "X0"))
    b1, b2 = betas

    f, G = evaluate(fun, grad, X)
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
            X = _polar(X)
        f, G = evaluate(fun, grad, X)
        return X, f, float(np.linalg.norm(riemannian_gradient(X, G)))

    return iterate(advance, X, f, gnorm, max_iter=max_iter, tol=tol, progress=progress, callback=callback,
                   desc="Cayley-Adam")
