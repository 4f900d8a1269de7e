"""A rule broken: the right answers, after reading a file outside the scratch folder.

Reading ``/etc/hostname`` is harmless, but the exercise allows file access only in the scratch
folder (the working directory); every test must fail with a clear message.
"""
import numpy as np
from scipy.linalg import eigh


def _peek():
    with open("/etc/hostname") as fh:
        return fh.read()


def rbf_gram(X, Y=None, sigma=1.0):
    _peek()
    X = np.asarray(X, dtype=float)
    Y = X if Y is None else np.asarray(Y, dtype=float)
    if X.ndim != 2 or Y.ndim != 2 or Y.shape[1] != X.shape[1]:
        raise ValueError("X and Y must be 2-D with the same number of columns")
    if not np.isfinite(sigma) or sigma <= 0:
        raise ValueError("sigma must be a positive finite number")
    sq = np.maximum(np.sum(X**2, 1)[:, None] + np.sum(Y**2, 1)[None, :] - 2 * X @ Y.T, 0)
    return np.exp(-sq / (2 * sigma**2))


def center_train_test(K_train, K_test):
    _peek()
    rows, grand = np.mean(K_train, axis=1), np.mean(K_train)
    return (K_train - rows[:, None] - rows[None, :] + grand,
            K_test - np.mean(K_test, axis=1)[:, None] - rows[None, :] + grand)


def kpca_eig(Kc, n_components):
    _peek()
    n = len(Kc)
    values, H = eigh(Kc, subset_by_index=[n - n_components, n - 1])
    H = H[:, ::-1]
    return values[::-1].copy(), H * np.sign(H[np.argmax(np.abs(H), 0), range(n_components)])


def kpca_transform(Kc_test, eigenvalues, H):
    _peek()
    return np.asarray(Kc_test) @ H / eigenvalues


# The same attempt against the mini exercise of the self-check (tests/test_grading.py).
def add(a, b):
    _peek()
    return a + b


def mul(a, b):
    _peek()
    return a * b
