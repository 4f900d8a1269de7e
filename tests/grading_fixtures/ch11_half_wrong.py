"""A deliberately half-wrong Chapter 11 submission, for the grader's self-check.

The reference solution with one function replaced: the assignment is correct; the dual deflates
the normalised affinity's own trivial eigenvector ``D^{1/2} 1`` (Ng, Jordan and Weiss's
embedding) instead of projecting out ``D^{-1/2} 1`` as KSC's weighted centring does, the trap
Chapter 11 warns about. Must score strictly between 0 and 100 %.

A submission is one file that cannot read the solution, so the self-check
(``tests/test_grading.py``) grades this file with the solution's source prepended as the string
``SOLUTION_SOURCE``.
"""
import types

import numpy as np

_reference = types.ModuleType("_reference")
exec(SOLUTION_SOURCE, _reference.__dict__)  # noqa: F821 - prepended by the self-check

ksc_assign = _reference.ksc_assign


def ksc_dual(Omega, k):
    """Validates like the reference, then deflates the wrong vector (on purpose)."""
    _reference.ksc_dual(Omega, k)
    Omega = np.asarray(Omega, dtype=np.float64)
    d = Omega.sum(axis=1)
    root = np.sqrt(d)
    S = Omega / np.outer(root, root)
    u = root / np.linalg.norm(root)
    lam, beta = np.linalg.eigh(S - np.outer(u, u))
    lam, beta = lam[::-1][:k - 1], beta[:, ::-1][:, :k - 1]
    alpha = beta / root[:, None]
    b = -((1.0 / d) @ (Omega @ alpha)) / (1.0 / d).sum()
    return alpha, b, lam
