# Generated from ch03_exercises.ipynb (python -m rkmlearn.grading sync): edit the notebook.
"""Chapter 3 exercises: the rescaling and two-view imputation. YOUR ANSWERS GO HERE.

Fill in the two functions below (the statements are in the exercise notebook and README.md). Keep each signature as it is: the
autograder calls them by name. Use numpy and scipy, vectorised: no Python loops over samples.
Check your work with the check cells of the exercise notebook, or from a shell in your
handout folder::

    python -m rkmlearn.grading . starter.py

Chapter 3 is *Rescaling*; the equation labels below refer to it and to Chapter 2.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg


def _as_matrix(A, name):
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array, got {A.ndim} dimension(s); reshape a single "
                         f"row with {name}.reshape(1, -1)")
    if not np.all(np.isfinite(A)):
        raise ValueError(f"{name} contains NaN or infinity; remove or impute those entries")
    return A


def rescale(U_tilde, eigenvalues):
    """Primal weights from orthonormal eigenvectors: ``U = U~ Lambda^{1/2}``, :eq:`eq-mv-rescaling`.

    Parameters
    ----------
    U_tilde : array-like of shape (d_f, s)
        Eigenvectors of the cross-covariance ``C`` (orthonormal columns), all views stacked.
    eigenvalues : array-like of shape (s,)
        The matching eigenvalues ``lambda_k > 0`` (the diagonal of ``Lambda = Gamma``).

    Returns
    -------
    U : ndarray of shape (d_f, s)
        Column ``k`` of ``U~`` times ``sqrt(lambda_k)``; then ``U^T U = Lambda``.

    Raises
    ------
    ValueError
        If ``U_tilde`` is not a finite 2-D array, ``eigenvalues`` is not a 1-D array with one
        entry per column, or an eigenvalue is not positive.
    """
    U_tilde = _as_matrix(U_tilde, "U_tilde")
    lam = np.asarray(eigenvalues, dtype=np.float64)
    if lam.ndim != 1 or lam.shape[0] != U_tilde.shape[1]:
        raise ValueError(f"eigenvalues must be a 1-D array with one entry per column of U_tilde "
                         f"({U_tilde.shape[1]}), got shape {lam.shape}")
    if not np.all(np.isfinite(lam)) or np.any(lam <= 0):
        raise ValueError("eigenvalues must be positive and finite (keep only components with "
                         f"lambda_k > 0), got {lam}")
    return U_tilde * np.sqrt(lam)


def impute_target(U_x, U_y, Gamma, phi_x):
    """Impute the target view from the input view, two-view :eq:`eq-mv-impute-primal`.

    ``phi_y = U_y (Gamma - U_y^T U_y)^{-1} U_x^T phi_x`` for every row of ``phi_x``: the
    stationarity conditions :eq:`eq-mv-stationarity` solved for ``h`` and ``phi_y`` with
    ``phi_x`` given.

    Parameters
    ----------
    U_x : array-like of shape (d_x, s)
        Weights of the input view.
    U_y : array-like of shape (d_y, s)
        Weights of the target view.
    Gamma : array-like of shape (s, s) or (s,)
        The hyperparameter matrix ``Gamma``; a 1-D array is its diagonal (``Gamma = Lambda``).
    phi_x : array-like of shape (m, d_x)
        Centred features of the input view, one sample per row.

    Returns
    -------
    phi_y : ndarray of shape (m, d_y)
        Centred features of the imputed target view.

    Raises
    ------
    ValueError
        On shapes that do not fit together, non-finite entries, a non-symmetric ``Gamma``, or a
        singular ``Gamma - U_y^T U_y``.
    """
    U_x, U_y, phi_x = _as_matrix(U_x, "U_x"), _as_matrix(U_y, "U_y"), _as_matrix(phi_x, "phi_x")
    s = U_x.shape[1]
    if U_y.shape[1] != s:
        raise ValueError(f"U_y must have as many columns (components) as U_x ({s}), got {U_y.shape[1]}")
    if phi_x.shape[1] != U_x.shape[0]:
        raise ValueError(f"phi_x must have {U_x.shape[0]} columns (the rows of U_x), got {phi_x.shape[1]}")
    Gamma = np.asarray(Gamma, dtype=np.float64)
    if Gamma.ndim == 1:
        Gamma = np.diag(Gamma)
    if Gamma.shape != (s, s) or not np.all(np.isfinite(Gamma)):
        raise ValueError(f"Gamma must be a finite ({s}, {s}) matrix or a length-{s} diagonal, got shape {Gamma.shape}")
    if not np.allclose(Gamma, Gamma.T, rtol=1e-10, atol=0):
        raise ValueError("Gamma must be symmetric")
    M = Gamma - U_y.T @ U_y
    # M = U_x^T U_x is positive definite for a rescaled model, but not in general (U = U~ gives
    # Lambda - U~_y^T U~_y): an LU solve covers both, and it is only s x s.
    try:
        lu = scipy.linalg.lu_factor(M, check_finite=False)
    except (np.linalg.LinAlgError, ValueError) as exc:  # pragma: no cover - lu_factor warns instead
        raise ValueError("Gamma - U_y^T U_y is singular; use fewer components") from exc
    if np.min(np.abs(np.diag(lu[0]))) <= s * np.finfo(np.float64).eps * np.abs(M).max():
        raise ValueError("Gamma - U_y^T U_y is singular: the input view carries no information about "
                         "some component; use fewer components")
    h = scipy.linalg.lu_solve(lu, U_x.T @ phi_x.T, check_finite=False)  # (s, m)
    return (U_y @ h).T
