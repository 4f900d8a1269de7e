"""A deliberately half-wrong Chapter 9 submission, for the grader's self-check.

The reference solution with one function replaced: ``level_kernel`` and ``smoother_latent`` are
correct; ``pgd_step`` forgets the projection onto the Stiefel manifold (it returns the plain
gradient step ``H - alpha G``, which leaves the manifold: the point of :eq:`eq-deep-pgd`). Must
score strictly between 0 and 100 %.

A submission is one file that cannot read the solution, so the self-check
(``tests/test_grading.py``) grades this file with the solution's source prepended as the string
``SOLUTION_SOURCE``.
"""
import types

_reference = types.ModuleType("_reference")
exec(SOLUTION_SOURCE, _reference.__dict__)  # noqa: F821 - prepended by the self-check

level_kernel = _reference.level_kernel
smoother_latent = _reference.smoother_latent


def pgd_step(H, G, alpha):
    """Gradient step WITHOUT the projection (WRONG: H_new^T H_new != I)."""
    np = _reference.np
    if alpha <= 0:
        raise ValueError("alpha must be > 0")
    H, G = np.asarray(H, dtype=float), np.asarray(G, dtype=float)
    if G.shape != H.shape:
        raise ValueError("G must have the shape of H")
    if H.shape[0] < H.shape[1]:
        raise ValueError("H must have at least as many rows as columns")
    return H - alpha * G
