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


def _as_matrix(A, name: str) -> np.ndarray:
    """``A`` as a finite 2-D float64 array, or a ValueError naming ``name``."""
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array, got {A.ndim} dimension(s); reshape a single "
                         f"row with {name}.reshape(1, -1)")
    if not np.all(np.isfinite(A)):
        raise ValueError(f"{name} contains NaN or infinity; remove or impute those entries")
    return A


def _as_symmetric(A, name: str) -> np.ndarray:
    A = _as_matrix(A, name)
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"{name} must be a square n x n matrix, got shape {A.shape}")
    scale = max(1.0, float(np.abs(A).max(initial=0.0)))
    if np.abs(A - A.T).max(initial=0.0) > 1e-10 * scale:
        raise ValueError(f"{name} must be symmetric (a centred Gram matrix); symmetrise it with "
                         f"0.5 * ({name} + {name}.T) if it is only off by rounding")
    return A


def _as_int(value, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not low <= value <= high:
        raise ValueError(f"{name} must be an integer between {low} and {high}, got {value!r}")
    return int(value)


def _leading_eigenpairs(K_c, q):
    """The q leading eigenpairs of K_c, descending, each eigenvector's largest |entry| positive."""
    n = K_c.shape[0]
    values, vectors = eigh(K_c, subset_by_index=[n - q, n - 1])
    values, vectors = values[::-1], vectors[:, ::-1]
    largest = np.argmax(np.abs(vectors), axis=0)
    return values.copy(), vectors * np.sign(vectors[largest, np.arange(q)])


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
    values = np.asarray(eigenvalues, dtype=np.float64)
    if values.ndim != 1 or values.size == 0 or not np.all(np.isfinite(values)):
        raise ValueError("eigenvalues must be a non-empty finite 1-D array (the spectrum of K_c)")
    if np.any(values < 0) or np.any(np.diff(values) > 0):
        raise ValueError("eigenvalues must be non-negative and sorted in descending order")
    n_samples = _as_int(n_samples, "n_samples", 1, np.iinfo(np.int64).max)
    rank = _as_int(rank, "rank", 1, values.size)
    q = _as_int(q, "q", 1, rank - 1) if rank > 1 else _as_int(q, "q", 1, 0)
    return float(values[q:rank].sum() / (n_samples * (rank - q)))


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
    K_c = _as_symmetric(K_c, "K_c")
    n = K_c.shape[0]
    q = _as_int(q, "q", 1, n - 1)
    if isinstance(sigma2, bool) or not isinstance(sigma2, numbers.Real) or not np.isfinite(sigma2) \
            or sigma2 <= 0:
        raise ValueError(f"sigma2 must be a positive finite number, got {sigma2!r}")
    values, E = _leading_eigenpairs(K_c, q)
    bound = values[-1] / n
    if sigma2 > bound * (1 + 1e-12):
        raise ValueError(f"sigma2 = {sigma2!r} exceeds the bound lambda_q / N = {bound!r} "
                         "(Prop. 3/6); use a smaller sigma2 or fewer components q")
    return E * np.sqrt(np.maximum(1.0 / n - sigma2 / values, 0.0))


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
    K_c = _as_symmetric(K_c, "K_c")
    Kc_test = _as_matrix(Kc_test, "Kc_test")
    A = _as_matrix(A, "A")
    n = K_c.shape[0]
    if Kc_test.shape[1] != n:
        raise ValueError(f"Kc_test must have one column per training point ({n}), got shape "
                         f"{Kc_test.shape}")
    if A.shape[0] != n:
        raise ValueError(f"A must have one row per training point ({n}), got shape {A.shape}")
    if isinstance(sigma2, bool) or not isinstance(sigma2, numbers.Real) or not np.isfinite(sigma2) \
            or sigma2 <= 0:
        raise ValueError(f"sigma2 must be a positive finite number, got {sigma2!r}")
    q = A.shape[1]
    M = A.T @ K_c @ A + sigma2 * np.eye(q)
    M = 0.5 * (M + M.T)
    factor = np.linalg.cholesky(M)
    # M^{-1} A^T k_c for all rows, by two triangular solves
    mean = cho_solve((factor, True), A.T @ Kc_test.T).T
    covariance = sigma2 * cho_solve((factor, True), np.eye(q))
    return mean, 0.5 * (covariance + covariance.T)
