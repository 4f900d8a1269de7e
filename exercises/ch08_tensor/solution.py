"""Chapter 8 exercises: reference solution (NOT handed out)."""
from __future__ import annotations

import numpy as np
import scipy.linalg


def _rho(rho):
    if isinstance(rho, bool) or not isinstance(rho, (int, float, np.integer, np.floating)) or not 0 <= rho <= 1:
        raise ValueError(f"rho must be a number in [0, 1]; got {rho!r}.")
    return float(rho)


def _kernels(kernels):
    if not isinstance(kernels, (list, tuple)) or len(kernels) == 0:
        raise ValueError("kernels must be a non-empty list of kernel matrices, one per view.")
    mats = [np.asarray(K, dtype=np.float64) for K in kernels]
    if any(K.ndim != 2 or K.shape != mats[0].shape for K in mats):
        raise ValueError("kernels must all be 2-D arrays of the same shape.")
    return mats


def coupled_kernel(kernels, rho):
    """``(1 - rho) sum_v K_v + rho prod_v K_v`` (:eq:`eq-tensor-rho-system`)."""
    rho = _rho(rho)
    mats = _kernels(kernels)
    total, product = mats[0].copy(), mats[0].copy()
    for K in mats[1:]:
        total += K
        product *= K
    if rho == 0.0:
        return total
    if rho == 1.0:
        return product
    return (1.0 - rho) * total + rho * product


def train_rho_tmv(kernels, Y, rho, lam, eta=1.0):
    """Solve the bordered system of :eq:`eq-tensor-rho-system` for all columns of ``Y``."""
    for name, value in (("lam", lam), ("eta", eta)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not value > 0:
            raise ValueError(f"{name} must be a positive number; got {value!r}.")
    K = coupled_kernel(kernels, rho)
    Y = np.asarray(Y, dtype=np.float64)
    Y = Y[:, None] if Y.ndim == 1 else Y
    n = K.shape[0]
    if Y.ndim != 2 or Y.shape[0] != n or K.shape[1] != n:
        raise ValueError(f"Y must have {n} rows (one per training sample) and the kernels must be square.")
    tau = (1.0 - float(rho)) * len(kernels) + float(rho)
    M = K / eta + lam * np.eye(n)
    factor = scipy.linalg.cho_factor(M)
    MiY = scipy.linalg.cho_solve(factor, tau * Y)
    Mi1 = scipy.linalg.cho_solve(factor, np.ones(n))
    b = MiY.sum(axis=0) / (tau * Mi1.sum())       # 1^T alpha = 0 with alpha = M^-1 (tau Y - tau 1 b)
    alpha = MiY - tau * np.outer(Mi1, b)
    return alpha, b


def moc_codebook(n_classes):
    """Minimum output coding, ``ceil(log2 n_classes)`` outputs (:eq:`eq-tensor-codes`)."""
    if isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer)) or n_classes < 2:
        raise ValueError(f"n_classes must be an integer >= 2; got {n_classes!r}.")
    m = max(1, int(np.ceil(np.log2(n_classes))))
    bits = (np.arange(n_classes)[:, None] >> np.arange(m)[None, :]) & 1
    return 2.0 * bits - 1.0


def decode_outputs(outputs, codebook):
    """Index of the nearest codeword per row of ``outputs`` (:eq:`eq-tensor-codes`)."""
    C = np.asarray(codebook, dtype=np.float64)
    F = np.asarray(outputs, dtype=np.float64)
    F = F[:, None] if F.ndim == 1 else F
    if F.ndim != 2 or C.ndim != 2 or F.shape[1] != C.shape[1]:
        raise ValueError("outputs must have one column per output of the codebook.")
    distances = (F**2).sum(axis=1)[:, None] - 2 * F @ C.T + (C**2).sum(axis=1)[None, :]
    return np.argmin(distances, axis=1).astype(np.int64)
