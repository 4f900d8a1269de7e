# Generated from ch11_exercises.ipynb (python -m rkmlearn.grading sync): edit the notebook.
"""Chapter 11 exercises: kernel spectral clustering. YOUR ANSWERS GO HERE.

Fill in the two functions below (the statements are in the exercise notebook and README.md). Keep
each signature as it is: the autograder calls them by name. Use numpy and scipy, vectorised.
Chapter 11 is *Kernel spectral clustering*; the equation labels refer to it.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg


# YOUR CODE HERE (helpers you may want)


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
    raise NotImplementedError("ksc_dual: write your implementation here")


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
    raise NotImplementedError("ksc_assign: write your implementation here")
