"""A deliberately half-wrong Chapter 8 submission, for the grader's self-check.

The reference solution with one function replaced: ``coupled_kernel``, ``moc_codebook`` and
``decode_outputs`` are correct; ``train_rho_tmv`` uses the border ``1`` instead of
``tau = (1 - rho) V + rho`` (the TMV-RKM border of :eq:`eq-tensor-tmv-system` for every rho), which
is right only when ``tau = 1`` (one view, or rho = 1). Must score strictly between 0 and 100 %.

A submission is one file that cannot read the solution, so the self-check
(``tests/test_grading.py``) grades this file with the solution's source prepended as the string
``SOLUTION_SOURCE``.
"""
import types

_reference = types.ModuleType("_reference")
exec(SOLUTION_SOURCE, _reference.__dict__)  # noqa: F821 - prepended by the self-check

coupled_kernel = _reference.coupled_kernel
moc_codebook = _reference.moc_codebook
decode_outputs = _reference.decode_outputs


def train_rho_tmv(kernels, Y, rho, lam, eta=1.0):
    """Solve the system with the border 1 (WRONG unless tau = 1)."""
    np = _reference.np
    alpha, b = _reference.train_rho_tmv(kernels, Y, 1.0 if len(kernels) == 1 else rho, lam, eta)
    if len(kernels) == 1:
        return alpha, b
    K = _reference.coupled_kernel(kernels, rho) / eta + lam * np.eye(len(Y))
    n = K.shape[0]
    Y = np.asarray(Y, dtype=float)
    A = np.block([[K, np.ones((n, 1))], [np.ones((1, n)), np.zeros((1, 1))]])
    sol = np.linalg.solve(A, np.vstack([Y, np.zeros((1, Y.shape[1]))]))
    return sol[:n], sol[n]
