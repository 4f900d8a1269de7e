# Generated from ch13_exercises.ipynb (python -m rkmlearn.grading sync): edit the notebook.
"""Chapter 13 exercises: generative RKMs. YOUR ANSWERS GO HERE.

Fill in the two functions below (the statements are in the exercise notebook and README.md). Keep
each signature as it is: the autograder calls them by name. Use numpy and scipy, vectorised.
Chapter 13 is *Generative RKMs*; the equation labels refer to it and to Chapter 2.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg


# YOUR CODE HERE (helpers you may want)


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
    raise NotImplementedError("genrkm_fit: write your implementation here")


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
    raise NotImplementedError("sample_hidden: write your implementation here")
