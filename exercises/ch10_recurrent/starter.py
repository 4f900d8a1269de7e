# Generated from ch10_exercises.ipynb (python -m rkmlearn.grading sync): edit the notebook.
"""Chapter 10 exercises: recurrent RKMs. YOUR ANSWERS GO HERE.

Fill in the three functions below (the statements are in the exercise notebook and README.md). Keep each signature as it is: the
autograder calls them by name. Use numpy (and scipy if you wish). Check your work with the check cells of the exercise notebook, or from a shell in your
handout folder::

    python -m rkmlearn.grading . starter.py

Chapter 10 is *Recurrent RKMs for time-series forecasting*; the equation labels below refer to it.
"""
from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg


# YOUR CODE HERE (helpers you may want)


def lag_matrix(family, T, p, sigma_t=1.0):
    """The T x T matrix ``A`` of :eq:`eq-rrkm-eig`.

    ``A[t, t'] = a_|t - t'|`` for ``|t - t'| <= p``, 0 otherwise, with the weights of
    :eq:`eq-rrkm-lag-weights`: Gaussian ``a_l = exp(-l^2 / (2 sigma_t^2))``, or the indicator
    ``a_0 = 0``, ``a_l = 1`` (``1 <= l <= p``).

    Parameters
    ----------
    family : {"gaussian", "indicator"}
    T : int
        Number of time steps, ``>= 1``.
    p : int
        The lag, ``>= 1``.
    sigma_t : float, default=1.0
        Time bandwidth, ``> 0`` (Gaussian only).

    Returns
    -------
    A : ndarray of shape (T, T)
    """
    raise NotImplementedError("lag_matrix: write your implementation here")


def latent_step(window, M, a):
    """One step of the latent recursion :eq:`eq-rrkm-recursion`.

    Parameters
    ----------
    window : array-like of shape (2p, s)
        ``h_{c-p}, ..., h_{c+p-1}``, oldest first (row ``p`` is ``h_c``).
    M : array-like of shape (s, s)
        ``H^T A H``.
    a : array-like of shape (p + 1,)
        Lag weights ``a_0, ..., a_p``, ``a_p != 0``.

    Returns
    -------
    h_next : ndarray of shape (s,)
        ``h_{c+p}``, so that ``sum_{l=-p..p} a_|l| h_{c+l} = M h_c`` (:eq:`eq-rrkm-latent-dyn`).
    """
    raise NotImplementedError("latent_step: write your implementation here")


def krr_preimage(H_train, X_train, H_new, sigma, alpha):
    """Kernel ridge regression pre-image :eq:`eq-rrkm-krr` with an RBF kernel on hidden features.

    Parameters
    ----------
    H_train : array-like of shape (n, s)
    X_train : array-like of shape (n, d) or (n,)
    H_new : array-like of shape (m, s)
    sigma : float
        RBF bandwidth, ``> 0``.
    alpha : float
        Ridge, ``> 0``.

    Returns
    -------
    X_new : ndarray of shape (m, d) or (m,)
        ``k(H_new, H_train) (K + alpha I)^{-1} X_train``.
    """
    raise NotImplementedError("krr_preimage: write your implementation here")
