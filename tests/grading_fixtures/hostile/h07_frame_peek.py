"""Hostile: read the expected answer from the comparing code's stack frames.

Functions return a ``Peek`` object. When the test turns it into an array (``np.asarray`` inside
``assert_allclose``), ``Peek.__array__`` walks up the stack with ``sys._getframe`` and returns
the value of the first local variable called ``desired`` or ``expected``. Defeated when the
comparing code runs in another process: the stack the student can see holds only its own frames.
"""
import sys

import numpy as np


class Peek:
    def __init__(self, shape):
        self.shape = shape

    def __array__(self, dtype=None, copy=None):
        frame = sys._getframe(1)
        while frame is not None:
            for name in ("desired", "expected", "Z", "top"):
                if name in frame.f_locals:
                    found = np.asarray(frame.f_locals[name])
                    if found.shape == self.shape:
                        return found if dtype is None else found.astype(dtype)
            frame = frame.f_back
        return np.zeros(self.shape) if dtype is None else np.zeros(self.shape, dtype)

    def __len__(self):
        return self.shape[0]


def _n(A):
    return len(A)


def rbf_gram(X, Y=None, sigma=1.0):
    return Peek((_n(X), _n(X if Y is None else Y)))


def center_train_test(K_train, K_test):
    return Peek(np.shape(K_train)), Peek(np.shape(K_test))


def kpca_eig(Kc, n_components):
    return Peek((n_components,)), Peek((_n(Kc), n_components))


def kpca_transform(Kc_test, eigenvalues, H):
    return Peek((_n(Kc_test), np.shape(H)[1]))
