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


def _integer(value, name, low):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}; got {value!r}.")
    return int(value)


def _positive(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0; got {value!r}.")
    return float(value)


def _finite(X, name, ndim):
    X = np.asarray(X, dtype=np.float64)
    if X.ndim not in ndim:
        raise ValueError(f"{name} must have {' or '.join(map(str, ndim))} dimensions; got shape {X.shape}.")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains NaN or inf.")
    return X


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
    if family not in ("gaussian", "indicator"):
        raise ValueError(f"family must be 'gaussian' or 'indicator'; got {family!r}.")
    T = _integer(T, "T", 1)
    p = _integer(p, "p", 1)
    lags = np.arange(T)
    if family == "gaussian":
        sigma_t = _positive(sigma_t, "sigma_t")
        column = np.exp(-(lags / sigma_t) ** 2 / 2.0)
    else:
        column = np.ones(T)
        column[0] = 0.0
    column[lags > p] = 0.0
    return scipy.linalg.toeplitz(column)


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
    a = _finite(a, "a", (1,))
    if a.shape[0] < 2:
        raise ValueError(f"a must hold a_0, ..., a_p with p >= 1; got {a.shape[0]} value(s).")
    p = a.shape[0] - 1
    if a[p] == 0.0:
        raise ValueError("a_p (the last entry of a) must not be 0: the recursion divides by it.")
    window = _finite(window, "window", (2,))
    M = _finite(M, "M", (2,))
    if window.shape[0] != 2 * p:
        raise ValueError(f"window must have 2p = {2 * p} rows (h_(c-p), ..., h_(c+p-1)); got shape {window.shape}.")
    s = window.shape[1]
    if M.shape != (s, s):
        raise ValueError(f"M must have shape (s, s) = ({s}, {s}) for window's s = {s} columns; got {M.shape}.")
    weights = a[np.abs(np.arange(-p, p))]
    return (M @ window[p] - weights @ window) / a[p]


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
    H_train = _finite(H_train, "H_train", (2,))
    H_new = _finite(H_new, "H_new", (2,))
    X_train = _finite(X_train, "X_train", (1, 2))
    sigma = _positive(sigma, "sigma")
    alpha = _positive(alpha, "alpha")
    if H_new.shape[1] != H_train.shape[1]:
        raise ValueError(f"H_new must have {H_train.shape[1]} columns like H_train; got {H_new.shape[1]}.")
    if X_train.shape[0] != H_train.shape[0]:
        raise ValueError(f"X_train must have {H_train.shape[0]} rows (one per row of H_train); got {X_train.shape[0]}.")

    def rbf(A, B):
        sq = (A ** 2).sum(1)[:, None] + (B ** 2).sum(1)[None, :] - 2 * A @ B.T
        return np.exp(-np.maximum(sq, 0.0) / (2 * sigma ** 2))

    K = rbf(H_train, H_train)
    K[np.diag_indices_from(K)] += alpha
    B = scipy.linalg.cho_solve(scipy.linalg.cho_factor(K, lower=True), X_train)
    return rbf(H_new, H_train) @ B
