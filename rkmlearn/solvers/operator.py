"""Eigenpairs and a pivoted Cholesky factor of a symmetric matrix known only by its products.

A matrix-free dual level (:mod:`rkmlearn.kernels.operator`) never forms its ``n x n`` matrix: it
offers ``matmat(V) = K V`` for a block of vectors, its diagonal and single columns. Here:

* :func:`operator_eigenpairs`: the ``s`` leading eigenpairs by the block Krylov solver of
  :mod:`~rkmlearn.solvers.block_krylov` (the same residual check, ``<= n eps`` of the largest
  eigenvalue), with a wide block (a product's cost is the kernel evaluation, nearly independent of
  the block's width), falling back to ARPACK on the same products where it gives up;
* :func:`pivoted_cholesky_columns`: the pivoted Cholesky factor of a PSD matrix from its diagonal
  and the columns it pivots on (:func:`~rkmlearn.solvers.linear.pivoted_cholesky`'s rule, memory
  ``n x rank``).
"""

from __future__ import annotations

import numpy as np
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh

from .._validation import check_random_state
from .block_krylov import _NotConverged, block_krylov_eigenpairs
from .._symmetric import rank_tolerance

__all__ = ["operator_eigenpairs", "pivoted_cholesky_columns", "OPERATOR_BLOCK", "OPERATOR_PASSES"]

#: Block width of the Krylov solver on an operator. A tile product costs its kernel evaluation
#: (RBF, d = 20: a 512 x 22 x 512 product and an ``exp``) plus ``4 b`` flops an entry for ``b`` vectors.
#: Measured (n = 8192, one thread): 4.9, 5.4 and 6.8 ns an upper-triangle entry for b = 8, 16, 32,
#: and 10, 8, 6 passes to LAPACK's accuracy (s = 10): b = 16 and 32 cost about the same, 16 half the memory.
OPERATOR_BLOCK = 16
#: Most passes over the operator before the block solver gives up (to ARPACK on the same products).
OPERATOR_PASSES = 60


def operator_eigenpairs(operator, s, random_state=0, *, solver="block"):
    """The ``s`` largest eigenpairs of the symmetric ``operator`` (``shape``, ``matmat``), descending.

    ``solver="block"``: block Krylov (residuals ``<= n eps`` of the largest eigenvalue), then ARPACK
    where it gives up; ``"arpack"``: ARPACK directly (one pass over the operator per Lanczos vector).
    Either answer is checked: residuals above ``1e-8`` of the largest eigenvalue are a RuntimeError.
    Signs are not fixed (the level fixes them).
    """
    n = operator.shape[0]
    if solver != "arpack":
        try:
            return block_krylov_eigenpairs(operator, s, random_state, block_size=OPERATOR_BLOCK,
                                           budget=OPERATOR_PASSES * OPERATOR_BLOCK)
        except _NotConverged:
            pass  # a cluster of eigenvalues at s: ARPACK on the same products
    linear = LinearOperator((n, n), matvec=lambda v: operator.matmat(v.reshape(-1, 1)).ravel(),
                            matmat=operator.matmat, dtype=np.float64)
    v0 = check_random_state(random_state).uniform(-1.0, 1.0, size=n)
    try:
        values, vectors = eigsh(linear, k=s, which="LA", v0=v0, tol=0.0)
    except ArpackNoConvergence as error:
        raise RuntimeError(f"neither the block Krylov solver nor ARPACK converged on the {n} x {n} operator: "
                           f"{error}") from None
    order = np.argsort(values)[::-1]
    values, vectors = values[order], vectors[:, order]
    residual = np.linalg.norm(operator.matmat(vectors) - vectors * values, axis=0).max(initial=0.0)
    if not residual <= 1e-8 * max(abs(float(values[0])), np.finfo(np.float64).tiny):
        raise RuntimeError(f"ARPACK's eigenpairs of the operator have residual {residual:.1e}; please report this.")
    return values, vectors


def pivoted_cholesky_columns(diagonal, column, lambda_max, *, block=64):
    """``F`` (n, rank) with ``S ~ F F^T``, its pivots and rank, from ``S``'s diagonal and columns.

    The rule of :func:`~rkmlearn.solvers.linear.pivoted_cholesky` (LAPACK ``pstrf``): pivot on the
    largest remaining diagonal entry, stop when it is ``<= rank_tolerance(n) * lambda_max``; ``S``
    itself is never formed, ``column(i)`` gives its column ``i`` (cost ``O(n rank^2)`` plus ``rank``
    columns, memory ``n x rank``).

    Parameters
    ----------
    diagonal : ndarray of shape (n,)
    column : callable
        ``column(i)`` -> ndarray of shape (n,), column ``i`` of ``S``.
    lambda_max : float
        ``S``'s largest eigenvalue.
    block : int
        Columns of ``F`` allocated at a time.

    Returns
    -------
    F : ndarray of shape (n, rank)
    pivots : ndarray of shape (rank,)
    rank : int
    """
    n = diagonal.shape[0]
    tol = rank_tolerance(n) * lambda_max
    d = np.array(diagonal, dtype=np.float64)
    F, pivots = np.empty((n, block)), []
    for k in range(n):
        i = int(np.argmax(d))
        if d[i] <= tol:
            break
        if k == F.shape[1]:
            F = np.hstack([F, np.empty((n, block))])
        c = column(i) - F[:, :k] @ F[i, :k]
        F[:, k] = c / np.sqrt(d[i])
        d -= F[:, k] ** 2
        d[i] = 0.0
        F[pivots, k] = 0.0  # exactly zero above the diagonal, as pstrf's triangle
        pivots.append(i)
    rank = len(pivots)
    return F[:, :rank].copy(), np.array(pivots, dtype=np.intp), rank
