# Generated from ch12_exercises.ipynb (python -m rkmlearn.grading sync): edit the notebook.
"""Chapter 12 exercises: kernel canonical correlation analysis. YOUR ANSWERS GO HERE.

Fill in the two functions below (the statements are in the exercise notebook and README.md). Keep
each signature as it is: the autograder calls them by name. Use numpy and scipy, vectorised.
Chapter 12 is *Kernel canonical correlation analysis*; the equation labels refer to it.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg


# YOUR CODE HERE (helpers you may want)


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
    raise NotImplementedError("kcca_primal: write your implementation here")


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
    raise NotImplementedError("kcca_dual_coef: write your implementation here")
