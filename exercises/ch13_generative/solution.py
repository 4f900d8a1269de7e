# Generated from ch13_exercises.ipynb (python -m rkmlearn.grading sync): edit the notebook.
"""Chapter 13 exercises: generative RKMs. YOUR ANSWERS GO HERE.

Fill in the two functions below (the statements are in the exercise notebook and README.md). Keep
each signature as it is: the autograder calls them by name. Use numpy and scipy, vectorised.
Chapter 13 is *Generative RKMs*; the equation labels refer to it and to Chapter 2.
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


def genrkm_fit(Ks, s):
    """Hidden units of a multi-view kernel PCA: the top ``s`` eigenpairs of ``sum_v M K_v M``.

    Parameters
    ----------
    Ks : list of array-like, each of shape (N, N)
        The views' UNcentred kernel matrices (symmetric).
    s : int
        Number of hidden units, ``1 <= s <= N - 1``.

    Returns
    -------
    H : ndarray of shape (N, s)
        Orthonormal columns, the eigenvectors of the largest eigenvalues (signs free).
    eigenvalues : ndarray of shape (s,)
        Largest first.

    Raises
    ------
    ValueError
        If ``Ks`` is empty, a matrix is not finite, square, symmetric or of the common size, or ``s`` is out of range.
    """
    if not isinstance(Ks, (list, tuple)) or len(Ks) == 0:
        raise ValueError("Ks must be a non-empty list of kernel matrices, one per view")
    mats = [_finite_matrix(K, f"Ks[{v}]") for v, K in enumerate(Ks)]
    n = mats[0].shape[0]
    for v, K in enumerate(mats):
        if K.shape != (n, n):
            raise ValueError(f"Ks[{v}] must be ({n}, {n}) like Ks[0], got {K.shape}")
        if not np.allclose(K, K.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(K).max())):
            raise ValueError(f"Ks[{v}] must be symmetric")
    if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or not 1 <= s <= n - 1:
        raise ValueError(f"s must be an integer between 1 and N - 1 = {n - 1}, got {s!r}")
    total = np.zeros((n, n))
    for K in mats:
        total += K - K.mean(axis=0) - K.mean(axis=1)[:, None] + K.mean()
    values, H = scipy.linalg.eigh(0.5 * (total + total.T), subset_by_index=[n - s, n - 1])
    return H[:, ::-1], values[::-1]


def sample_hidden(H, z):
    """Draws from the Gaussian with the mean and covariance of the rows of ``H``, one per row of ``z``.

    ``mean + z @ R`` for standard normal ``z`` and ``R`` the symmetric square root of the
    covariance (``np.cov(H, rowvar=False)``): ``R = V diag(sqrt(max(lambda, 0))) V^T``.

    Parameters
    ----------
    H : array-like of shape (N, s)
    z : array-like of shape (n, s)
        Standard normal draws, e.g. ``np.random.default_rng(0).standard_normal((n, s))``.

    Returns
    -------
    draws : ndarray of shape (n, s)

    Raises
    ------
    ValueError
        If ``H`` or ``z`` is not a finite 2-D array, ``H`` has fewer than 2 rows, or their columns differ.
    """
    H = _finite_matrix(H, "H")
    if H.shape[0] < 2:
        raise ValueError("H must have at least 2 rows to estimate a covariance")
    z = _finite_matrix(z, "z")
    if z.shape[1] != H.shape[1]:
        raise ValueError(f"z must have one column per column of H ({H.shape[1]}), got {z.shape[1]}")
    cov = np.atleast_2d(np.cov(H, rowvar=False))
    values, vectors = np.linalg.eigh(cov)
    root = (vectors * np.sqrt(np.clip(values, 0.0, None))) @ vectors.T
    return H.mean(axis=0) + z @ root
