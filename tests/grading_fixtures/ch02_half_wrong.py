"""A deliberately half-wrong Chapter 2 submission, for the grader's self-check.

The reference solution with one function replaced: the dual (Algorithm 2) is correct; the
primal (Algorithm 1) omits step 6, the rescaling ``U = U~ Lambda^{1/2}`` (:eq:`eq-mv-rescaling`),
which is the mistake Chapter 3 studies. Must score strictly between 0 and 100 %.

A submission is one file that cannot read the solution, so the self-check
(``tests/test_grading.py``) grades this file with the solution's source prepended as the string
``SOLUTION_SOURCE``.
"""
import types

import numpy as np

_reference = types.ModuleType("_reference")
exec(SOLUTION_SOURCE, _reference.__dict__)  # noqa: F821 - prepended by the self-check

dual_eig = _reference.dual_eig


def primal_eig(Xs, n_components):
    """Algorithm 1 WITHOUT the rescaling (on purpose): ``U = U~``."""
    views = _reference._check_views(Xs)
    n = views[0].shape[0]
    Phi = np.hstack([X - X.mean(axis=0) for X in views])
    s = _reference._check_n_components(n_components, min(n - 1, Phi.shape[1]), "at most min(n - 1, d_f)")
    values, U = _reference._top_eigenpairs(Phi.T @ Phi, s)
    H = (Phi @ U) / values
    signs = _reference._flip_signs(H)
    H, U = H * signs, U * signs
    splits = np.cumsum([X.shape[1] for X in views])[:-1]
    return np.split(U, splits, axis=0), values, H
