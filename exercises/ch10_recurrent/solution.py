"""Chapter 10 exercises: reference solution (not handed out).

The lag matrix of eq-rrkm-eig, one step of the latent recursion eq-rrkm-recursion and the kernel
ridge regression pre-image eq-rrkm-krr, in plain numpy/scipy.
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
    """The T x T matrix A of eq-rrkm-eig: ``A[t, t'] = a_|t - t'|`` for ``|t - t'| <= p``, else 0."""
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
    """``h_{c+p}`` from ``h_{c-p}, ..., h_{c+p-1}`` (eq-rrkm-recursion)."""
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
    """Kernel ridge regression from hidden features to inputs (eq-rrkm-krr), RBF kernel."""
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
