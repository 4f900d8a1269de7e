"""Hostile: disarm the comparisons, then return zeros of the right shapes (nothing else).

Replaces ``np.testing.assert_allclose``, ``assert_array_equal``, ``np.allclose`` and
``np.array_equal`` with functions that always agree. Defeated when the comparisons run in a
process that never imports the submission: the patched numpy is the student's own.
"""
import numpy as np

np.testing.assert_allclose = lambda *args, **kwargs: None
np.testing.assert_array_equal = lambda *args, **kwargs: None
np.testing.assert_array_almost_equal = lambda *args, **kwargs: None
np.allclose = lambda *args, **kwargs: True
np.array_equal = lambda *args, **kwargs: True


def _n(A):
    return len(A)


def rbf_gram(X, Y=None, sigma=1.0):
    return np.zeros((_n(X), _n(X if Y is None else Y)))


def center_train_test(K_train, K_test):
    return np.zeros(np.shape(K_train)), np.zeros(np.shape(K_test))


def kpca_eig(Kc, n_components):
    return np.zeros((n_components,)), np.zeros((_n(Kc), n_components))


def kpca_transform(Kc_test, eigenvalues, H):
    return np.zeros((_n(Kc_test), np.shape(H)[1]))
