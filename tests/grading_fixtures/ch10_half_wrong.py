"""A deliberately half-wrong Chapter 10 submission, for the grader's self-check.

The reference solution with one function replaced: ``lag_matrix`` and ``krr_preimage`` are
correct; ``latent_step`` divides by ``a_0`` instead of ``a_p`` (the index the extracted text of the
paper's eq. 8 garbles). Must score strictly between 0 and 100 %.

A submission is one file that cannot read the solution, so the self-check
(``tests/test_grading.py``) grades this file with the solution's source prepended as the string
``SOLUTION_SOURCE``.
"""
import types

_reference = types.ModuleType("_reference")
exec(SOLUTION_SOURCE, _reference.__dict__)  # noqa: F821 - prepended by the self-check

lag_matrix = _reference.lag_matrix
krr_preimage = _reference.krr_preimage


def latent_step(window, M, a):
    """One step, dividing by a_0 (WRONG: the newest latent's weight is a_p)."""
    np = _reference.np
    a = np.asarray(a, dtype=float)
    h = _reference.latent_step(window, M, a)
    return h * a[-1] / a[0] if a[0] != 0 else h * 2.0
