"""Generation from a fitted probabilistic (kernel) PCA: pure functions of its parameters.

:class:`~rkmlearn.ProbabilisticKPCA.sample` validates and calls these; a widget that redraws
samples for many ``(q, sigma2)`` calls them too, so the picture cannot drift from the model.
The construction (two independent parts instead of the full ``B`` of :eq:`eq-ppca-kernel-sampling`)
is derived in Chapter 7.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from ..._validation import check_array, check_random_state, check_scalar_range

__all__ = ["kernel_noise", "kernel_samples", "feature_samples", "sample_coordinates", "check_latent", "resolve_space"]

SPACES = ("auto", "kernel", "feature", "input")


def resolve_space(space, setting, explicit):
    """The output space of a decoding or a sample: ``"auto"`` is "feature" in the primal, "kernel" in the dual."""
    if not isinstance(space, str) or space not in SPACES:
        raise ValueError(f"space={space!r} is not supported; use one of {list(SPACES)}.")
    if space == "auto":
        return "feature" if setting == "primal" else "kernel"
    if space == "feature" and not explicit:
        raise ValueError(
            "space='feature' needs explicit features, but the model was fitted with an implicit kernel "
            "(feature_map=None); use space='kernel' or space='input'."
        )
    return space


def check_latent(H, n_components, name):
    """Latent vectors ``H`` as an (m, n_components) array (one 1-D vector: m = 1)."""
    H = check_array(H, name, ensure_2d=False)
    H = H[None, :] if H.ndim == 1 else H
    if H.shape[1] != n_components:
        raise ValueError(
            f"{name} must have n_components = {n_components} columns (one per latent coordinate); got shape "
            f"{H.shape}. Pad unused coordinates with zeros."
        )
    return H


def sample_coordinates(n_components, rank, n_samples=None, latent=None, noise=None, random_state=None):
    """The coordinates ``u = (u_q, u_rest)`` of generated samples: drawn ``N(0, I)``, or given.

    Without ``latent``: ``n_samples`` (default 1) draws of both from ``random_state``. With it:
    ``u_q = latent`` and ``u_rest = noise`` (None: no noise part). Returns ``(U_q, U_rest)``,
    shapes (m, n_components) and (m, rank) or None.
    """
    if latent is None:
        n = 1 if n_samples is None else check_scalar_range(n_samples, "n_samples", low=1, low_inclusive=True,
                                                            integer=True)
        rng = random_state if isinstance(random_state, np.random.Generator) else check_random_state(random_state)
        U_q, U_rest = rng.standard_normal((n, n_components)), rng.standard_normal((n, rank))
    else:
        U_q, U_rest = check_latent(latent, n_components, "latent"), None
        if n_samples is not None and n_samples != U_q.shape[0]:
            raise ValueError(
                f"n_samples={n_samples!r} does not match latent, which has {U_q.shape[0]} rows; leave "
                "n_samples=None when latent is given."
            )
        if noise is not None:
            U_rest = check_array(noise, "noise")
            if U_rest.shape != (U_q.shape[0], rank):
                raise ValueError(
                    f"noise must have shape {(U_q.shape[0], rank)} (one row per latent row, rank_ "
                    f"columns); got {U_rest.shape}."
                )
    if latent is None and noise is not None:
        raise ValueError("noise fixes the noise coordinates of given latent rows; pass latent as well.")
    return U_q, U_rest


def kernel_noise(U_rest, F, pivots, E, *, with_beta=True):
    """Noise part ``P_perp F u'`` of kernel samples, and ``beta`` with ``K_c beta = P_perp F u'``.

    ``F F^T = K_c`` is a pivoted Cholesky factor (``F = P [L11; L21]``) and ``P_perp = I - E E^T``.
    ``beta = P_perp P [L11^{-T} u'; 0]`` (then ``F^T P [L11^{-T} u'; 0] = u'``, and ``P_perp``
    commutes with ``K_c``) gives ``phi_c = Phi_c^T beta``, hence ``mu^T phi_c``.

    Parameters
    ----------
    U_rest : ndarray of shape (m, rank)
        Standard-normal draws ``u'``.
    F : ndarray of shape (n, rank)
    pivots : ndarray of shape (rank,)
    E : ndarray of shape (n, q)
        Orthonormal leading eigenvectors of ``K_c``.
    with_beta : bool, default=True
        Compute ``beta`` (only pre-images need it: one triangular solve).

    Returns
    -------
    noise : ndarray of shape (m, n)
    beta : ndarray of shape (m, n) or None
    """
    noise = U_rest @ F.T
    noise -= (noise @ E) @ E.T
    if not with_beta:
        return noise, None
    beta = np.zeros_like(noise)
    beta[:, pivots] = scipy.linalg.solve_triangular(F[pivots], U_rest.T, lower=True, trans="T").T
    beta -= (beta @ E) @ E.T
    return noise, beta


def kernel_samples(U_q, E, eigenvalues, sigma2=0.0, noise=None):
    """Centred kernel samples ``k_c = E_q diag(lambda_p / sqrt(N)) u_q + sigma P_perp F u'``.

    Implements :eq:`eq-ppca-kernel-sampling`; its covariance is ``K_c A A^T K_c + sigma^2 K_c``.

    Parameters
    ----------
    U_q : ndarray of shape (m, q)
        Latent draws (or fixed latent coordinates).
    E : ndarray of shape (N, q)
    eigenvalues : ndarray of shape (q,)
    sigma2 : float, default=0.0
    noise : tuple (noise, beta) from :func:`kernel_noise`, optional
        Omitted: the noise coordinates are 0 (the paper's Figure 4c).

    Returns
    -------
    k_c : ndarray of shape (m, N)
    alpha : ndarray of shape (m, N)
        ``phi_c = Phi_c^T alpha`` (for the pre-image's ``mu^T phi_c``).
    """
    N = E.shape[0]
    k_c = (U_q * (eigenvalues / np.sqrt(N))) @ E.T
    alpha = (U_q / np.sqrt(N)) @ E.T
    if noise is not None:
        k_c += np.sqrt(sigma2) * noise[0]
        if noise[1] is not None:
            alpha += np.sqrt(sigma2) * noise[1]
    return k_c, alpha


def feature_samples(U_q, V, eigenvalues, n_samples_fit, sigma2=0.0, U_rest=None, basis=None):
    """Centred feature samples ``phi_c = V_q diag((lambda_p / N)^{1/2}) u_q + sigma P_perp Q u'``.

    Prop. 2 of the probabilistic PCA paper: ``phi ~ N(mu, W W^T + sigma^2 I_{H_E})``. ``Q`` is an
    orthonormal basis of ``H_E`` (None: all of feature space), ``P_perp = I - V_q V_q^T``.

    Parameters
    ----------
    U_q : ndarray of shape (m, q)
    V : ndarray of shape (d, q)
        Orthonormal principal directions.
    eigenvalues : ndarray of shape (q,)
    n_samples_fit : int
        ``N``.
    sigma2 : float, default=0.0
    U_rest : ndarray of shape (m, rank), optional
        Noise draws; None: no noise.
    basis : ndarray of shape (d, rank) or None
        ``Q``.

    Returns
    -------
    phi_c : ndarray of shape (m, d)
    """
    phi_c = (U_q * np.sqrt(eigenvalues / n_samples_fit)) @ V.T
    if U_rest is not None:
        noise = U_rest.copy() if basis is None else U_rest @ basis.T  # N(0, I_{H_E})
        noise -= (noise @ V) @ V.T
        phi_c += np.sqrt(sigma2) * noise
    return phi_c
