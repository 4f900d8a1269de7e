"""A deliberately half-wrong Chapter 13 submission, for the grader's self-check.

The reference solution with one function replaced: training is correct; the sampler uses the
Cholesky factor of the covariance instead of its symmetric square root (same distribution,
other draws for the same ``z``). Must score strictly between 0 and 100 %.

The self-check (``tests/test_grading.py``) grades this file with the solution's source prepended
as the string ``SOLUTION_SOURCE``.
"""
import types

import numpy as np

_reference = types.ModuleType("_reference")
exec(SOLUTION_SOURCE, _reference.__dict__)  # noqa: F821 - prepended by the self-check

genrkm_fit = _reference.genrkm_fit


def sample_hidden(H, z):
    """Validates like the reference, then draws with the Cholesky factor (on purpose)."""
    _reference.sample_hidden(H, z)
    H, z = np.asarray(H, dtype=np.float64), np.asarray(z, dtype=np.float64)
    cov = np.atleast_2d(np.cov(H, rowvar=False))
    factor = np.linalg.cholesky(cov + 1e-12 * np.eye(len(cov)))
    return H.mean(axis=0) + z @ factor.T
