"""A deliberately half-wrong Chapter 3 submission, for the grader's self-check.

The reference solution with one function replaced: the rescaling is correct; the imputation uses
the latent map ``h = Gamma^{-1} U_x^T phi_x`` (as if the missing view's features were zero)
instead of ``(Gamma - U_y^T U_y)^{-1} U_x^T phi_x`` of :eq:`eq-mv-impute-primal`. Must score
strictly between 0 and 100 %.

A submission is one file that cannot read the solution, so the self-check
(``tests/test_grading.py``) grades this file with the solution's source prepended as the string
``SOLUTION_SOURCE``.
"""
import types

import numpy as np

_reference = types.ModuleType("_reference")
exec(SOLUTION_SOURCE, _reference.__dict__)  # noqa: F821 - prepended by the self-check

rescale = _reference.rescale


def impute_target(U_x, U_y, Gamma, phi_x):
    """Validates like the reference, then imputes WRONGLY (on purpose): drops ``- U_y^T U_y``."""
    _reference.impute_target(U_x, U_y, Gamma, phi_x)
    Gamma = np.asarray(Gamma, dtype=np.float64)
    Gamma = np.diag(Gamma) if Gamma.ndim == 1 else Gamma
    h = np.linalg.solve(Gamma, np.asarray(U_x).T @ np.asarray(phi_x).T)
    return (np.asarray(U_y) @ h).T
