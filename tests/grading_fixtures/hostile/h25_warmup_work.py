"""Hostile: do the slow work in the warm-up call, answer the timed call from a cache.

The speed test times the call on 2000 points after a warm-up on 50 of them; this submission
rebuilds the 2000 points from the public seed during the warm-up, computes their Gram matrix
with a slow loop there, and returns it instantly afterwards (36 against 35 honest). Defeated
because the CPU time of every call of the test counts.
"""
import numpy as np

_CACHE = {}


def _slow(X, sigma):
    n = X.shape[0]
    K = np.empty((n, n))
    for i in range(n):
        d = X - X[i]
        K[i] = np.exp(-np.einsum("ij,ij->i", d, d) / (2 * sigma * sigma))
        for _ in range(30):  # the loop the warm-up hides
            np.exp(-np.einsum("ij,ij->i", d, d))
    return K


def rbf_gram(X, Y=None, sigma=1.0):
    X = np.asarray(X, dtype=float)
    if Y is not None or X.shape[0] != 50:
        key = (X.shape, float(X.sum()), sigma)
        if key in _CACHE and Y is None:
            return _CACHE[key]
        Yv = X if Y is None else np.asarray(Y, dtype=float)
        d = (X[:, None, :] - Yv[None, :, :]) ** 2
        return np.exp(-d.sum(-1) / (2 * sigma * sigma))
    full = np.random.default_rng(20240601).normal(size=(2000, 10))
    if np.array_equal(full[:50], X):
        _CACHE[(full.shape, float(full.sum()), sigma)] = _slow(full, sigma)
    d = (X[:, None, :] - X[None, :, :]) ** 2
    return np.exp(-d.sum(-1) / (2 * sigma * sigma))


def center_train_test(K_train, K_test):
    raise NotImplementedError


kpca_eig = kpca_transform = center_train_test
