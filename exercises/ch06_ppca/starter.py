# Generated from ch06_exercises.ipynb (python -m rkmlearn.grading sync): edit the notebook.
"""Chapter 6 exercises: noise variance, dual training, latent posterior. YOUR ANSWERS GO HERE.

Fill in the three functions below (the statements are in the exercise notebook and README.md). Keep each signature as it is: the
autograder calls them by name. Use numpy (and scipy if you wish), vectorised: no Python loops over
samples. Check your work with the check cells of the exercise notebook, or from a shell in your
handout folder::

    python -m rkmlearn.grading . starter.py

Chapter 6 is *Probabilistic PCA in primal and dual*; the equation labels below refer to it.
"""
from __future__ import annotations

import numbers

import numpy as np
from scipy.linalg import cho_solve, eigh


# validation helpers


# YOUR CODE HERE (helpers you may want)


def sigma2_ml(eigenvalues, n_samples, q, rank):
    """Maximum-likelihood noise variance of probabilistic PCA in feature space.

    Implements :eq:`eq-ppca-sigma2-ml`: ``sigma^2_ML = sum_{p=q+1}^{r} lambda_p / (N (r - q))``,
    the mean variance ``lambda_p / N`` of the ``r - q`` discarded directions of
    ``H_E`` (``r = dim H_E = rank(K_c)``, NOT N).

    Parameters
    ----------
    eigenvalues : array-like of shape (m,)
        Eigenvalues of the centred Gram matrix ``K_c`` (not divided by N), in descending order,
        non-negative, at least ``rank`` of them (values beyond ``rank`` are ignored).
    n_samples : int
        N, the number of training points (positive).
    q : int
        Latent dimension, ``1 <= q <= rank - 1``.
    rank : int
        ``r = dim(H_E)``, ``1 <= r <= m``.

    Returns
    -------
    sigma2 : float

    Raises
    ------
    ValueError
        If ``eigenvalues`` is not a finite, non-negative, non-increasing 1-D array, or
        ``n_samples``, ``rank`` or ``q`` is out of range.
    """
    raise NotImplementedError("sigma2_ml: write your implementation here")


def dual_ml(K_c, q, sigma2):
    """Dual interconnection matrix ``A_ML`` of probabilistic PCA.

    Implements :eq:`eq-ppca-dual-ml`: ``A_ML = E_q (I / N - sigma^2 Lambda_q^{-1})^{1/2}`` with
    ``(Lambda_q, E_q)`` the q leading eigenpairs of ``K_c`` (descending; each column of ``E_q``
    flipped so that its largest-|entry| is positive) and the rotation ``R = I``. With explicit
    features ``Phi_c`` (``K_c = Phi_c Phi_c^T``), ``Phi_c^T A_ML`` is the primal ``W_ML`` of
    :eq:`eq-ppca-ml`.

    Parameters
    ----------
    K_c : array-like of shape (N, N)
        Centred Gram matrix (symmetric).
    q : int
        Latent dimension, ``1 <= q <= N - 1``.
    sigma2 : float
        Noise variance, ``0 < sigma2 <= lambda_q / N``.

    Returns
    -------
    A : ndarray of shape (N, q)

    Raises
    ------
    ValueError
        If ``K_c`` is not a finite symmetric square matrix, ``q`` is out of range, or ``sigma2``
        is not in ``(0, lambda_q / N]``.
    """
    raise NotImplementedError("dual_ml: write your implementation here")


def latent_posterior(Kc_test, K_c, A, sigma2):
    """Posterior ``h | k_c`` of the dual model: mean (the MAP) and covariance.

    Implements :eq:`eq-ppca-dual-posterior`: ``h | k_c ~ N(M^{-1} A^T k_c, sigma^2 M^{-1})`` with
    ``M = A^T K_c A + sigma^2 I_q`` (note ``A^T``, and the factor ``sigma^2`` of the covariance).
    Works for any ``A`` (not only ``A_ML``), through a Cholesky solve with ``M``.

    Parameters
    ----------
    Kc_test : array-like of shape (m, N)
        Centred kernel rows ``k_c(x)`` of m points against the N training points.
    K_c : array-like of shape (N, N)
        Centred training Gram matrix.
    A : array-like of shape (N, q)
        Dual interconnection matrix.
    sigma2 : float
        Noise variance, positive.

    Returns
    -------
    mean : ndarray of shape (m, q)
    covariance : ndarray of shape (q, q)

    Raises
    ------
    ValueError
        On mismatched shapes, non-finite input or a non-positive ``sigma2``.
    """
    raise NotImplementedError("latent_posterior: write your implementation here")
