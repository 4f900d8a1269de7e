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


# YOUR CODE HERE (helpers you may want)


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
    raise NotImplementedError("level_kernel: write your implementation here")


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
    raise NotImplementedError("pgd_step: write your implementation here")


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
    raise NotImplementedError("smoother_latent: write your implementation here")
