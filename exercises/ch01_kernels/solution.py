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


def _as_matrix(A, name: str) -> np.ndarray:
    """``A`` as a finite 2-D float64 array, or a ValueError naming ``name``."""
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (one row per sample), got {A.ndim} "
                         f"dimension(s); reshape a single sample with {name}.reshape(1, -1)")
    if not np.all(np.isfinite(A)):
        raise ValueError(f"{name} contains NaN or infinity; remove or impute those entries")
    return A


def _as_square(A, name: str) -> np.ndarray:
    A = _as_matrix(A, name)
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"{name} must be a square n x n matrix, got shape {A.shape}")
    return A


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
    X = _as_matrix(X, "X")
    same = Y is None
    Y = X if same else _as_matrix(Y, "Y")
    if Y.shape[1] != X.shape[1]:
        raise ValueError(f"Y must have as many columns (features) as X: X has {X.shape[1]}, "
                         f"Y has {Y.shape[1]}")
    if (isinstance(sigma, bool) or not isinstance(sigma, numbers.Real)
            or not np.isfinite(sigma) or sigma <= 0):
        raise ValueError(f"sigma must be a positive finite number, got {sigma!r}")

    sq_x = np.einsum("ij,ij->i", X, X)
    sq_y = sq_x if same else np.einsum("ij,ij->i", Y, Y)
    sqdist = sq_x[:, None] + sq_y[None, :] - 2.0 * (X @ Y.T)
    np.maximum(sqdist, 0.0, out=sqdist)
    if same:
        # Exact symmetry and exact zeros on the diagonal, whatever the rounding of X @ X.T.
        sqdist = 0.5 * (sqdist + sqdist.T)
        np.fill_diagonal(sqdist, 0.0)
    return np.exp(sqdist * (-0.5 / float(sigma) ** 2))


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
    K_train = _as_square(K_train, "K_train")
    K_test = _as_matrix(K_test, "K_test")
    n = K_train.shape[0]
    if K_test.shape[1] != n:
        raise ValueError(f"K_test must have one column per training point ({n}), got shape "
                         f"{K_test.shape}; pass k(test, train), not k(train, test)")
    col_means = K_train.mean(axis=0)   # (1/N) sum_j k(x_j, x_i), one per training point
    row_means = K_train.mean(axis=1)   # (1/N) sum_j k(x_i, x_j)
    grand_mean = row_means.mean()      # (1/N^2) sum_jl k(x_j, x_l)
    Kc_train = K_train - row_means[:, None] - col_means[None, :] + grand_mean
    Kc_test = K_test - K_test.mean(axis=1)[:, None] - row_means[None, :] + grand_mean
    return Kc_train, Kc_test


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
    Kc = _as_square(Kc, "Kc")
    n = Kc.shape[0]
    scale = max(1.0, float(np.abs(Kc).max(initial=0.0)))
    if np.abs(Kc - Kc.T).max(initial=0.0) > 1e-10 * scale:
        raise ValueError("Kc must be symmetric (a centred Gram matrix); symmetrise it with "
                         "0.5 * (Kc + Kc.T) if it is only off by rounding")
    if (isinstance(n_components, bool) or not isinstance(n_components, numbers.Integral)
            or not 1 <= n_components <= n - 1):
        raise ValueError(f"n_components must be an integer between 1 and n - 1 = {n - 1}, got "
                         f"{n_components!r}")
    s = int(n_components)
    eigenvalues, H = eigh(Kc, subset_by_index=[n - s, n - 1])  # ascending
    eigenvalues, H = eigenvalues[::-1], H[:, ::-1]
    magnitude = np.abs(H)
    first = np.argmax(magnitude >= (1.0 - 1e-8) * magnitude.max(axis=0), axis=0)  # first (near-)tie
    H = H * np.sign(H[first, np.arange(s)])
    return eigenvalues.copy(), H


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
    Kc_test = _as_matrix(Kc_test, "Kc_test")
    H = _as_matrix(H, "H")
    eigenvalues = np.asarray(eigenvalues, dtype=np.float64)
    if eigenvalues.ndim != 1 or eigenvalues.shape[0] != H.shape[1]:
        raise ValueError(f"eigenvalues must be a 1-D array with one value per column of H "
                         f"({H.shape[1]}), got shape {eigenvalues.shape}")
    if not np.all(np.isfinite(eigenvalues)) or np.any(eigenvalues <= 0):
        raise ValueError("eigenvalues must all be positive and finite (Lambda^{-1} is needed); "
                         "drop the components with zero eigenvalue")
    if Kc_test.shape[1] != H.shape[0]:
        raise ValueError(f"Kc_test must have one column per training point (H has {H.shape[0]} "
                         f"rows), got shape {Kc_test.shape}")
    return (Kc_test @ H) / eigenvalues[None, :]
