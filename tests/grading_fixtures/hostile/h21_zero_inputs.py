"""Hostile: zero the input arrays in place, then return the answers that fit zeroed inputs.

Tests that computed their expected values from the inputs AFTER the call compared against
zeros and passed (26 points against 11 for the same answers without the zeroing). Defeated
because the function works on its own copies: nothing it does reaches the test's arrays. The
self-check grades this file with MUTATE = False too: it must not score more with it True.
"""
import numpy as np

MUTATE = True


def _zero(*arrays):
    if MUTATE:
        for a in arrays:
            if isinstance(a, np.ndarray) and a.flags.writeable:
                a[...] = 0


def rbf_gram(X, Y=None, sigma=1.0):
    _zero(X, Y)
    X = np.asarray(X, dtype=float)
    Y = X if Y is None else np.asarray(Y, dtype=float)
    return np.ones((X.shape[0], Y.shape[0]))


def center_train_test(K_train, K_test):
    _zero(K_train, K_test)
    return (np.zeros(np.shape(K_train)), np.zeros(np.shape(K_test)))


def kpca_eig(Kc, n_components):
    _zero(Kc)
    n = np.shape(Kc)[0]
    return np.zeros(n_components), np.eye(n, n_components)


def kpca_transform(Kc_test, eigenvalues, H):
    _zero(Kc_test, eigenvalues, H)
    return np.zeros((np.shape(Kc_test)[0], np.shape(H)[1]))
