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


def _check_views(Xs):
    """``Xs`` as a list of finite 2-D float64 arrays with the same number of rows."""
    if isinstance(Xs, np.ndarray) or not isinstance(Xs, (list, tuple)) or len(Xs) == 0:
        raise ValueError("Xs must be a non-empty list of 2-D arrays, one (n, d_v) array per view")
    views = []
    for v, X in enumerate(Xs):
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"Xs[{v}] must be a 2-D array (n samples x d_v features), got "
                             f"{X.ndim} dimension(s); reshape a 1-D view with .reshape(-1, 1)")
        if not np.all(np.isfinite(X)):
            raise ValueError(f"Xs[{v}] contains NaN or infinity; remove or impute those entries")
        if views and X.shape[0] != views[0].shape[0]:
            raise ValueError(f"Xs[{v}] has {X.shape[0]} rows but Xs[0] has {views[0].shape[0]}: "
                             "every view must hold the same samples")
        views.append(X)
    if views[0].shape[0] < 2:
        raise ValueError("Xs must hold at least 2 samples (centring needs them)")
    return views


def _check_n_components(n_components, n_max, what):
    if (isinstance(n_components, bool) or not isinstance(n_components, numbers.Integral)
            or not 1 <= n_components <= n_max):
        raise ValueError(f"n_components must be an integer in [1, {n_max}] ({what}), "
                         f"got {n_components!r}")
    return int(n_components)


def _top_eigenpairs(A, s):
    """Top-s eigenpairs of a symmetric matrix, descending, without a full decomposition."""
    m = A.shape[0]
    values, vectors = eigh(A, subset_by_index=[m - s, m - 1])
    values, vectors = values[::-1], vectors[:, ::-1]
    if values[-1] <= m * np.finfo(np.float64).eps * max(values[0], 0.0):
        raise ValueError(f"n_components={s} exceeds the numerical rank of the problem; use fewer "
                         "components")
    return values, vectors


def _flip_signs(H):
    """Signs making each column's entry of largest absolute value positive."""
    largest = H[np.argmax(np.abs(H), axis=0), np.arange(H.shape[1])]
    return np.where(largest < 0, -1.0, 1.0)


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
    views = _check_views(Xs)
    n = views[0].shape[0]
    s = _check_n_components(n_components, n - 1, "at most n - 1: centring removes one dimension")
    # M_c X X^T M_c = (X - mean) (X - mean)^T: centre the data instead of forming M_c
    K = sum((X - X.mean(axis=0)) @ (X - X.mean(axis=0)).T for X in views)
    K = 0.5 * (K + K.T)
    values, H = _top_eigenpairs(K, s)
    return H * _flip_signs(H), values


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
    views = _check_views(Xs)
    n = views[0].shape[0]
    Phi = np.hstack([X - X.mean(axis=0) for X in views])
    d_f = Phi.shape[1]
    s = _check_n_components(n_components, min(n - 1, d_f), "at most min(n - 1, d_f)")
    C = Phi.T @ Phi
    C = 0.5 * (C + C.T)
    values, U_tilde = _top_eigenpairs(C, s)
    U = U_tilde * np.sqrt(values)
    H = (Phi @ U) / values  # h_i = Lambda^{-1} U^T phi_i, Lambda diagonal
    signs = _flip_signs(H)
    H, U = H * signs, U * signs
    splits = np.cumsum([X.shape[1] for X in views])[:-1]
    return np.split(U, splits, axis=0), values, H
