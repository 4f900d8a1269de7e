"""The generalised symmetric eigenproblem ``A x = lambda B x`` with ``B`` symmetric positive definite.

A kernel CCA (``[[0, K1 K2], [K2 K1, 0]] x = rho diag(K1^2 + kappa K1, K2^2 + kappa K2) x``) or a
generative RKM has this form. With ``B = L L^T`` (Cholesky) it is the standard problem of
``L^{-1} A L^{-T}`` (:func:`reduce_generalized`) for ``y = L^T x``: solved by any standard solver
(:func:`~rkmlearn.solvers.eigen.top_eigenpairs`, or on St by
:func:`~rkmlearn.solvers.subspace.leading_subspace`), then ``x = L^{-T} y``
(:func:`back_substitute`), so that ``X^T B X = I``.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from .._symmetric import check_symmetric_matrix, exactly_symmetric
from .._validation import array, check_array, validate
from .eigen import flip_signs, top_eigenpairs

__all__ = ["check_metric", "metric_factor", "reduce_generalized", "back_substitute", "generalized_eigenpairs"]


def check_metric(B, n, name="B"):
    """``B`` (n, n) symmetric positive definite, exactly symmetric, and its lower Cholesky factor ``L``.

    ValueError naming ``name`` for a wrong shape, an asymmetric, non-finite or not positive definite
    matrix.
    """
    return metric_factor(check_array(B, name), n, name)


def metric_factor(B, n, name="B"):
    """:func:`check_metric` of a checked array ``B``: its shape, the symmetry rule, and the Cholesky
    factorisation (the first step of the work, which alone can tell positive definiteness)."""
    if B.shape != (n, n):
        raise ValueError(f"{name} must be ({n}, {n}), the size of the eigenproblem's matrix; got {B.shape}.")
    B = exactly_symmetric(B, name)  # B is a checked array: the symmetry rule only, not a second check_array
    try:
        L = scipy.linalg.cholesky(B, lower=True, check_finite=False)
    except np.linalg.LinAlgError as exc:
        raise ValueError(
            f"{name} must be symmetric positive definite (its Cholesky factorisation failed: {exc}). "
            f"Regularise it, e.g. {name} + kappa * I with kappa > 0."
        ) from exc
    return B, L


def reduce_generalized(A, L):
    """``L^{-1} A L^{-T}`` (exactly symmetric) for ``B = L L^T`` (``L`` from :func:`check_metric`):
    the standard problem with the eigenvalues of ``A x = lambda B x``."""
    C = scipy.linalg.solve_triangular(L, A, lower=True, check_finite=False)  # L^{-1} A
    C = scipy.linalg.solve_triangular(L, C.T, lower=True, check_finite=False)  # L^{-1} (L^{-1} A)^T
    return 0.5 * (C + C.T)


def back_substitute(L, Y):
    """``X = L^{-T} Y``: eigenvectors of ``A x = lambda B x`` from those of the reduced problem."""
    return scipy.linalg.solve_triangular(L, Y, lower=True, trans="T", check_finite=False)


@validate(A=lambda A, name, arguments: check_symmetric_matrix(A, name), B=array())  # the solvers trust them
def generalized_eigenpairs(A, B, n_components, solver="auto", *, random_state=0):
    """The ``n_components`` largest eigenpairs of ``A x = lambda B x``, ``B`` SPD, largest first.

    ``A`` (n, n) symmetric (an asymmetry above ``1e-8 max|A|`` is an error), ``B`` (n, n)
    symmetric positive definite. The reduced problem is solved by
    :func:`~rkmlearn.solvers.eigen.top_eigenpairs` with ``solver`` (its count check included).

    Returns
    -------
    eigenvalues : ndarray of shape (n_components,)
        Descending (largest algebraic first; ``A`` need not be PSD).
    eigenvectors : ndarray of shape (n, n_components)
        ``X^T B X = I``, signs fixed by :func:`~rkmlearn.solvers.eigen.flip_signs`.

    Examples
    --------
    >>> values, X = generalized_eigenpairs([[2.0, 0.0], [0.0, 1.0]], [[4.0, 0.0], [0.0, 1.0]], 1)
    >>> values, X
    (array([1.]), array([[0.],
           [1.]]))
    """
    _, L = metric_factor(B, A.shape[0])
    with np.errstate(over="ignore", invalid="ignore"):
        reduced = reduce_generalized(A, L)
    if not np.isfinite(reduced).all():
        # e.g. A * 1e300 with B * 1e-300: the eigenvalues themselves lie beyond the float64 range
        raise ValueError(
            "the eigenvalues of A x = lambda B x overflow float64: the reduced matrix L^-1 A L^-T (B = L L^T) "
            f"holds inf or NaN (max|A| = {np.abs(A).max():.3g}, smallest diagonal entry of L = "
            f"{np.abs(np.diag(L)).min():.3g}). Rescale: solve with A / c (or B * c) for a c that brings "
            "max|A| / min eig(B) below about 1e300; the eigenvalues scale by 1 / c, the eigenvectors do not change."
        )
    values, Y = top_eigenpairs(reduced, n_components, solver, check_rank=False, random_state=random_state,
                               symmetric=True)
    return values, flip_signs(back_substitute(L, Y))
