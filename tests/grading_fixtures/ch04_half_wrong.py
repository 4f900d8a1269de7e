"""A deliberately half-wrong Chapter 4 submission, for the grader's self-check.

The reference solution with one function replaced: ``gamma_prime`` is correct and the rotation
itself is right (eigenvalues, orthogonal O, H = H' O, diagonal H^T K H), but ``rotate_solution``
forgets the sign convention of :eq:`eq-mv-rotation`: eigenvectors come back with LAPACK's
arbitrary signs. Must score strictly between 0 and 100 %; every test it fails has ``sign`` in its
name.

A submission is one file that cannot read the solution, so the self-check
(``tests/test_grading.py``) grades this file with the solution's source prepended as the string
``SOLUTION_SOURCE``.
"""
import types

import numpy as np

_reference = types.ModuleType("_reference")
exec(SOLUTION_SOURCE, _reference.__dict__)  # noqa: F821 - prepended by the self-check

gamma_prime = _reference.gamma_prime


def rotate_solution(H_prime, K):
    """The rotation without the sign flip (on purpose), made visibly wrong: columns negated."""
    G = _reference.gamma_prime(H_prime, K)
    values, O = np.linalg.eigh(G)
    values, O = values[::-1].copy(), O[:, ::-1]
    H, _, _ = _reference.rotate_solution(H_prime, K)
    # LAPACK's signs may happen to match the convention; negate so the mistake always shows.
    O = -(O * np.sign(np.sum((np.asarray(H_prime, dtype=float) @ O) * H, axis=0)))
    return np.asarray(H_prime, dtype=float) @ O, values, O
