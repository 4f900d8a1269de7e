# Generated from ch02_exercises.ipynb (python -m rkmlearn.grading sync): edit the notebook.
"""Chapter 2 exercises: Algorithms 1 and 2 of multi-view kernel PCA. YOUR ANSWERS GO HERE.

Fill in the two functions below (the statements are in the exercise notebook and README.md). Keep each signature as it is: the
autograder calls them by name. Use numpy and scipy, vectorised: no Python loops over samples (a
loop over the few views is fine). Check your work with the check cells of the exercise notebook, or from a shell in your
handout folder::

    python -m rkmlearn.grading . starter.py

Chapter 2 is *Primal and dual*; the equation labels below refer to it.
"""
from __future__ import annotations

import numbers

import numpy as np
from scipy.linalg import eigh


# validation and shared helpers


# YOUR CODE HERE (helpers you may want)


def dual_eig(Xs, n_components):
    """Multi-view kernel PCA in the dual: Algorithm 2, :eq:`eq-mv-dual-eig`.

    Centre each view's linear Gram matrix, ``K_v = M_c X_v X_v^T M_c``, sum them,
    ``K = sum_v K_v``, and return the top ``s`` eigenpairs ``K H = H Lambda``, ``H^T H = I``.

    Parameters
    ----------
    Xs : list of array-like, each of shape (n, d_v)
        The views (row i of every view is sample i).
    n_components : int
        ``s``, in ``[1, n - 1]``.

    Returns
    -------
    H : ndarray of shape (n, s)
        Orthonormal hidden features, each column flipped so that its entry of largest absolute
        value is positive.
    eigenvalues : ndarray of shape (s,)
        The diagonal of ``Lambda = Gamma``, descending (eigenvalues of ``K``, not divided by n).

    Raises
    ------
    ValueError
        If ``Xs`` is not a list of finite 2-D arrays with equal numbers of rows, or
        ``n_components`` is out of range.
    """
    raise NotImplementedError("dual_eig: write your implementation here")


def primal_eig(Xs, n_components):
    """Multi-view kernel PCA in the primal: Algorithm 1, :eq:`eq-mv-primal-eig`.

    Centre and concatenate the views, ``Phi = [X_1 - mean, ..., X_V - mean]``, form the
    cross-covariance ``C = Phi^T Phi`` (:eq:`eq-mv-cross-covariance`), take its top ``s``
    eigenpairs ``C U~ = U~ Lambda``, rescale ``U = U~ Lambda^{1/2}`` and compute the hidden
    features with the second stationarity condition of :eq:`eq-mv-stationarity`,
    ``H = Phi U Lambda^{-1}``.

    Parameters
    ----------
    Xs : list of array-like, each of shape (n, d_v)
    n_components : int
        ``s``, in ``[1, min(n - 1, d_f)]`` with ``d_f = sum_v d_v``.

    Returns
    -------
    Us : list of ndarray, ``Us[v]`` of shape (d_v, s)
        The primal weights ``U_v`` (the rows of ``U`` belonging to view v).
    eigenvalues : ndarray of shape (s,)
        Descending eigenvalues of ``C`` (equal to those of the dual ``K``).
    H : ndarray of shape (n, s)
        Hidden features of the training samples; the same sign convention as :func:`dual_eig`
        (the columns of ``U`` are flipped together with those of ``H``).

    Raises
    ------
    ValueError
        As :func:`dual_eig`.
    """
    raise NotImplementedError("primal_eig: write your implementation here")
