"""A deliberately half-wrong Chapter 3 submission, for the grader's self-check.

The reference solution with one function replaced: the rescaling is correct; the imputation uses
the latent map ``h = Gamma^{-1} U_x^T phi_x`` (as if the missing view's features were zero)
instead of ``(Gamma - U_y^T U_y)^{-1} U_x^T phi_x`` of :eq:`eq-mv-impute-primal`. Must score
strictly between 0 and 100 %.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

_SOLUTION = Path(__file__).resolve().parents[2] / "exercises" / "ch03_rescaling" / "solution.py"
_spec = importlib.util.spec_from_file_location("_ch03_reference", _SOLUTION)
_reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_reference)

rescale = _reference.rescale


def impute_target(U_x, U_y, Gamma, phi_x):
    """Validates like the reference, then imputes WRONGLY (on purpose): drops ``- U_y^T U_y``."""
    _reference.impute_target(U_x, U_y, Gamma, phi_x)
    Gamma = np.asarray(Gamma, dtype=np.float64)
    Gamma = np.diag(Gamma) if Gamma.ndim == 1 else Gamma
    h = np.linalg.solve(Gamma, np.asarray(U_x).T @ np.asarray(phi_x).T)
    return (np.asarray(U_y) @ h).T
