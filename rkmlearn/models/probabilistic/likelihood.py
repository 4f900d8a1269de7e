"""The maximum-likelihood noise variance and the log-density of probabilistic (kernel) PCA: pure functions.

:class:`~rkmlearn.ProbabilisticKPCA` computes ``sigma^2`` (:eq:`eq-ppca-sigma2-ml`, or a fixed value
within its bound) and :meth:`~rkmlearn.ProbabilisticKPCA.score_samples`
(:eq:`eq-ppca-log-likelihood`) with these (Chapter 6).
"""

from __future__ import annotations

import numpy as np

__all__ = ["noise_variance", "ml_noise_variance", "check_fixed_noise_variance", "log_density", "residual_energy"]


def residual_energy(F, basis):
    """``||(I - basis basis^T) F||_F^2`` = ``trace(F F^T) - sum_{p<=q} lambda_p`` without cancellation."""
    residual = F - basis @ (basis.T @ F)
    return float(np.einsum("ij,ij->", residual, residual))


def _distinct(a, b):
    """``a`` and ``b`` with the fewest significant digits (at least 6) that tell them apart."""
    for digits in range(6, 18):
        shown = f"{a:.{digits}g}", f"{b:.{digits}g}"
        if shown[0] != shown[1]:
            return shown
    return repr(a), repr(b)


def ml_noise_variance(tail, n_samples, rank, n_components, bound):
    """``sigma^2_ML = sum_{p>q} lambda_p / (N (r - q))`` (:eq:`eq-ppca-sigma2-ml`), checked.

    ``tail`` is ``sum_{p>q} lambda_p``; ``bound = lambda_q / N`` (a mean of values ``<= lambda_{q+1}
    / N`` is within it up to rounding, so it is clipped there).
    """
    q, r = n_components, rank
    if q >= r:
        fix = (f"Use n_components <= {r - 1}, or a float sigma2 (e.g. sigma2={bound / 2!r})." if r > 1 else
               f"Pass a float sigma2 (e.g. sigma2={bound / 2!r}) or data of higher rank (more samples).")
        raise ValueError(
            f"n_components={q} leaves no discarded direction: dim(H_E) = rank(K_c) = {r}, and sigma2='ml' "
            f"is the mean variance of the rank - n_components discarded directions. {fix}"
        )
    sigma2 = min(max(tail, 0.0) / (n_samples * (r - q)), bound)
    if not sigma2 > 0.0:
        raise ValueError(
            f"n_components={q}: the discarded variance is zero up to rounding, so sigma2_ML = 0; use fewer "
            "n_components or a float sigma2."
        )
    return sigma2


def noise_variance(sigma2, eigenvalues, tail, n_samples, rank):
    """The model's ``sigma^2``: ``"ml"`` (:func:`ml_noise_variance`) or a fixed value within its bound."""
    q, bound = eigenvalues.shape[0], float(eigenvalues[-1] / n_samples)
    if isinstance(sigma2, str):
        return ml_noise_variance(tail, n_samples, rank, q, bound)
    return check_fixed_noise_variance(sigma2, bound, q, n_samples)


def check_fixed_noise_variance(sigma2, bound, n_components, n_samples):
    """A fixed ``sigma2`` as a float, within the bound ``sigma2 <= lambda_q / N`` (Prop. 3/6)."""
    sigma2 = float(sigma2)
    if sigma2 > bound:  # the advice prints the exact bound (repr): passing it works
        shown, limit = _distinct(sigma2, bound)
        raise ValueError(
            f"sigma2={shown} exceeds the bound sigma2 <= lambda_q / N = {limit} (Prop. 3/6, q = "
            f"n_components = {n_components}, N = {n_samples}): W_ML needs lambda_q / N - sigma2 >= 0. Pass "
            f"sigma2 <= {bound!r}, sigma2='ml', or fewer n_components."
        )
    return sigma2


def log_density(y, perp, eigenvalues, n_samples, sigma2, rank):
    """``log p(phi)`` in ``H_E`` (:eq:`eq-ppca-log-likelihood`) from the coordinates of ``phi_c``.

    ``y`` (m, q): ``v_p^T phi_c``; ``perp`` (m, k): coordinates of the rest of ``phi_c`` in ``H_E``
    (orthonormal basis); ``rank = dim(H_E)``.
    """
    q, N, r = eigenvalues.shape[0], n_samples, rank
    log_det = np.sum(np.log(eigenvalues / N)) + (r - q) * np.log(sigma2)
    mahalanobis = (y**2 @ (N / eigenvalues)) + np.einsum("ij,ij->i", perp, perp) / sigma2
    return -0.5 * (r * np.log(2.0 * np.pi) + log_det + mahalanobis)
