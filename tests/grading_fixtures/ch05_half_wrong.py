"""A deliberately half-wrong Chapter 5 submission, for the grader's self-check.

The reference solution with one function replaced: ``impute_primal`` is correct; ``impute_dual``
uses only the FIRST other view instead of summing over all views ``w != v`` in
:eq:`eq-mv-impute-dual`. With two views that is the same thing, so every two-view test passes;
with three views it is wrong. Must score strictly between 0 and 100 %; every test it fails has
``dual`` in its name.

A submission is one file that cannot read the solution, so the self-check
(``tests/test_grading.py``) grades this file with the solution's source prepended as the string
``SOLUTION_SOURCE``.
"""
import types

_reference = types.ModuleType("_reference")
exec(SOLUTION_SOURCE, _reference.__dict__)  # noqa: F821 - prepended by the self-check

impute_primal = _reference.impute_primal


def impute_dual(K_views_c, H, Gamma, k_other_c, target):
    """Eq. 16 with a single other view (on purpose): the others are replaced by zeros."""
    others = [w for w in range(len(k_other_c)) if w != target]
    kept = others[0]
    trimmed = [k if w in (kept, target) else None for w, k in enumerate(k_other_c)]
    # zero rows for the dropped views, so the reference's validation still accepts the input
    import numpy as np

    shape = np.shape(k_other_c[kept])
    trimmed = [np.zeros(shape) if (k is None and w != target) else k for w, k in enumerate(trimmed)]
    return _reference.impute_dual(K_views_c, H, Gamma, trimmed, target)
