# Generated from ch04_exercises.ipynb (python -m rkmlearn.grading sync): edit the notebook.
"""Chapter 4 exercises: Gamma' of a Stiefel solution and its rotation. YOUR ANSWERS GO HERE.

Fill in the two functions below (the statements are in the exercise notebook and README.md). Keep each signature as it is: the
autograder calls them by name. Use numpy, vectorised. Check your work with the check cells of the exercise notebook, or from a shell in your
handout folder::

    python -m rkmlearn.grading . starter.py

Chapter 4 is *Stiefel training and rotation*; the equation labels refer to it
and to Chapter 1.
"""
from __future__ import annotations

import numpy as np


def _as_matrix(A, name):
    try:
        A = np.asarray(A, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 2-D array of real numbers ({exc}).") from exc
    if A.ndim != 2 or A.size == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array, got shape {A.shape}.")
    if not np.all(np.isfinite(A)):
        raise ValueError(f"{name} contains NaN or infinity; remove those entries.")
    return A


def _check(H_prime, K):
    H_prime = _as_matrix(H_prime, "H_prime")
    K = _as_matrix(K, "K")
    n, s = H_prime.shape
    if s > n:
        raise ValueError(f"H_prime must have at least as many rows as columns, got shape {H_prime.shape}.")
    if not np.allclose(H_prime.T @ H_prime, np.eye(s), rtol=0, atol=1e-8):
        raise ValueError("H_prime must have orthonormal columns (H_prime^T H_prime = I): it must lie on the "
                         "Stiefel manifold; orthonormalise it first (e.g. its polar factor).")
    if K.shape != (n, n):
        raise ValueError(f"K must be ({n}, {n}) to match the {n} rows of H_prime, got shape {K.shape}.")
    scale = max(np.abs(K).max(), 1.0)
    if not np.allclose(K, K.T, rtol=0, atol=1e-10 * scale):
        raise ValueError("K must be symmetric; pass (K + K.T) / 2 if it is only symmetric up to rounding.")
    return H_prime, 0.5 * (K + K.T)


def gamma_prime(H_prime, K):
    """``Gamma' = H'^T K H'`` of a Stiefel solution (Algorithm 4, line 6), :eq:`eq-mv-rotation`.

    Parameters
    ----------
    H_prime : array-like of shape (n, s)
        Orthonormal columns.
    K : array-like of shape (n, n)
        Symmetric.

    Returns
    -------
    ndarray of shape (s, s)
        Exactly symmetric.

    Raises
    ------
    ValueError
        If ``H_prime`` does not have orthonormal columns or ``K`` is not symmetric of matching size.
    """
    H_prime, K = _check(H_prime, K)
    G = H_prime.T @ (K @ H_prime)
    return 0.5 * (G + G.T)


def rotate_solution(H_prime, K):
    """Rotate a Stiefel solution to the eigenbasis (Algorithm 4, lines 7-9), :eq:`eq-mv-rotation`.

    ``Gamma' = O Lambda O^T`` (eigenvalues descending) and ``H = H' O``; each column of ``H`` is
    flipped so that its entry of largest absolute value is positive (first one on ties), and the
    same column of ``O`` with it, so that ``H = H' O`` still holds.

    Parameters
    ----------
    H_prime : array-like of shape (n, s)
    K : array-like of shape (n, n)

    Returns
    -------
    H : ndarray of shape (n, s)
    Lambda : ndarray of shape (s,)
        The diagonal of ``H^T K H``, descending.
    O : ndarray of shape (s, s)
        Orthogonal.
    """
    G = gamma_prime(H_prime, K)
    H_prime = np.asarray(H_prime, dtype=np.float64)
    values, O = np.linalg.eigh(G)
    values, O = values[::-1].copy(), O[:, ::-1]
    H = H_prime @ O
    rows = np.argmax(np.abs(H), axis=0)
    signs = np.sign(H[rows, np.arange(H.shape[1])])
    signs[signs == 0] = 1.0
    return H * signs, values, O * signs
