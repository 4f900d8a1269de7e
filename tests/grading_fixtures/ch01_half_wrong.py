"""A deliberately half-wrong Chapter 1 submission, for the grader's self-check.

The reference solution with one function replaced: the Gram matrix, kernel PCA and transform are
correct; the centring of the TEST matrix is wrong (it uses the test matrix's own means instead of
the training statistics of :eq:`eq-centering-test`: the classic mistake). Must score strictly
between 0 and 100 %.

A submission is one file that cannot read the solution, so the self-check
(``tests/test_grading.py``) grades this file with the solution's source prepended as the string
``SOLUTION_SOURCE``.
"""
import types

_reference = types.ModuleType("_reference")
exec(SOLUTION_SOURCE, _reference.__dict__)  # noqa: F821 - prepended by the self-check

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
