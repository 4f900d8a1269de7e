"""A deliberately half-wrong Chapter 1 submission, for the grader's self-check.

The reference solution with one function replaced: the Gram matrix, kernel PCA and transform are
correct; the centring of the TEST matrix is wrong (it uses the test matrix's own means instead of
the training statistics of :eq:`eq-centering-test`: the classic mistake). Must score strictly
between 0 and 100 %.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

_SOLUTION = Path(__file__).resolve().parents[2] / "exercises" / "ch01_kernels" / "solution.py"
_spec = importlib.util.spec_from_file_location("_ch01_reference", _SOLUTION)
_reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_reference)

rbf_gram = _reference.rbf_gram
kpca_eig = _reference.kpca_eig
kpca_transform = _reference.kpca_transform


def center_train_test(K_train, K_test):
    """Centre the training matrix correctly and the test matrix WRONGLY (on purpose)."""
    Kc_train, _ = _reference.center_train_test(K_train, K_test)
    K_test = _reference._as_matrix(K_test, "K_test")
    Kc_test = (K_test - K_test.mean(axis=1)[:, None] - K_test.mean(axis=0)[None, :]
               + K_test.mean())
    return Kc_train, Kc_test
