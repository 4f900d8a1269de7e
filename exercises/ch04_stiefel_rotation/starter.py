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


# YOUR CODE HERE (helpers you may want)


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
    raise NotImplementedError("gamma_prime: write your implementation here")


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
    raise NotImplementedError("rotate_solution: write your implementation here")
