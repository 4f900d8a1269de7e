"""A deliberately half-wrong Chapter 6 submission, for the grader's self-check.

The reference solution with one function replaced: ``dual_ml`` and ``latent_posterior`` are
correct; ``sigma2_ml`` divides by ``N (N - q)`` as printed in the paper's eq. 6, instead of
``N (r - q)`` with ``r = dim(H_E)`` (:eq:`eq-ppca-sigma2-ml`). Must score strictly between 0 and
100 %.

A submission is one file that cannot read the solution, so the self-check
(``tests/test_grading.py``) grades this file with the solution's source prepended as the string
``SOLUTION_SOURCE``.
"""
import types

_reference = types.ModuleType("_reference")
exec(SOLUTION_SOURCE, _reference.__dict__)  # noqa: F821 - prepended by the self-check

dual_ml = _reference.dual_ml
latent_posterior = _reference.latent_posterior


def sigma2_ml(eigenvalues, n_samples, q, rank):
    """The paper's printed formula: the discarded variance shared by N - q directions (WRONG)."""
    _reference.sigma2_ml(eigenvalues, n_samples, q, rank)  # the same input validation
    values = _reference.np.asarray(eigenvalues, dtype=float)
    return float(values[q:rank].sum() / (n_samples * (n_samples - q)))
