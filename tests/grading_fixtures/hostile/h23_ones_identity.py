"""Hostile: return ones and identity columns: symmetric, orthonormal, sign-convention-abiding.

Tests that checked only such a property passed (3 points against 0 honest). Defeated by pairing
each of them with a value check.
"""
import numpy as np


def rbf_gram(X, Y=None, sigma=1.0):
    X = np.asarray(X, dtype=float)
    Y = X if Y is None else np.asarray(Y, dtype=float)
    return np.ones((X.shape[0], Y.shape[0]))


def center_train_test(K_train, K_test):
    return np.eye(np.shape(K_train)[0]), np.zeros(np.shape(K_test))


def kpca_eig(Kc, n_components):
    n = np.shape(Kc)[0]
    return np.arange(n_components, 0, -1).astype(float), np.eye(n, n_components)


def kpca_transform(Kc_test, eigenvalues, H):
    return np.ones((np.shape(Kc_test)[0], np.shape(H)[1]))
