# Generated from ch12_exercises.ipynb (python -m rkmlearn.grading sync): edit the notebook.
"""Chapter 12 exercises: kernel canonical correlation analysis. YOUR ANSWERS GO HERE.

Fill in the two functions below (the statements are in the exercise notebook and README.md). Keep
each signature as it is: the autograder calls them by name. Use numpy and scipy, vectorised.
Chapter 12 is *Kernel canonical correlation analysis*; the equation labels refer to it.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg


def _finite_matrix(A, name):
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array, got {A.ndim} dimension(s)")
    if not np.all(np.isfinite(A)):
        raise ValueError(f"{name} contains NaN or infinity; remove those entries")
    return A


def _positive(value, name):
    if isinstance(value, bool) or not np.isscalar(value) or not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)


def kcca_primal(Phi1, Phi2, kappa, s):
    """Top ``s`` canonical pairs of the primal conditions :eq:`eq-kcca-conditions`.

    ``C12 v = rho (C11 + kappa I) w`` and ``C21 w = rho (C22 + kappa I) v`` with ``C_uv = Phi_u^T Phi_v``.

    Parameters
    ----------
    Phi1 : array-like of shape (N, d1)
        Centred features of view 1.
    Phi2 : array-like of shape (N, d2)
        Centred features of view 2 (same rows).
    kappa : float
        Regularisation, ``> 0``.
    s : int
        Number of pairs, ``1 <= s <= min(d1, d2)``.

    Returns
    -------
    rho : ndarray of shape (s,)
        Largest first.
    w : ndarray of shape (d1, s)
    v : ndarray of shape (d2, s)
        Normalised so that ``w^T (C11 + kappa I) w + v^T (C22 + kappa I) v = 1`` for each pair.

    Raises
    ------
    ValueError
        If an array is not finite and 2-D, the row counts differ, ``kappa <= 0`` or ``s`` is out of range.
    """
    Phi1, Phi2 = _finite_matrix(Phi1, "Phi1"), _finite_matrix(Phi2, "Phi2")
    if Phi1.shape[0] != Phi2.shape[0]:
        raise ValueError(f"Phi1 and Phi2 must have the same rows (samples), got {Phi1.shape[0]} and {Phi2.shape[0]}")
    kappa = _positive(kappa, "kappa")
    r = min(Phi1.shape[1], Phi2.shape[1])
    if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or not 1 <= s <= r:
        raise ValueError(f"s must be an integer between 1 and {r}, got {s!r}")
    L1 = np.linalg.cholesky(Phi1.T @ Phi1 + kappa * np.eye(Phi1.shape[1]))
    L2 = np.linalg.cholesky(Phi2.T @ Phi2 + kappa * np.eye(Phi2.shape[1]))
    M = scipy.linalg.solve_triangular(L1, Phi1.T @ Phi2, lower=True)
    M = scipy.linalg.solve_triangular(L2, M.T, lower=True).T
    U, rho, Vt = np.linalg.svd(M, full_matrices=False)
    w = scipy.linalg.solve_triangular(L1, U[:, :s], lower=True, trans="T") / np.sqrt(2)
    v = scipy.linalg.solve_triangular(L2, Vt[:s].T, lower=True, trans="T") / np.sqrt(2)
    return rho[:s], w, v


def kcca_dual_coef(F1, F2, w, v, rho, kappa):
    """Dual coefficients from a primal solution of factors, :eq:`eq-kcca-dual-from-primal`.

    ``alpha = (F2 v - rho F1 w) / (rho kappa)``, ``beta = (F1 w - rho F2 v) / (rho kappa)``.

    Parameters
    ----------
    F1, F2 : array-like of shape (N, r1), (N, r2)
        Factors of the centred kernel matrices, ``Omega_v = F_v F_v^T``.
    w, v : array-like of shape (r1, s), (r2, s)
        A primal solution for the features ``F1``, ``F2``.
    rho : array-like of shape (s,)
        Its correlations, all ``> 0``.
    kappa : float
        The regularisation, ``> 0``.

    Returns
    -------
    alpha, beta : ndarray of shape (N, s)

    Raises
    ------
    ValueError
        If shapes do not fit, ``rho`` has a non-positive entry or ``kappa <= 0``.
    """
    F1, F2 = _finite_matrix(F1, "F1"), _finite_matrix(F2, "F2")
    w, v = _finite_matrix(w, "w"), _finite_matrix(v, "v")
    rho = np.asarray(rho, dtype=np.float64)
    kappa = _positive(kappa, "kappa")
    if rho.ndim != 1 or rho.shape[0] != w.shape[1] or w.shape[1] != v.shape[1]:
        raise ValueError("rho must hold one correlation per column of w and v")
    if w.shape[0] != F1.shape[1] or v.shape[0] != F2.shape[1] or F1.shape[0] != F2.shape[0]:
        raise ValueError("w must have a row per column of F1, v a row per column of F2, F1 and F2 the same rows")
    if not np.all(rho > 0):
        raise ValueError("rho must be positive (the dual coefficients divide by it)")
    e, r = F1 @ w, F2 @ v
    return (r - rho * e) / (rho * kappa), (e - rho * r) / (rho * kappa)
