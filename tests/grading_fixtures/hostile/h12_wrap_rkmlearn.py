"""Hostile (a rule broken): wrap the course library instead of writing the code.

The exercise allows numpy and scipy only. Defeated by the worker's import rule (an audit hook
installed before the submission runs): ``import rkmlearn`` raises ImportError naming the rule.
"""
import numpy as np
from scipy.linalg import eigh

from rkmlearn.kernels import RBF, GramCenterer


def rbf_gram(X, Y=None, sigma=1.0):
    return RBF(sigma=sigma)(X, Y)


def center_train_test(K_train, K_test):
    centerer = GramCenterer()
    return centerer.fit_transform(K_train), centerer.transform(K_test)


def kpca_eig(Kc, n_components):
    Kc = np.asarray(Kc, dtype=float)
    n = Kc.shape[0]
    if Kc.ndim != 2 or Kc.shape[1] != n or np.abs(Kc - Kc.T).max() > 1e-10:
        raise ValueError("Kc must be square and symmetric")
    if isinstance(n_components, bool) or not isinstance(n_components, int) \
            or not 1 <= n_components <= n - 1:
        raise ValueError("n_components must be an integer in [1, n - 1]")
    values, H = eigh(Kc, subset_by_index=[n - n_components, n - 1])
    values, H = values[::-1].copy(), H[:, ::-1]
    H = H * np.sign(H[np.argmax(np.abs(H), axis=0), np.arange(n_components)])
    return values, H


def kpca_transform(Kc_test, eigenvalues, H):
    Kc_test, eigenvalues, H = (np.asarray(a, dtype=float) for a in (Kc_test, eigenvalues, H))
    if eigenvalues.shape != (H.shape[1],) or np.any(eigenvalues <= 0):
        raise ValueError("eigenvalues must be positive, one per column of H")
    if Kc_test.shape[1] != H.shape[0]:
        raise ValueError("Kc_test must have one column per row of H")
    return Kc_test @ H / eigenvalues


# The same attempt against the mini exercise of the self-check (tests/test_grading.py).
def add(a, b):
    return a + b


def mul(a, b):
    return a * b
