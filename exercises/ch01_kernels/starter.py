# Generated from ch01_exercises.ipynb (python -m rkmlearn.grading sync): edit the notebook.
"""Chapter 1 exercises: RBF Gram matrix, centring, kernel PCA. YOUR ANSWERS GO HERE.

Fill in the four functions below (the statements are in the exercise notebook and README.md). Keep each signature as it is: the
autograder calls them by name. Use numpy (and scipy if you wish), vectorised: no Python loops over
samples. Check your work with the check cells of the exercise notebook, or from a shell in your
handout folder::

    python -m rkmlearn.grading . starter.py

Chapter 1 is *Kernels, feature maps and conjugate feature duality*; the equation labels below
refer to it.
"""
from __future__ import annotations

import numbers

import numpy as np
from scipy.linalg import eigh


# validation helpers


# YOUR CODE HERE (helpers you may want)


def rbf_gram(X, Y=None, sigma=1.0):
    """RBF (Gaussian) Gram matrix, vectorised through the BLAS form of squared distances.

    Implements the RBF kernel of :eq:`eq-kernel-zoo`,
    ``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))``, with the squared distances computed as in
    :eq:`eq-sqdist`, ``||x||^2 + ||y||^2 - 2 x^T y``, clipped at 0 (rounding can make the BLAS
    form slightly negative for nearly equal points).

    Parameters
    ----------
    X : array-like of shape (n, d)
        First set of points, one per row.
    Y : array-like of shape (m, d), optional
        Second set of points. When None, ``Y = X`` and the result is exactly symmetric with a
        diagonal of exactly 1 (the distance of a point to itself is set to exactly 0).
    sigma : float, default=1.0
        Bandwidth, a positive finite number.

    Returns
    -------
    K : ndarray of shape (n, m), float64
        ``K[i, j] = k(X[i], Y[j])``.

    Raises
    ------
    ValueError
        If ``X`` or ``Y`` is not a finite 2-D array, their numbers of columns differ, or
        ``sigma`` is not a positive finite number.
    """
    raise NotImplementedError("rbf_gram: write your implementation here")


def center_train_test(K_train, K_test):
    """Centre training and test kernel matrices in feature space, with TRAINING statistics.

    Implements :eq:`eq-centering-train`, ``K_c = M_c K M_c`` with ``M_c = I - (1/N) 1 1^T``, and
    :eq:`eq-centering-test`: a test row ``k(x, x_i)`` loses its own mean over the training points,
    the training row means ``(1/N) sum_j k(x_i, x_j)``, and gains back the training grand mean.
    This is exactly ``phi(x) - mu`` against ``phi(x_i) - mu`` where ``mu`` is the mean of the
    TRAINING feature vectors; the test set's own means are never used.

    Parameters
    ----------
    K_train : array-like of shape (n, n)
        Gram matrix of the training points, ``K_train[i, j] = k(x_i, x_j)``.
    K_test : array-like of shape (m, n)
        Kernel between test points (rows) and training points (columns).

    Returns
    -------
    Kc_train : ndarray of shape (n, n)
        The centred training Gram matrix; its rows and columns sum to zero.
    Kc_test : ndarray of shape (m, n)
        The centred test kernel rows.

    Raises
    ------
    ValueError
        If ``K_train`` is not square, ``K_test`` has a different number of columns, or either
        contains NaN or infinity.
    """
    raise NotImplementedError("center_train_test: write your implementation here")


def kpca_eig(Kc, n_components):
    """Leading eigenpairs of a centred Gram matrix: the dual kernel PCA solution.

    Implements :eq:`eq-kpca-dual`, ``K_c H = H Lambda`` with ``H^T H = I``. Only the requested
    eigenpairs are computed (``scipy.linalg.eigh`` with ``subset_by_index``).

    Conventions: eigenvalues are those of ``K_c`` itself, NOT divided by N, in descending order;
    each column of ``H`` is flipped so that its first entry whose absolute value is within a
    relative 1e-8 of the column's largest is positive.

    Parameters
    ----------
    Kc : array-like of shape (n, n)
        Centred, symmetric Gram matrix.
    n_components : int
        Number of components s, with ``1 <= s <= n - 1`` (a centred Gram matrix has rank at most
        n - 1).

    Returns
    -------
    eigenvalues : ndarray of shape (s,)
        Descending.
    H : ndarray of shape (n, s)
        Orthonormal eigenvectors in the matching order.

    Raises
    ------
    ValueError
        If ``Kc`` is not a finite square symmetric matrix or ``n_components`` is not an integer in
        ``[1, n - 1]``.
    """
    raise NotImplementedError("kpca_eig: write your implementation here")


def kpca_transform(Kc_test, eigenvalues, H):
    """Hidden features of points from their centred kernel rows.

    Implements :eq:`eq-kpca-projection`, ``h(x) = Lambda^{-1} H^T k_c(x)``, for all rows at once:
    ``Kc_test @ H / eigenvalues``. For the training points themselves (``Kc_test = K_c``) this
    returns the rows of ``H``.

    Parameters
    ----------
    Kc_test : array-like of shape (m, n)
        Centred kernel rows of the points (rows) against the n training points (columns).
    eigenvalues : array-like of shape (s,)
        Positive eigenvalues of the centred training Gram matrix.
    H : array-like of shape (n, s)
        The matching eigenvectors.

    Returns
    -------
    ndarray of shape (m, s)
        One row ``h(x)^T`` per point.

    Raises
    ------
    ValueError
        If the shapes do not match or an eigenvalue is not positive.
    """
    raise NotImplementedError("kpca_transform: write your implementation here")
