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


# YOUR CODE HERE (helpers you may want)


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
    raise NotImplementedError("coupled_kernel: write your implementation here")


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
    raise NotImplementedError("train_rho_tmv: write your implementation here")


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
    raise NotImplementedError("moc_codebook: write your implementation here")


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
    raise NotImplementedError("decode_outputs: write your implementation here")
