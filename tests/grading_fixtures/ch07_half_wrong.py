"""A deliberately half-wrong Chapter 7 submission, for the grader's self-check.

The reference solution with one function replaced: ``sample_dual`` is correct; ``kernel_smoother``
forgets to undo the centring (it normalises the centred values ``k_c`` directly, whose sum is 0:
the instability of :eq:`eq-kernel-smoother` discussed in the chapter). Must score strictly between
0 and 100 %.

A submission is one file that cannot read the solution, so the self-check
(``tests/test_grading.py``) grades this file with the solution's source prepended as the string
``SOLUTION_SOURCE``.
"""
import types

_reference = types.ModuleType("_reference")
exec(SOLUTION_SOURCE, _reference.__dict__)  # noqa: F821 - prepended by the self-check

sample_dual = _reference.sample_dual


def kernel_smoother(k_centred, X_train, row_means, grand_mean, mean_term=None, top_k=None):
    """Smooth with the CENTRED kernel values (WRONG: row means and mean term left out)."""
    np = _reference.np
    k_centred = np.asarray(k_centred, dtype=float)
    zeros = np.zeros(k_centred.shape[1])
    shifted = k_centred  # should be k_centred + row_means + mean_term
    return _reference.kernel_smoother(shifted, X_train, zeros, grand_mean,
                                      mean_term=None if mean_term is None else np.zeros(len(k_centred)),
                                      top_k=top_k)
