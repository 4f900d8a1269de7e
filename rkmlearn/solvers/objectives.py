"""The trace objective of kernel PCA on St, :eq:`eq-stiefel-trace`, as ``fun``, ``grad`` pairs.

:func:`trace_objective` for a matrix ``K``, :func:`factored_trace_objective` for ``K = Phi^T Phi``
given by its factor (the primal with ``d_f > n``, Chapter 4). Both MINIMISE ``-1/2 tr(H^T K H)``,
the form :mod:`~rkmlearn.solvers.optimisers` takes, and cache the last product ``K H``: ``fun`` then
``grad`` at one point pay once.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_array, check_square

__all__ = ["trace_objective", "factored_trace_objective"]


def trace_objective(K):
    """Objective and gradient of the Stiefel form of kernel PCA, :eq:`eq-stiefel-trace`.

    ``f(H) = -1/2 tr(H^T K H)`` and its gradient ``-K H`` for a symmetric ``K`` (N, N), symmetrised
    so that the formula holds exactly; the two callables share a cache of ``K H`` (one product per
    point). Returns ``fun(H) -> float`` and ``grad(H) -> (N, s)``.
    """
    return _trace_objective(check_square(K))


def _trace_objective(K):
    """:func:`trace_objective` of a checked square matrix (the level's own)."""
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
    return _factored_trace_objective(check_array(Phi, "Phi"))


def _factored_trace_objective(Phi):
    """:func:`factored_trace_objective` of a checked factor (the level's own)."""
    PU = _last_product(lambda U: Phi @ U)

    def fun(U):
        value = PU(U)
        return -0.5 * float(np.sum(value * value))

    def grad(U):
        return -(Phi.T @ PU(U))

    return fun, grad
