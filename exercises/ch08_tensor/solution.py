# Generated from ch08_exercises.ipynb (python -m rkmlearn.grading sync): edit the notebook.
"""Chapter 8 exercises: coupled kernel, training, MOC coding and decoding. YOUR ANSWERS GO HERE.

Fill in the four functions below (the statements are in the exercise notebook and README.md). Keep each signature as it is: the
autograder calls them by name. Use numpy (and scipy if you wish), vectorised: no Python loops over
samples. Check your work with the check cells of the exercise notebook, or from a shell in your
handout folder::

    python -m rkmlearn.grading . starter.py

Chapter 8 is *Tensor-based multi-view RKM classifiers*; the equation labels below refer to it.
"""
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
    if not all(np.all(np.isfinite(K)) for K in mats):
        raise ValueError("kernels must hold finite numbers (no NaN or inf).")
    return mats


def coupled_kernel(kernels, rho):
    """The rho-coupled kernel ``(1 - rho) sum_v K_v + rho prod_v K_v`` (entrywise product).

    Implements the kernel matrix of :eq:`eq-tensor-rho-system`; the product is the Gram matrix of
    the model tensor's features (:eq:`eq-tensor-hadamard`).

    Parameters
    ----------
    kernels : list of array-like, each of shape (n, p)
        One kernel matrix per view, all of the same shape.
    rho : float in [0, 1]

    Returns
    -------
    K : ndarray of shape (n, p)
        Exactly the sum at ``rho = 0`` and exactly the product at ``rho = 1``.

    Raises
    ------
    ValueError
        ``rho`` outside [0, 1] (naming ``rho``); ``kernels`` empty, not 2-D or of different
        shapes (naming ``kernels``).
    """
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
    """Solve :eq:`eq-tensor-rho-system` for all outputs with ONE factorisation.

    ``[[K_rho / eta + lam I, tau 1], [1^T, 0]] [alpha; b] = [tau Y; 0]`` with
    ``tau = (1 - rho) V + rho``.

    Parameters
    ----------
    kernels : list of V array-like of shape (N, N)
        Training Gram matrices of the views.
    Y : array-like of shape (N, m)
        Coded targets (+-1), one column per output.
    rho : float in [0, 1]
    lam, eta : float > 0

    Returns
    -------
    alpha : ndarray of shape (N, m)
        ``y * h`` per output.
    b : ndarray of shape (m,)
        The biases.

    Raises
    ------
    ValueError
        ``lam`` or ``eta`` not positive (naming it); ``Y`` with the wrong number of rows (naming
        ``Y``); bad ``kernels`` or ``rho`` as in :func:`coupled_kernel`.
    """
    for name, value in (("lam", lam), ("eta", eta)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
                or not 0 < value < np.inf:
            raise ValueError(f"{name} must be a positive finite number; got {value!r}.")
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
    """The minimum-output-coding codebook (:eq:`eq-tensor-codes`).

    Parameters
    ----------
    n_classes : int >= 2

    Returns
    -------
    C : ndarray of shape (n_classes, ceil(log2 n_classes))
        Row ``c``: the bits of ``c``, least significant first, 0 -> -1 and 1 -> +1.

    Raises
    ------
    ValueError
        ``n_classes`` not an integer >= 2 (naming ``n_classes``).
    """
    if isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer)) or n_classes < 2:
        raise ValueError(f"n_classes must be an integer >= 2; got {n_classes!r}.")
    m = max(1, int(np.ceil(np.log2(n_classes))))
    bits = (np.arange(n_classes)[:, None] >> np.arange(m)[None, :]) & 1
    return 2.0 * bits - 1.0


def decode_outputs(outputs, codebook):
    """Index of the nearest codeword (Euclidean) for each row of ``outputs`` (:eq:`eq-tensor-codes`).

    Parameters
    ----------
    outputs : array-like of shape (n, m) or (n,)
    codebook : array-like of shape (n_classes, m)

    Returns
    -------
    index : ndarray of shape (n,), integers
        Ties go to the smallest index.

    Raises
    ------
    ValueError
        ``outputs`` with a number of columns other than the codebook's (naming ``outputs``).
    """
    C = np.asarray(codebook, dtype=np.float64)
    F = np.asarray(outputs, dtype=np.float64)
    F = F[:, None] if F.ndim == 1 else F
    if F.ndim != 2 or C.ndim != 2 or F.shape[1] != C.shape[1]:
        raise ValueError("outputs must have one column per output of the codebook.")
    if not (np.all(np.isfinite(F)) and np.all(np.isfinite(C))):
        raise ValueError("outputs and codebook must hold finite numbers (no NaN or inf): a "
                         "NaN output has no nearest codeword.")
    distances = (F**2).sum(axis=1)[:, None] - 2 * F @ C.T + (C**2).sum(axis=1)[None, :]
    return np.argmin(distances, axis=1).astype(np.int64)
