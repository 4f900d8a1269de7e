r"""The pieces of the recurrent RKM (Part V, Chapter 10), as pure functions.

* :func:`lag_weights` -- the lag weights ``a_l`` of the temporal covariance term of
  :eq:`eq-rrkm-objective`: the Gaussian ``exp(-l^2 / (2 sigma_t^2))`` or the indicator
  ``1_{1..p}(l)``, for ``l = 0, ..., p``;
* :func:`lag_matrix` -- the symmetric banded Toeplitz matrix ``A`` of :eq:`eq-rrkm-eig`,
  ``A_{t,t'} = a_{|t - t'|}`` for ``|t - t'| <= p``;
* :func:`is_psd` -- whether a symmetric matrix (``K + A``) is positive semi-definite, by a
  Cholesky factorisation (no eigendecomposition);
* :func:`latent_step` -- one step of the latent recursion :eq:`eq-rrkm-recursion`;
* :func:`recursion_roots` -- the roots of its characteristic polynomials: the recursion's growth
  per step;
* :func:`krr_fit` / :func:`krr_predict` -- the kernel ridge regression pre-image from latent to
  input space (:eq:`eq-rrkm-krr`).

Translation-invariant weights only (``a_{t,l} = a_l``), as both families of the paper are.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse
from scipy.linalg import LinAlgError

from ..._validation import array, check_array, check_option, check_scalar_range, validate
from ..._symmetric import rank_tolerance
from ...solvers.linear import SymmetricSolver

__all__ = ["LAG_FAMILIES", "lag_weights", "lag_matrix", "is_psd", "latent_step", "recursion_roots", "krr_fit",
           "krr_predict", "banded_lag_matrix", "standardise"]

#: The two families of lag weights of the paper (section 2.1).
LAG_FAMILIES = ("gaussian", "indicator")


def lag_weights(family, p, sigma_t=1.0):
    r"""Lag weights ``a_0, ..., a_p`` of :eq:`eq-rrkm-objective` (Chapter 10).

    Parameters
    ----------
    family : {"gaussian", "indicator"}
        ``"gaussian"``: ``a_l = exp(-l^2 / (2 sigma_t^2))`` (so ``a_0 = 1``); ``"indicator"``:
        ``a_l = 1`` for ``1 <= l <= p``, ``a_0 = 0``.
    p : int
        The lag, ``p >= 1``: weights beyond ``p`` are 0.
    sigma_t : float, default=1.0
        Time bandwidth, ``> 0`` (Gaussian only).

    Returns
    -------
    a : ndarray of shape (p + 1,)

    Examples
    --------
    >>> lag_weights("indicator", 3)
    array([0., 1., 1., 1.])
    >>> bool(np.allclose(lag_weights("gaussian", 2, sigma_t=1.0), np.exp(-np.arange(3) ** 2 / 2)))
    True
    """
    family = check_option(family, "lag_weights", LAG_FAMILIES)
    p = check_scalar_range(p, "p", low=1, low_inclusive=True, integer=True)
    if family == "indicator":
        a = np.ones(p + 1)
        a[0] = 0.0
        return a
    sigma_t = check_scalar_range(sigma_t, "sigma_t", low=0.0)
    lags = np.arange(p + 1, dtype=np.float64)
    return np.exp(-(lags / sigma_t) ** 2 / 2.0)


def lag_matrix(a, n):
    r"""The ``n x n`` matrix ``A`` of :eq:`eq-rrkm-eig`: ``A_{t,t'} = a_{|t - t'|}``, 0 beyond lag ``p``.

    Parameters
    ----------
    a : array-like of shape (p + 1,)
        Lag weights ``a_0, ..., a_p`` (:func:`lag_weights`).
    n : int
        Number of time steps ``T``.

    Returns
    -------
    A : ndarray of shape (n, n)
        Symmetric, banded (bandwidth ``p``), Toeplitz.

    Examples
    --------
    >>> lag_matrix([0.0, 1.0], 3)
    array([[0., 1., 0.],
           [1., 0., 1.],
           [0., 1., 0.]])
    """
    a = check_array(a, "a", ensure_2d=False)
    if a.ndim != 1 or a.shape[0] < 1:
        raise ValueError(f"a must be a 1-D array of lag weights a_0, ..., a_p; got shape {a.shape}.")
    n = check_scalar_range(n, "n", low=1, low_inclusive=True, integer=True)
    column = np.zeros(n)
    m = min(n, a.shape[0])
    column[:m] = a[:m]
    return scipy.linalg.toeplitz(column)


def is_psd(M, *, rtol=None):
    r"""Whether the symmetric matrix ``M`` is positive semi-definite, up to rounding.

    Tries a Cholesky factorisation of ``M + tau I`` with ``tau = rtol * max|M|`` (default
    ``rtol = rank_tolerance(n)``, ``10 n eps``): it succeeds exactly when the smallest eigenvalue
    of ``M`` is above ``-tau`` (up to the factorisation's own rounding), so eigenvalues that are
    zero up to rounding count as 0. ``O(n^3 / 3)``, no eigendecomposition.

    Parameters
    ----------
    M : array-like of shape (n, n)
    rtol : float, optional

    Returns
    -------
    bool

    Examples
    --------
    >>> is_psd([[1.0, 1.0], [1.0, 1.0]]), is_psd([[0.0, 1.0], [1.0, 0.0]])
    (True, False)
    """
    M = check_array(M, "M")
    if M.shape[0] != M.shape[1]:
        raise ValueError(f"M must be a square matrix; got shape {M.shape}.")
    n = M.shape[0]
    rtol = rank_tolerance(n) if rtol is None else check_scalar_range(rtol, "rtol", low=0.0, low_inclusive=True)
    tau = rtol * max(float(np.abs(M).max()), np.finfo(np.float64).tiny)
    try:
        scipy.linalg.cholesky(0.5 * (M + M.T) + tau * np.eye(n), lower=True, check_finite=False)
    except LinAlgError:
        return False
    return True


def latent_step(window, M, a):
    r"""One step of the latent recursion :eq:`eq-rrkm-recursion` (Chapter 10).

    With ``c`` the middle time of the window, the stationarity condition :eq:`eq-rrkm-latent-dyn`
    at time ``c`` reads ``sum_{l=-p}^{p} a_{|l|} h_{c+l} = M h_c``; solved for its newest latent:

    ``a_p h_{c+p} = (M - a_0 I) h_c - sum_{l=1}^{p} a_l h_{c-l} - sum_{l=1}^{p-1} a_l h_{c+l}``.

    Parameters
    ----------
    window : ndarray of shape (2p, s)
        The latents ``h_{c-p}, ..., h_{c+p-1}``, oldest first (row ``p`` is ``h_c``).
    M : ndarray of shape (s, s)
        ``H^T A H`` (symmetric).
    a : ndarray of shape (p + 1,)
        Lag weights with ``a_p != 0``.

    Returns
    -------
    h_next : ndarray of shape (s,)
        ``h_{c+p}``.

    Examples
    --------
    >>> import numpy as np
    >>> # p = 1, a = (0, 1): h_{c+1} = M h_c - h_{c-1}; with M = 2 cos(w) this is a rotation
    >>> w = 0.3
    >>> h = latent_step(np.array([[1.0], [np.cos(w)]]), np.array([[2 * np.cos(w)]]), np.array([0.0, 1.0]))
    >>> bool(np.isclose(h[0], np.cos(2 * w)))
    True
    """
    p = a.shape[0] - 1
    offsets = np.abs(np.arange(-p, p))  # the window's times relative to c: -p, ..., p - 1
    centre = window[p]
    return (M @ centre - a[offsets] @ window) / a[p]


@validate(a=array(ensure_2d=False), mu=array(ensure_2d=False))
def recursion_roots(a, mu):
    r"""Roots of the characteristic polynomials of the latent recursion :eq:`eq-rrkm-recursion`.

    Along an eigenvector ``v`` of ``M`` (eigenvalue ``mu``) a solution ``h_t = z^t v`` of
    :eq:`eq-rrkm-latent-dyn` needs ``sum_{|l| <= p} a_{|l|} z^(l + p) - mu z^p = 0``, a palindromic
    polynomial of degree ``2p``: its roots pair as ``z, 1/z``, so any root off the unit circle has a
    partner outside it, and the forecast latents grow like ``max|z|^m`` (Chapter 10). The roots are
    the eigenvalues of the companion matrices, all modes at once.

    Parameters
    ----------
    a : array-like of shape (p + 1,)
        Lag weights with ``a_p != 0``.
    mu : array-like of shape (s,)
        Eigenvalues of ``M = H^T A H``.

    Returns
    -------
    roots : ndarray of shape (s, 2p), complex

    Examples
    --------
    >>> import numpy as np
    >>> # p = 1, a = (0, 1): z^2 - mu z + 1, on the unit circle exactly when |mu| <= 2
    >>> r = recursion_roots([0.0, 1.0], [1.0, 3.0])
    >>> np.round(np.abs(r).max(axis=1), 4)
    array([1.   , 2.618])
    """
    mu = np.atleast_1d(mu)
    p = a.shape[0] - 1
    if a.ndim != 1 or p < 1 or a[-1] == 0.0:
        raise ValueError(f"a must hold lag weights a_0, ..., a_p with p >= 1 and a_p != 0; got {a}.")
    # monic coefficients of z^(2p - 1), ..., z^0 (highest first), divided by a_p
    tail = np.concatenate([a[-2::-1], a[1:]]) / a[-1]
    C = np.zeros((mu.shape[0], 2 * p, 2 * p))
    C[:, 0, :] = -tail
    C[:, 0, p - 1] += mu / a[-1]  # the z^p coefficient is (a_0 - mu) / a_p
    C[:, 1:, :-1] = np.eye(2 * p - 1)
    return np.linalg.eigvals(C)


def krr_fit(Z, Y, kernel, alpha):
    r"""Kernel ridge regression from inputs ``Z`` to targets ``Y``: dual weights of :eq:`eq-rrkm-krr`.

    Solves ``(K_Z + alpha I) B = Y`` (Cholesky, through
    :class:`~rkmlearn.solvers.linear.SymmetricSolver`), no intercept (scikit-learn's
    ``KernelRidge``).

    Parameters
    ----------
    Z : ndarray of shape (n, s)
    Y : ndarray of shape (n, d)
    kernel : Kernel
    alpha : float
        Ridge, ``> 0``.

    Returns
    -------
    B : ndarray of shape (n, d)
    """
    alpha = check_scalar_range(alpha, "preimage_alpha", low=0.0)
    K = kernel(Z)
    K[np.diag_indices_from(K)] += alpha
    solver = SymmetricSolver(K, "K_h + preimage_alpha I",
                             advice="Increase preimage_alpha (the ridge of the pre-image regression).")
    return solver.solve(Y)


def krr_predict(Z_new, Z, B, kernel):
    """Predictions ``k(Z_new, Z) B`` of :func:`krr_fit`'s model, shape (m, d)."""
    return kernel(Z_new, Z) @ B


def banded_lag_matrix(a, T):
    """``lag_matrix(a, T)`` as a sparse DIA array: the ``2p + 1`` diagonals ``a_{|l|}``, ``|l| <= p``."""
    lags = range(-min(len(a) - 1, T - 1), min(len(a) - 1, T - 1) + 1)
    return scipy.sparse.dia_array(scipy.sparse.diags([np.full(T - abs(l), a[abs(l)]) for l in lags], list(lags),
                                                     shape=(T, T)))


def standardise(X):
    """Mean, standard deviation and standardised values. Columns whose largest magnitude is outside
    [1e-150, 1e150] are divided by it first, so that the squares neither overflow (values near 1e300)
    nor underflow (values near 1e-300); other columns are used as given."""
    peak = np.abs(X).max(axis=0)
    peak[(peak >= 1e-150) & (peak <= 1e150) | (peak == 0.0)] = 1.0
    Xn = X / peak
    mean, std = Xn.mean(axis=0), Xn.std(axis=0)
    if np.any(std <= 0.0):
        raise ValueError("series is constant (standard deviation 0); nothing to forecast.")
    return peak * mean, peak * std, (Xn - mean) / std
