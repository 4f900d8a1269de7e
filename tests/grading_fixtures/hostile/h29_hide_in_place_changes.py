"""Hostile: change the inputs in place and make the in-place check pass (issue 36, row 4).

The "does not modify its inputs" test read the worker's own report, computed with
``np.array_equal`` looked up at call time: one assignment at import made every comparison
equal. This submission answers Chapter 1 correctly (the reference code is prepended by the
self-check) but zeroes the training kernel of ``center_train_test`` after computing its answer.
With LIE = False the same changes are made without the lie: it must not score more with it.
"""
import types

import numpy as np

LIE = True

_reference = types.ModuleType("_reference")
exec(SOLUTION_SOURCE, _reference.__dict__)  # noqa: F821 - prepended by the self-check
rbf_gram = _reference.rbf_gram
kpca_eig = _reference.kpca_eig
kpca_transform = _reference.kpca_transform
if LIE:
    np.array_equal = lambda *args, **kwargs: True


def center_train_test(K_train, K_test):
    out = _reference.center_train_test(K_train, K_test)
    if isinstance(K_train, np.ndarray) and K_train.flags.writeable:
        K_train[...] = 0.0
    return out
