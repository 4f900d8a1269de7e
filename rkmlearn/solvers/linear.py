"""Linear systems of RKMs, factored once and reused for many right-hand sides.

* :class:`SymmetricSolver`: ``M Z = B`` with ``M`` symmetric (Cholesky if positive definite, else
  LU); a numerically singular ``M`` is a ``ValueError`` that names it.
* :class:`BorderedSolver`: the LS-SVM / KKT systems ``[[M, C], [R^T, 0]] [x; b] = [f; g]`` with bias
  rows (Part III's classifier, one system per output, all right-hand sides in one call).
* :func:`pivoted_cholesky`: low-rank factor and numerical rank of a PSD matrix.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg
from scipy.linalg import LinAlgError, LinAlgWarning
from scipy.linalg.lapack import dgecon, dgetrs, dpocon, dpotrs, dpstrf

from .._symmetric import max_asymmetry, mirror_lower, rank_tolerance, symmetrize_inplace
from .._validation import array, square, validate

__all__ = ["SymmetricSolver", "BorderedSolver", "pivoted_cholesky"]


def _lu(M, anorm=None, overwrite=False):
    """LU factors and the estimated reciprocal condition number (exact zero pivots included)."""
    anorm = np.abs(M).sum(axis=0).max() if anorm is None else anorm
    with warnings.catch_warnings():  # a singular M is reported by the caller, once
        warnings.simplefilter("ignore", LinAlgWarning)
        lu = scipy.linalg.lu_factor(M, overwrite_a=overwrite, check_finite=False)
    return lu, dgecon(lu[0], anorm, norm="1")[0]


def _one_norm(M, block=64):
    """``||M||_1`` of a symmetric ``M`` (its largest row sum of magnitudes), a block of rows at a time."""
    return max(float(np.abs(M[i:i + block]).sum(axis=1).max()) for i in range(0, M.shape[0], block))


class SymmetricSolver:
    """Factor a symmetric matrix ``M`` once, then solve ``M Z = B`` for any number of ``B``.

    Cholesky when ``M`` is positive definite, LU otherwise. ``M`` is singular when the estimate
    ``rcond * ||M||_1`` of its smallest eigenvalue magnitude (LAPACK ``pocon`` / ``gecon``,
    ``O(n^2)``) is ``<= floor``; :meth:`solve` then raises a ``ValueError`` naming ``name`` (the
    factorisation does not: a model may hold a solver it never needs).

    Parameters
    ----------
    M : array-like of shape (n, n)
        Symmetric (symmetrised as ``(M + M^T) / 2``).
    name : str, default="M"
        The matrix, for error messages.
    floor : float, optional
        Singularity threshold; default ``rank_tolerance(n) * ||M||_1``. Pass the rounding level of
        the quantities ``M`` was computed from when it is a difference (e.g. ``Gamma - U_v^T U_v``).
    advice : str, default=""
        Appended to the singularity message: how to avoid it.
    overwrite : bool, default=False
        ``M`` is the caller's own float64 C-ordered array, built exactly symmetric, that it no
        longer needs: no symmetry scan, and it is factored IN PLACE (it holds the factor afterwards),
        so that solving costs no second ``n x n`` array (Chapter 8's fit: one ``n x n`` matrix).

    Examples
    --------
    >>> SymmetricSolver([[2.0, 0.0], [0.0, 4.0]]).solve([1.0, 1.0])
    array([0.5 , 0.25])
    """

    @validate(M=square("{name}", kind="matrix"))
    def __init__(self, M, name="M", *, floor=None, advice="", overwrite=False):
        in_place = overwrite and M.flags.writeable  # checked at the door, or the library's own float64 array
        if not in_place and max_asymmetry(M) != 0.0:  # a read-only pass; a kernel matrix is exactly symmetric
            M = symmetrize_inplace(M.copy())  # (M + M^T) / 2 exactly; the caller's M is never written
        anorm = _one_norm(M) if in_place else float(np.abs(M).sum(axis=0).max())
        self.name, self.size = name, M.shape[0]
        self._cho, self._lu, self._error = None, None, None
        try:
            # in place: M.T is Fortran-ordered, the same symmetric matrix; LAPACK overwrites its lower
            # triangle (M's upper one) and leaves M's strict lower triangle as it was
            diagonal = np.diagonal(M).copy() if in_place else None
            self._cho = scipy.linalg.cho_factor(M.T if in_place else M, lower=True, overwrite_a=in_place,
                                                check_finite=False)
            rcond = dpocon(self._cho[0], anorm, uplo="L")[0]
        except LinAlgError:  # not positive definite
            if in_place:  # M back from its untouched strict lower triangle and the saved diagonal
                mirror_lower(M)
                M[np.diag_indices(M.shape[0])] = diagonal
            self._lu, rcond = _lu(M.T if in_place else M, anorm, overwrite=in_place)  # M^T = M
        smallest = rcond * anorm
        floor = rank_tolerance(M.shape[0]) * anorm if floor is None else floor
        if not smallest > floor:
            self._error = (
                f"{name} is singular (smallest |eigenvalue| about {smallest:.1e}, at or below the "
                f"rounding level {floor:.1e}). {advice}".rstrip()
            )

    @property
    def singular(self):
        """True when ``M`` is numerically singular (:meth:`solve` raises)."""
        return self._error is not None

    def solve(self, B):
        """``M^{-1} B`` for ``B`` of shape (n,) or (n, m)."""
        if self._error is not None:
            raise ValueError(self._error)
        B = np.asarray(B, dtype=np.float64)
        # LAPACK directly: scipy's wrappers cost more than an s x s solve (a forecast makes millions)
        if self._cho is not None:
            return dpotrs(self._cho[0], B, lower=1)[0]
        return dgetrs(*self._lu, B)[0]


class BorderedSolver:
    """Solve ``[[M, C], [R^T, 0]] [x; b] = [f; g]``: an LS-SVM / KKT system with ``k`` bias rows.

    ``M`` (n x n) is symmetric, usually positive definite (a kernel matrix plus ``lambda I``): it is
    factored once by :class:`SymmetricSolver`; the ``k x k`` Schur complement ``S = R^T M^{-1} C`` is
    LU-factored once. Then ``b = S^{-1} (R^T M^{-1} f - g)`` and ``x = M^{-1} (f - C b)``: two
    triangular solves per right-hand side, all ``m`` of them in one call. The border need not be
    symmetric: Part III's eq. (12) has ``tau 1`` in the column and ``1^T`` in the row.

    Parameters
    ----------
    M : array-like of shape (n, n)
    C : array-like of shape (n, k) or (n,)
        Border columns.
    R : array-like of shape (n, k) or (n,), optional
        Border rows (transposed); default ``C``.
    name : str, default="M"
        ``M``'s name, for error messages.
    overwrite : bool, default=False
        Factor ``M`` in place (see :class:`SymmetricSolver`).

    Examples
    --------
    >>> solver = BorderedSolver(np.eye(2), np.ones(2))
    >>> x, b = solver.solve([1.0, 3.0])     # x + b = f, sum(x) = 0
    >>> x, b
    (array([-1.,  1.]), array([2.]))
    """

    @validate(M=square("{name}", kind="matrix"), C=array(ensure_2d=False), R=array(ensure_2d=False, optional=True))
    def __init__(self, M, C, R=None, *, name="M", overwrite=False):
        self._M = SymmetricSolver(M, name, overwrite=overwrite)
        self.C = self._border(C, "C", self._M.size)
        self.R = self.C if R is None else self._border(R, "R", self._M.size)
        if self.R.shape != self.C.shape:
            raise ValueError(f"R must have the shape of C, {self.C.shape}; got {self.R.shape}.")
        self._MiC = self._M.solve(self.C)
        schur = self.R.T @ self._MiC
        self._schur, rcond = _lu(schur)
        if not rcond > rank_tolerance(schur.shape[0]):
            raise ValueError(
                f"the Schur complement R^T {name}^-1 C of the border is singular (reciprocal condition "
                f"{rcond:.1e}): the border rows/columns are linearly dependent through {name}. Remove "
                "duplicated bias constraints."
            )

    @staticmethod
    def _border(C, name, n):
        C = np.asarray(C)
        C = C[:, None] if C.ndim == 1 else C
        if C.shape[0] != n:
            raise ValueError(f"{name} must have {n} rows (the size of M); got shape {C.shape}.")
        return C

    def solve(self, f, g=None):
        """Solve for right-hand sides ``f`` (n,) or (n, m) and ``g`` (k,) or (k, m), default 0.

        Returns
        -------
        x : ndarray of shape (n,) or (n, m)
        b : ndarray of shape (k,) or (k, m)
        """
        f = np.asarray(f, dtype=np.float64)
        vector = f.ndim == 1
        F = f[:, None] if vector else f
        k, m = self.C.shape[1], F.shape[1]
        G = np.zeros((k, m)) if g is None else np.asarray(g, dtype=np.float64).reshape(k, m)
        MiF = self._M.solve(F)
        b = scipy.linalg.lu_solve(self._schur, self.R.T @ MiF - G, check_finite=False)
        x = MiF - self._MiC @ b
        return (x[:, 0], b[:, 0]) if vector else (x, b)


def pivoted_cholesky(S, lambda_max):
    """Low-rank factor ``F`` (``S = F F^T``) and numerical rank of a PSD matrix, by LAPACK ``pstrf``.

    Stops when the largest remaining diagonal entry is ``<= rank_tolerance(n) * lambda_max``; by
    Weyl's inequality every eigenvalue beyond the returned rank is then at most
    ``(n - rank) * rank_tolerance(n) * lambda_max``. Cost ``O(n^2 rank)``.

    Parameters
    ----------
    S : ndarray of shape (n, n)
        Symmetric positive semi-definite.
    lambda_max : float
        Its largest eigenvalue.

    Returns
    -------
    F : ndarray of shape (n, rank)
        Rows in the original order.
    pivots : ndarray of shape (rank,)
        Rows of ``F`` whose ``rank x rank`` block ``F[pivots]`` is lower triangular.
    rank : int
    """
    n = S.shape[0]
    c, piv, rank, _ = dpstrf(S, tol=rank_tolerance(n) * lambda_max, lower=1)
    piv = piv - 1  # LAPACK's pivots are 1-based
    F = np.empty((n, rank))
    F[piv] = np.tril(c)[:, :rank]
    return F, piv[:rank].copy(), int(rank)
