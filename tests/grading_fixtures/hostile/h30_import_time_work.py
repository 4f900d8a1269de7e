"""Hostile: do the slow work at import, answer the timed calls from a cache (issue 36, row 5).

The speed test counted the CPU time of the test's calls, warm-up included, but not the
worker's import: this submission rebuilds the test's 2000 points from the public seed at
import, computes their Gram matrix with a slow loop there, and returns it from a cache in the
timed call (36 against 35 honest). The reference code is prepended by the self-check.
"""
import types

import numpy as np

_reference = types.ModuleType("_reference")
exec(SOLUTION_SOURCE, _reference.__dict__)  # noqa: F821 - prepended by the self-check
center_train_test = _reference.center_train_test
kpca_eig = _reference.kpca_eig
kpca_transform = _reference.kpca_transform


def _slow(X, sigma):
    K = np.empty((X.shape[0], X.shape[0]))
    for i in range(X.shape[0]):
        d = X - X[i]
        K[i] = np.exp(-np.einsum("ij,ij->i", d, d) / (2 * sigma * sigma))
        for _ in range(30):  # the loop the import hides
            np.exp(-np.einsum("ij,ij->i", d, d))
    return K


_POINTS = np.random.default_rng(20240601).normal(size=(2000, 10))
_CACHE = {(_POINTS.tobytes(), 1.0): _slow(_POINTS, 1.0)}


def rbf_gram(X, Y=None, sigma=1.0):
    if Y is None and isinstance(X, np.ndarray) and (X.tobytes(), sigma) in _CACHE:
        return _CACHE[(X.tobytes(), sigma)]
    return _reference.rbf_gram(X, Y, sigma)
