"""A deliberately half-wrong Chapter 6 submission, for the grader's self-check.

The reference solution with one function replaced: ``dual_ml`` and ``latent_posterior`` are
correct; ``sigma2_ml`` divides by ``N (N - q)`` as printed in the paper's eq. 6, instead of
``N (r - q)`` with ``r = dim(H_E)`` (:eq:`eq-ppca-sigma2-ml`). Must score strictly between 0 and
100 %.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

_SOLUTION = Path(__file__).resolve().parents[2] / "exercises" / "ch06_ppca" / "solution.py"
_spec = importlib.util.spec_from_file_location("_ch06_reference", _SOLUTION)
_reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_reference)

dual_ml = _reference.dual_ml
latent_posterior = _reference.latent_posterior


def sigma2_ml(eigenvalues, n_samples, q, rank):
    """The paper's printed formula: the discarded variance shared by N - q directions (WRONG)."""
    _reference.sigma2_ml(eigenvalues, n_samples, q, rank)  # the same input validation
    values = _reference.np.asarray(eigenvalues, dtype=float)
    return float(values[q:rank].sum() / (n_samples * (n_samples - q)))
