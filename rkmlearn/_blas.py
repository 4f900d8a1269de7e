"""Matrix products of the hot paths in SciPy's BLAS, the library of the factorisations after them.

NumPy and SciPy wheels each bundle their own OpenBLAS, with a thread pool each. After a call, a
pool's idle threads spin (about 0.1 s, OpenBLAS's ``THREAD_TIMEOUT``) before they sleep, so a path
that alternates NumPy's ``@`` with SciPy's LAPACK keeps running beside the other library's
spinning threads. On a 2-core machine that costs a third of the time and makes it erratic: train +
predict of rho-TMV-RKM on mfeat (``benchmarks/bench_tensor.py``) took 0.27 s median, 0.20 s best,
with NumPy's products, against 0.18 s with one pool. The kernel matrices, and the products of a
model's fit and predict that sit between factorisations, go through here.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg.blas import dgemm, dsyrk

__all__ = ["gram_upper", "product"]


def gram_upper(X, alpha=1.0):
    """The upper triangle of ``alpha X X^T`` (C order; the strict lower triangle is zero), by ``syrk``.

    Half the flops of a GEMM. SciPy's BLAS is Fortran-ordered: ``X.T`` is ``X``'s Fortran view and
    its "lower, transposed" triangle is the upper triangle here (what ``X @ X.T`` in NumPy
    computes before it mirrors it, with the same bits).
    """
    return dsyrk(alpha, np.asarray(X, dtype=np.float64).T, trans=1, lower=1).T


def _fortran_operand(A):
    """``A`` as a Fortran-ordered operand of ``dgemm`` and whether BLAS must transpose it."""
    if A.flags.f_contiguous:
        return A, 0
    if A.flags.c_contiguous:
        return A.T, 1  # A.T is Fortran-ordered: BLAS transposes it back, no copy
    return np.asfortranarray(A), 0


def product(A, B):
    """``A @ B`` for 2-D float64 arrays, in C order, by SciPy's ``dgemm`` (no copies of ``A``, ``B``).

    Computed as ``(B^T A^T)^T``: the Fortran-ordered ``B^T A^T`` is the C-ordered ``A B``.
    """
    A = np.asarray(A, dtype=np.float64)
    B = np.asarray(B, dtype=np.float64)
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[0]:
        raise ValueError(f"product needs 2-D arrays with matching inner sizes; got {A.shape} and {B.shape}.")
    if 0 in A.shape or 0 in B.shape:
        return np.zeros((A.shape[0], B.shape[1]))
    Bt, trans_b = _fortran_operand(B.T)  # B^T, Fortran-ordered or transposed back by BLAS
    At, trans_a = _fortran_operand(A.T)
    return dgemm(1.0, Bt, At, trans_a=trans_b, trans_b=trans_a).T
