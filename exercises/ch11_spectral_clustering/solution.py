# Generated from ch11_exercises.ipynb (python -m rkmlearn.grading sync): edit the notebook.
"""Chapter 11 exercises: kernel spectral clustering. YOUR ANSWERS GO HERE.

Fill in the two functions below (the statements are in the exercise notebook and README.md). Keep
each signature as it is: the autograder calls them by name. Use numpy and scipy, vectorised.
Chapter 11 is *Kernel spectral clustering*; the equation labels refer to it.
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


def ksc_dual(Omega, k):
    """Dual of kernel spectral clustering through its symmetric form, :eq:`eq-ksc-symmetric`.

    Parameters
    ----------
    Omega : array-like of shape (N, N)
        Symmetric kernel matrix with non-negative entries and positive row sums (the degrees).
    k : int
        Number of clusters, ``2 <= k <= N``.

    Returns
    -------
    alpha : ndarray of shape (N, k - 1)
        ``D^{-1/2} beta`` for the top ``k - 1`` eigenvectors ``beta`` of ``P S P`` (unit norm).
    b : ndarray of shape (k - 1,)
        The biases of :eq:`eq-ksc-bias`.
    lam : ndarray of shape (k - 1,)
        The eigenvalues, largest first.

    Raises
    ------
    ValueError
        If ``Omega`` is not a finite square matrix with non-negative entries and positive row
        sums, or ``k`` is not an integer in [2, N].
    """
    Omega = _finite_matrix(Omega, "Omega")
    n = Omega.shape[0]
    if Omega.shape != (n, n):
        raise ValueError(f"Omega must be square, got shape {Omega.shape}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 2 <= k <= n:
        raise ValueError(f"k must be an integer between 2 and N = {n}, got {k!r}")
    d = Omega.sum(axis=1)
    if np.any(Omega < 0) or np.any(d <= 0):
        raise ValueError("Omega must have non-negative entries and positive row sums (the degrees)")
    root = np.sqrt(d)
    S = Omega / np.outer(root, root)
    v = 1.0 / root
    v /= np.linalg.norm(v)
    Sv = S @ v
    T = S - np.outer(v, Sv) - np.outer(Sv, v) + (v @ Sv) * np.outer(v, v)
    lam, beta = scipy.linalg.eigh(0.5 * (T + T.T), subset_by_index=[n - k + 1, n - 1])
    lam, beta = lam[::-1], beta[:, ::-1]
    alpha = beta / root[:, None]
    b = -((1.0 / d) @ (Omega @ alpha)) / (1.0 / d).sum()
    return alpha, b, lam


def ksc_assign(scores, codebook):
    """Cluster of each row of ``scores``: the codeword nearest in Hamming distance to its signs.

    Parameters
    ----------
    scores : array-like of shape (m, k - 1)
        Score variables ``e``; a score ``>= 0`` counts as ``+1``, else ``-1``.
    codebook : array-like of shape (k, k - 1)
        Codewords with entries ``+1`` / ``-1``.

    Returns
    -------
    labels : ndarray of shape (m,), int
        Index of the nearest codeword; ties go to the lower index.

    Raises
    ------
    ValueError
        If the arrays are not finite and 2-D, their column counts differ, or the codebook has
        entries other than +1 and -1.
    """
    scores = _finite_matrix(scores, "scores")
    codebook = _finite_matrix(codebook, "codebook")
    if scores.shape[1] != codebook.shape[1]:
        raise ValueError(f"scores has {scores.shape[1]} columns but codebook has {codebook.shape[1]}; "
                         "they must match (k - 1 score variables)")
    if not np.all(np.isin(codebook, (-1.0, 1.0))):
        raise ValueError("codebook entries must be +1 or -1")
    signs = np.where(scores >= 0, 1.0, -1.0)
    return np.argmin((signs[:, None, :] != codebook[None, :, :]).sum(axis=2), axis=1)
