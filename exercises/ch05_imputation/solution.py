# Generated from ch05_exercises.ipynb (python -m rkmlearn.grading sync): edit the notebook.
"""Chapter 5 exercises: imputing a missing view, in primal and in dual. YOUR ANSWERS GO HERE.

Fill in the two functions below (the statements are in the exercise notebook and README.md). Keep each signature as it is: the
autograder calls them by name. Use numpy (and scipy if you wish), vectorised. Check your work with the check cells of the exercise notebook, or from a shell in your
handout folder::

    python -m rkmlearn.grading . starter.py

Chapter 5 is *Forecasting and imputation*; the equation labels refer to it.
"""
from __future__ import annotations

from numbers import Integral

import numpy as np
import scipy.linalg


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


def _check_target(target, n_views):
    if isinstance(target, bool) or not isinstance(target, Integral) or not 0 <= target < n_views:
        raise ValueError(f"target={target!r} is not a view index; use an int in [0, {n_views - 1}].")
    return int(target)


def _check_gamma(Gamma, s):
    Gamma = _as_matrix(Gamma, "Gamma")
    if Gamma.shape != (s, s):
        raise ValueError(f"Gamma must be ({s}, {s}) (s = number of components), got shape {Gamma.shape}.")
    return 0.5 * (Gamma + Gamma.T)


def _check_list(values, name, n_views=None):
    if not isinstance(values, (list, tuple)):
        raise ValueError(f"{name} must be a list with one entry per view, got {type(values).__name__}.")
    if n_views is not None and len(values) != n_views:
        raise ValueError(f"{name} has {len(values)} entries but there are {n_views} views; give one per view.")
    return list(values)


def _sym_solve(M, B):
    """Solve ``M Z = B`` for symmetric ``M``: Cholesky when positive definite, LU otherwise."""
    try:
        return scipy.linalg.cho_solve(scipy.linalg.cho_factor(M, lower=True), B)
    except np.linalg.LinAlgError:
        return np.linalg.solve(M, B)


def impute_primal(U_views, Gamma, phi_other_c, target):
    """Centred feature vector of a missing view from the other views, :eq:`eq-mv-impute-primal`.

    ``h = (Gamma - U_v^T U_v)^{-1} sum_{w != v} U_w^T phi_w(x_w)`` and ``phi_v = U_v h``.

    Parameters
    ----------
    U_views : list of V arrays of shape (d_w, s)
    Gamma : array-like of shape (s, s)
    phi_other_c : list of V arrays of shape (m, d_w) (entry ``target`` ignored, may be None)
        Centred features of the query points, per view.
    target : int

    Returns
    -------
    phi_target : ndarray of shape (m, d_target)
        Imputed centred features of the target view.
    h : ndarray of shape (m, s)
    """
    U_views = _check_list(U_views, "U_views")
    V = len(U_views)
    if V < 2:
        raise ValueError("U_views must hold at least 2 views (one to impute from).")
    target = _check_target(target, V)
    U_views = [_as_matrix(U, f"U_views[{w}]") for w, U in enumerate(U_views)]
    s = U_views[0].shape[1]
    for w, U in enumerate(U_views):
        if U.shape[1] != s:
            raise ValueError(f"U_views[{w}] has {U.shape[1]} columns but U_views[0] has {s}; all need s columns.")
    Gamma = _check_gamma(Gamma, s)
    phi_other_c = _check_list(phi_other_c, "phi_other_c", V)
    scores, m = 0.0, None
    for w, phi in enumerate(phi_other_c):
        if w == target:
            continue
        phi = _as_matrix(phi, f"phi_other_c[{w}]")
        if phi.shape[1] != U_views[w].shape[0] or (m is not None and phi.shape[0] != m):
            raise ValueError(f"phi_other_c[{w}] must be (m, {U_views[w].shape[0]}) with the same m for every view, "
                             f"got {phi.shape}.")
        m = phi.shape[0]
        scores = scores + phi @ U_views[w]
    U_v = U_views[target]
    h = _sym_solve(Gamma - U_v.T @ U_v, np.asarray(scores).T).T
    return h @ U_v.T, h


def impute_dual(K_views_c, H, Gamma, k_other_c, target):
    """Centred kernel vector of a missing view from the other views, :eq:`eq-mv-impute-dual`.

    ``h = (Gamma - H^T K_v H)^{-1} H^T sum_{w != v} k_w(x_w)`` and ``k_v = K_v H h`` for the target
    view ``v`` (the sum runs over the OTHER views; the paper prints ``k_v`` inside it, a typo).

    Parameters
    ----------
    K_views_c : list of V arrays of shape (n, n)
        Centred training Gram matrices ``M_c K_w M_c``, one per view.
    H : array-like of shape (n, s)
        Hidden features of the training points.
    Gamma : array-like of shape (s, s)
    k_other_c : list of V arrays of shape (m, n) (entry ``target`` ignored, may be None)
        Centred kernel rows of the m query points against the training points, per view.
    target : int
        The missing view.

    Returns
    -------
    k_target : ndarray of shape (m, n)
        Imputed centred kernel rows of the target view.
    h : ndarray of shape (m, s)
        Hidden features of the query points.
    """
    K_views_c = _check_list(K_views_c, "K_views_c")
    V = len(K_views_c)
    if V < 2:
        raise ValueError("K_views_c must hold at least 2 views (one to impute from).")
    target = _check_target(target, V)
    H = _as_matrix(H, "H")
    n, s = H.shape
    Gamma = _check_gamma(Gamma, s)
    K_views_c = [_as_matrix(K, f"K_views_c[{w}]") for w, K in enumerate(K_views_c)]
    for w, K in enumerate(K_views_c):
        if K.shape != (n, n):
            raise ValueError(f"K_views_c[{w}] must be ({n}, {n}) to match H's {n} rows, got {K.shape}.")
    k_other_c = _check_list(k_other_c, "k_other_c", V)
    rows = [_as_matrix(k, f"k_other_c[{w}]") for w, k in enumerate(k_other_c) if w != target]
    m = rows[0].shape[0]
    for w, k in ((w, k) for w, k in enumerate(k_other_c) if w != target):
        if np.shape(k) != (m, n):
            raise ValueError(f"k_other_c[{w}] must be ({m}, {n}) (query points x training points), got {np.shape(k)}.")
    KH = K_views_c[target] @ H
    h = _sym_solve(Gamma - H.T @ KH, H.T @ np.sum(rows, axis=0).T).T
    return h @ KH.T, h
