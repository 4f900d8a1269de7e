"""A deliberately half-wrong Chapter 12 submission, for the grader's self-check.

The reference solution with one function replaced: the primal pairs are correct; the dual
coefficients forget to divide by ``rho`` (``alpha = (F2 v - rho F1 w) / kappa``). Must score
strictly between 0 and 100 %.

The self-check (``tests/test_grading.py``) grades this file with the solution's source prepended
as the string ``SOLUTION_SOURCE``.
"""
import types

import numpy as np

_reference = types.ModuleType("_reference")
exec(SOLUTION_SOURCE, _reference.__dict__)  # noqa: F821 - prepended by the self-check

kcca_primal = _reference.kcca_primal


def kcca_dual_coef(F1, F2, w, v, rho, kappa):
    """Validates like the reference, then drops the 1 / rho (on purpose)."""
    _reference.kcca_dual_coef(F1, F2, w, v, rho, kappa)
    e, r = np.asarray(F1) @ np.asarray(w), np.asarray(F2) @ np.asarray(v)
    rho = np.asarray(rho, dtype=np.float64)
    return (r - rho * e) / kappa, (e - rho * r) / kappa
