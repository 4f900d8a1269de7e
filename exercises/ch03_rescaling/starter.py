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


# YOUR CODE HERE (helpers you may want)


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
    raise NotImplementedError("rescale: write your implementation here")


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
    raise NotImplementedError("impute_target: write your implementation here")
