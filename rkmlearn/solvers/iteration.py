"""What every optimiser of :mod:`~rkmlearn.solvers.optimisers` shares: the result and the iteration loop.

:class:`OptimiserResult` (the final iterate, its objective, the history per iterate, the iterations
taken and whether the stopping rule was met), the checks of a run's callables and limits, the
evaluation of ``fun`` and ``grad`` with their shapes checked, and :func:`iterate` (stopping rule,
history, callback and progress bar) around an optimiser's own step.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._validation import check_scalar_range
from .stiefel import constraint_violation

__all__ = ["OptimiserResult", "check_run", "evaluate", "evaluate_blocks", "iterate"]


@dataclass
class OptimiserResult:
    """Outcome of every optimiser of this module.

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


def check_run(fun, grad, max_iter, tol):
    """The rules every optimiser shares: callable ``fun`` and ``grad``, ``max_iter >= 0``, ``tol >= 0``."""
    if not callable(fun):
        raise ValueError(f"fun must be a callable fun(X) -> float, got {type(fun).__name__}.")
    if not callable(grad):
        raise ValueError(f"grad must be a callable grad(X) -> array of X's shape, got {type(grad).__name__}.")
    check_scalar_range(max_iter, "max_iter", low=0, low_inclusive=True, integer=True)
    check_scalar_range(tol, "tol", low=0.0, low_inclusive=True)


def evaluate(fun, grad, X):
    """Objective and Euclidean gradient at X, with the gradient's shape checked."""
    f = float(fun(X))
    G = np.asarray(grad(X), dtype=np.float64)
    if G.shape != X.shape:
        raise ValueError(f"grad(X) must return an array of shape {X.shape} (the shape of X), got {G.shape}.")
    if not (np.isfinite(f) and np.all(np.isfinite(G))):
        raise ValueError("fun(X) or grad(X) returned NaN or infinity; check the objective and the starting point X0.")
    return f, G


def evaluate_blocks(fun, grad, X, single):
    """:func:`evaluate` on a list of blocks (``fun`` and ``grad`` see one array when ``single``)."""
    if single:
        f, G = evaluate(fun, grad, X[0])
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


def _progress_bar(progress, total, desc):
    if not progress:
        return None
    from tqdm.auto import tqdm  # imported lazily: only needed when a bar is asked for

    return tqdm(total=total, desc=desc, leave=False)


def iterate(advance, X, f, gnorm, *, max_iter, tol, progress, callback, desc, view=None,
            violation=constraint_violation):
    """The loop every optimiser shares: stopping rule, history, callback and progress bar.

    ``advance(k)`` makes iteration ``k`` (0-based) from the current iterate and returns the new
    ``(X, f, gnorm)``, or a message (str) when it cannot move. ``view(X)`` is what the caller sees.
    """
    view = view or (lambda X: X)
    history = {"objective": [f], "constraint_violation": [violation(X)], "grad_norm": [gnorm]}
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
            for key, value in (("objective", f), ("constraint_violation", violation(X)), ("grad_norm", gnorm)):
                history[key].append(value)
            if callback is not None:
                callback(n_iter, view(X))
            if bar is not None:
                bar.update(1)
                bar.set_postfix(f=f, grad_norm=gnorm, refresh=False)
    finally:
        if bar is not None:
            bar.close()
    return OptimiserResult(X=view(X), fun=f, n_iter=n_iter, converged=converged, history=history, message=message)
