# Generated from ch09_exercises.ipynb (python -m rkmlearn.grading sync): edit the notebook.
"""Chapter 9 exercises: deep RKM classifiers. YOUR ANSWERS GO HERE.

Fill in the three functions below (the statements are in the exercise notebook and README.md). Keep each signature as it is: the
autograder calls them by name. Use numpy (and scipy if you wish), vectorised: no Python loops over
samples. Check your work with the check cells of the exercise notebook, or from a shell in your
handout folder::

    python -m rkmlearn.grading . starter.py

Chapter 9 is *Deep RKM classifiers*; the equation labels below refer to it.
"""
from __future__ import annotations

import numpy as np


def _matrix(A, name):
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2 or A.size == 0 or not np.all(np.isfinite(A)):
        raise ValueError(f"{name} must be a non-empty finite 2-D array; got shape {A.shape}.")
    return A


def _positive(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0; got {value!r}.")
    return float(value)


def _sqdist(A, B):
    D = np.sum(A**2, axis=1)[:, None] + np.sum(B**2, axis=1)[None, :] - 2.0 * A @ B.T
    return np.maximum(D, 0.0)


def level_kernel(H, sigma):
    """Centred RBF kernel matrix ``M_c K(H) M_c`` of a level's hidden features (:eq:`eq-deep-lssvm`).

    Parameters
    ----------
    H : array-like of shape (N, s)
        Hidden features of the previous level.
    sigma : float
        RBF bandwidth, ``sigma > 0``.

    Returns
    -------
    K_c : ndarray of shape (N, N)
        Exactly symmetric, rows and columns summing to 0 (up to rounding).
    """
    H = _matrix(H, "H")
    sigma = _positive(sigma, "sigma")
    D = _sqdist(H, H)
    D = 0.5 * (D + D.T)
    np.fill_diagonal(D, 0.0)
    K = np.exp(-D / (2.0 * sigma**2))
    K_c = K - K.mean(axis=0)[None, :] - K.mean(axis=1)[:, None] + K.mean()
    return 0.5 * (K_c + K_c.T)


def pgd_step(H, G, alpha):
    """One projected-gradient step ``Pi_St(H - alpha G)`` by the compact SVD (:eq:`eq-deep-pgd`).

    Parameters
    ----------
    H : array-like of shape (N, s), N >= s
    G : array-like of shape (N, s)
        Gradient of the objective at ``H``.
    alpha : float
        Step size, ``alpha > 0``.

    Returns
    -------
    H_new : ndarray of shape (N, s)
        ``U V^T`` for ``H - alpha G = U S V^T``; ``H_new^T H_new = I``.
    """
    H = _matrix(H, "H")
    G = _matrix(G, "G")
    alpha = _positive(alpha, "alpha")
    if G.shape != H.shape:
        raise ValueError(f"G must have the shape of H, {H.shape}; got {G.shape}.")
    if H.shape[0] < H.shape[1]:
        raise ValueError(f"H must have at least as many rows as columns; got shape {H.shape}.")
    U, _, Vt = np.linalg.svd(H - alpha * G, full_matrices=False)
    return U @ Vt


def smoother_latent(X_train, H, X_new, sigma):
    """Hidden features of new points by the Gaussian kernel smoother (:eq:`eq-deep-smoother`).

    Parameters
    ----------
    X_train : array-like of shape (N, d)
    H : array-like of shape (N, s)
        Hidden features of the training points (the last level).
    X_new : array-like of shape (m, d)
    sigma : float
        Bandwidth of the smoother, ``sigma > 0``.

    Returns
    -------
    H_new : ndarray of shape (m, s)
        Weighted means of the rows of ``H``; finite even for points far from all training points.
    """
    X_train = _matrix(X_train, "X_train")
    H = _matrix(H, "H")
    X_new = _matrix(X_new, "X_new")
    sigma = _positive(sigma, "sigma")
    if H.shape[0] != X_train.shape[0]:
        raise ValueError(f"H must have one row per training point ({X_train.shape[0]}); got {H.shape[0]}.")
    if X_new.shape[1] != X_train.shape[1]:
        raise ValueError(f"X_new must have the {X_train.shape[1]} columns of X_train; got {X_new.shape[1]}.")
    D = _sqdist(X_new, X_train)
    D -= D.min(axis=1, keepdims=True)
    W = np.exp(-D / (2.0 * sigma**2))
    return (W / W.sum(axis=1, keepdims=True)) @ H
