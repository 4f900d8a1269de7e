"""Leading eigenpairs of a symmetric matrix, the sign convention and the numerical-rank rule.

Kernel PCA in its dual form (:eq:`eq-kpca-dual`, Chapter 1) needs the ``s`` largest eigenpairs of
an ``N x N`` matrix with ``s`` much smaller than ``N``: :func:`top_eigenpairs` computes only those
(LAPACK's subset driver or ARPACK, chosen by :func:`choose_eigen_solver`), never a full ``eigh``.

Conventions for the whole library: eigenvalues in DESCENDING order; signs fixed by
:func:`flip_signs`; an eigenvalue below :func:`rank_tolerance` times the scale of the problem is
zero (:func:`check_leading_eigenvalues`).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import ArpackNoConvergence, eigsh

from .._symmetric import check_symmetric_matrix, mirror_lower, rank_tolerance
from .._validation import array, check_n_components, check_option, check_random_state, check_square, validate
from .block_krylov import _NotConverged, block_krylov_eigenpairs, lowrank_band_eigenpairs

__all__ = [
    "flip_signs",
    "choose_eigen_solver",
    "rank_tolerance",
    "check_leading_eigenvalues",
    "top_eigenpairs",
    "SOLVERS",
]

SOLVERS = ("auto", "dense", "arpack", "block")

#: Entries within this relative distance of a column's largest magnitude tie for its sign (see
#: :func:`flip_signs`). Primal and dual solutions agree to ~1e-12; 1e-8 leaves a wide margin above
#: that, while two genuinely different magnitudes are this close with probability ~1e-8.
SIGN_TIE_RTOL = 1e-8


@validate(V=array())
def flip_signs(V, *, return_signs=False):
    """Flip each column so that its first entry of (nearly) largest magnitude is positive.

    The deciding entry is the FIRST one whose magnitude is within a relative ``SIGN_TIE_RTOL``
    (1e-8) of the column's largest: an exact-argmax rule would let rounding decide between tied
    entries (symmetric data such as ``X = [[100.], [0.]]`` or ``+-x``), and primal and dual fits of
    the same model would then disagree in sign. All-zero columns are left as they are.

    Parameters
    ----------
    V : array-like of shape (n, s)
    return_signs : bool, default=False
        Also return the ``(s,)`` vector of +1/-1 multipliers applied.

    Returns
    -------
    V_flipped : ndarray of shape (n, s)
        A new array.
    signs : ndarray of shape (s,)
        Only when ``return_signs``.

    Examples
    --------
    >>> flip_signs([[1.0, 0.5], [-2.0, -0.5]])
    array([[-1. ,  0.5],
           [ 2. , -0.5]])
    """
    magnitude = np.abs(V)
    ties = magnitude >= (1.0 - SIGN_TIE_RTOL) * magnitude.max(axis=0)
    rows = np.argmax(ties, axis=0)  # argmax of booleans: the first tied entry
    signs = np.sign(V[rows, np.arange(V.shape[1])])
    signs[signs == 0] = 1.0  # an all-zero column stays as it is
    V = V * signs
    return (V, signs) if return_signs else V


def check_leading_eigenvalues(values, n, n_components, what, *, scale=0.0):
    """Raise ``ValueError`` if a requested eigenvalue is numerically zero.

    An eigenvalue ``<= rank_tolerance(n) * max(values[0], scale)`` is rounding noise: it has no
    hidden feature (``h = Lambda^{-1} H^T k_c``). ``scale`` is the magnitude of the data the
    matrix was computed from (e.g. ``max|K|`` of the UNcentred Gram matrix): centring cancels that
    much, so for constant data every eigenvalue, the largest included, is noise.

    Parameters
    ----------
    values : ndarray of shape (n_components,)
        Eigenvalues, descending.
    n : int
        Size of the matrix they come from.
    n_components : int
        The requested number, named in the message.
    what : str
        The matrix, for the message.
    scale : float, default=0.0
        Scale of the entries before centring.
    """
    tol = rank_tolerance(n)
    floor = tol * max(float(values[0]), float(scale), 0.0)
    rank = int(np.count_nonzero(values > floor))
    if rank == len(values):
        return
    if rank == 0:
        raise ValueError(
            f"n_components={n_components} exceeds the numerical rank 0 of {what}: it has no positive "
            f"eigenvalue above the rounding level {floor:.1e}, i.e. all samples look alike in feature "
            "space (constant data, or kernel parameters such as sigma far outside the scale of X). "
            "Check the data and the kernel parameters."
        )
    raise ValueError(
        f"n_components={n_components} exceeds the numerical rank {rank} of {what} (eigenvalues "
        f"<= {tol:.1e} * max(largest eigenvalue, scale of the data) count as zero); use "
        f"n_components <= {rank}."
    )


#: ``choose_eigen_solver``: LAPACK's subset driver below this size, the block Krylov solver from it on
#: (measured by ``benchmarks/bench_eigensolvers.py``, see :func:`choose_eigen_solver`).
BLOCK_MIN_N = 1000
#: ... and for at most this many eigenpairs (a wider block costs more than the dense reduction saves).
BLOCK_MAX_S = 50


def choose_eigen_solver(n, s):
    """The solver that ``top_eigenpairs(solver="auto")`` uses for ``s`` of ``n`` eigenpairs.

    Rule: ``'block'`` (block Krylov, ``block_krylov_eigenpairs``) when ``n >= BLOCK_MIN_N``
    (1000) and ``s <= min(n // 40, BLOCK_MAX_S)`` (50), else ``'dense'`` (LAPACK's subset driver).
    The block solver multiplies ``K`` by 8 to 16 vectors at once: one pass over the ``n x n``
    matrix per block, where ARPACK makes one per vector and is memory-bound (3 % of the machine's
    flop rate at n = 5000); it needs 10-20 passes on a kernel spectrum and gives up, to the dense
    driver, when its residuals show it would cost more than a quarter of the dense reduction (a
    cluster of nearly equal eigenvalues, where ARPACK stalls: RecurrentRKM's ``K + A``). ARPACK is
    never chosen automatically. Measured by ``benchmarks/bench_eigensolvers.py``: below n = 1000 the
    dense driver costs a few ms (the matrix fits in cache) and never iterates; for ``s`` above the
    bound, the ``O(n^3)`` reduction, almost independent of ``s``, wins.

    Parameters
    ----------
    n : int
        Size of the matrix.
    s : int
        Number of leading eigenpairs wanted.

    Returns
    -------
    solver : {'dense', 'block'}
    """
    if n >= BLOCK_MIN_N and s <= min(n // 40, BLOCK_MAX_S):
        return "block"
    return "dense"


#: LAPACK drivers of the subset call, in the order tried: MRRR (``dsyevr``), then bisection and
#: inverse iteration (``dsyevx``).
SUBSET_DRIVERS = ("evr", "evx")


def _lapack_subset(K, s, driver, in_place=False):
    """``s`` leading eigenpairs by one LAPACK subset driver: ``(values, vectors)`` as it returns them.

    ``in_place``: LAPACK works on ``K`` itself instead of a copy (the peak memory of a dual fit is
    then ONE n x n matrix). ``dsyevr`` / ``dsyevx`` destroy only the triangle they read and the
    diagonal; ``K`` being exactly symmetric, the other triangle and the saved diagonal put it back.
    """
    n = K.shape[0]
    if not (in_place and K.flags.writeable and K.flags.c_contiguous):
        return scipy.linalg.eigh(K, subset_by_index=[n - s, n - 1], driver=driver, check_finite=False)
    diagonal = np.diagonal(K).copy()
    try:  # K.T is Fortran-ordered: LAPACK's lower triangle of it is K's upper one, used in place
        return scipy.linalg.eigh(K.T, lower=True, subset_by_index=[n - s, n - 1], driver=driver,
                                 overwrite_a=True, check_finite=False)
    finally:
        mirror_lower(K)
        K[np.diag_indices(n)] = diagonal


def _dense(K, s, random_state=0, in_place=False):
    """``s`` leading eigenpairs by a LAPACK subset driver, never trusted blindly.

    On a degenerate spectrum a subset driver can return FEWER pairs than asked and report success
    (OpenBLAS's SkylakeX kernels: ``dsyevr`` and ``dsyevx`` both return 0 of the top 2 of the centred
    identity, whose top eigenvalue has multiplicity n - 1). Each answer's count is checked; when every
    driver comes back short, ARPACK (a method free of the subset selection, from a seeded start) gives
    the pairs, or for ``s = n`` (the whole spectrum is the subset) ``dsyevd``.
    """
    n = K.shape[0]
    for driver in SUBSET_DRIVERS:
        evals, evecs = _lapack_subset(K, s, driver, in_place)
        if evals.shape == (s,) and evecs.shape == (n, s):
            return evals, evecs
    if s >= n:
        return scipy.linalg.eigh(K, driver="evd", check_finite=False)
    evals, evecs = _arpack(K, s, random_state)
    _check_residual(K, evals, evecs)
    return evals, evecs


def _check_residual(K, evals, evecs):
    """Raise ``RuntimeError`` unless ``||K v - lambda v|| <= 1e-8 ||K||`` for every pair (a solver bug)."""
    norm = max(float(np.abs(evals).max(initial=0.0)), np.finfo(np.float64).tiny)
    residual = float(np.linalg.norm(K @ evecs - evecs * evals, axis=0).max(initial=0.0))
    if evecs.shape[1] != evals.shape[0] or not residual <= 1e-8 * norm:
        raise RuntimeError(
            f"the eigensolvers returned {evecs.shape[1]} eigenvectors with residual {residual:.1e} for "
            f"{evals.shape[0]} eigenvalues; please report this with your BLAS configuration."
        )


def _arpack(K, s, random_state):
    # Deterministic start vector (ARPACK's default is random): same answer on every call.
    v0 = check_random_state(random_state).uniform(-1.0, 1.0, size=K.shape[0])
    return eigsh(K, k=s, which="LA", v0=v0, tol=0.0)


#: ``top_eigenpairs(..., band=B)``: from this size on, ``solver="auto"`` first tries
#: ``lowrank_band_eigenpairs`` (measured by ``benchmarks/bench_recurrent.py``: at T = 1000 LAPACK's
#: subset driver on the whole matrix costs about the same, at T = 2000 twice as much).
BAND_MIN_N = 1500


def _solve(K, s, solver, random_state, symmetric, band):
    """The eigenpairs (in any order) by ``solver``; ``"auto"`` and the iterative solvers fall back to
    LAPACK's dense driver where they give up, with the same answer."""
    if solver == "auto" and band is not None:
        if K.shape[0] < BAND_MIN_N:
            # K + band below BAND_MIN_N: its leading eigenvalues cluster, so block Krylov would spend
            # its budget and give up (Santa Fe, T = 1000: 0.092 s against 0.071 s)
            return _dense(K, s, random_state, symmetric)
        try:
            return lowrank_band_eigenpairs(K, band, s)
        except _NotConverged:
            pass  # not low rank plus band after all, or a near-tie at s: the automatic choice
    if solver == "auto":
        solver = choose_eigen_solver(K.shape[0], s)
    if solver == "arpack":
        try:
            return _arpack(K, s, random_state)
        except ArpackNoConvergence:
            pass  # slower but always converges: the same answer
    elif solver == "block":
        try:
            return block_krylov_eigenpairs(K, s, random_state)
        except _NotConverged:
            pass  # a cluster, or too small: exact in O(n^3)
    return _dense(K, s, random_state, symmetric)


def top_eigenpairs(K, n_components, solver="auto", *, check_rank=True, random_state=0, symmetric=False,
                   band=None, fix_signs=True):
    """The ``n_components`` largest eigenpairs of a symmetric matrix, largest first.

    Solves ``K H = H Lambda``, ``H^T H = I`` for the leading eigenvalues (:eq:`eq-kpca-dual`).

    Parameters
    ----------
    K : array-like of shape (n, n)
        Symmetric matrix; an asymmetry above ``1e-8 * max|K|`` is an error.
    n_components : int
        Number ``s`` of eigenpairs, ``1 <= s <= n``.
    solver : {'auto', 'dense', 'arpack', 'block'}, default='auto'
        LAPACK's subset driver (``eigh(..., subset_by_index, driver='evr')``, its count checked),
        ARPACK (``eigsh(K, k=s, which='LA')`` from a seeded start vector, needs ``s < n``; falls back
        to dense if it does not converge), block Krylov (``block_krylov_eigenpairs``, residuals
        at LAPACK's accuracy; falls back to dense on a cluster or a small matrix), or
        :func:`choose_eigen_solver`.
    check_rank : bool, default=True
        Raise ``ValueError`` (:func:`check_leading_eigenvalues`) if a requested eigenvalue is
        numerically zero.
    random_state : int, RandomState, Generator or None, default=0
        Seed of ARPACK's start vector or of the block solver's starting block.
    symmetric : bool, default=False
        ``K`` is the caller's own float64 ndarray, built exactly symmetric (the library's matrices):
        no validation, no ``O(n^2)`` symmetry scan, and LAPACK works on ``K`` in place (it is
        restored, bit for bit, before this returns).
    band : scipy.sparse array of shape (n, n), optional
        ``K`` is a numerically low-rank PSD matrix plus this symmetric sparse band (RecurrentRKM's
        ``K + A``): for ``n >= BAND_MIN_N``, ``solver="auto"`` uses ``lowrank_band_eigenpairs``
        (residuals at LAPACK's accuracy, the leading pairs certified by an inertia count; else
        the automatic choice below), and below ``BAND_MIN_N`` the dense driver (the leading
        eigenvalues cluster, where block Krylov gives up).
    fix_signs : bool, default=True
        Fix the signs by :func:`flip_signs`; False for a caller that fixes them itself (the level
        fixes them once, on its hidden features).

    Returns
    -------
    eigenvalues : ndarray of shape (n_components,)
        Descending.
    eigenvectors : ndarray of shape (n, n_components)
        Orthonormal columns, signs fixed by :func:`flip_signs`.

    Examples
    --------
    >>> top_eigenpairs([[2.0, 0.0], [0.0, 1.0]], 1)
    (array([2.]), array([[1.],
           [0.]]))
    """
    K = K if symmetric else check_symmetric_matrix(K, "K")
    n = K.shape[0]
    s = check_n_components(n_components, n, "n_components", what="n (the size of K)")
    solver = check_option(solver, "solver", SOLVERS)
    if solver == "arpack" and s >= n:
        raise ValueError(
            f"n_components={s} is too large for solver='arpack', which needs n_components < n "
            f"(= {n}); use solver='dense' (or 'auto')."
        )
    evals, evecs = _solve(K, s, solver, random_state, symmetric, band)
    order = np.argsort(evals)[::-1]
    evals = np.ascontiguousarray(evals[order])
    evecs = flip_signs(evecs[:, order]) if fix_signs else np.ascontiguousarray(evecs[:, order])
    if check_rank:
        check_leading_eigenvalues(evals, n, s, "the (centred) kernel matrix")
    return evals, evecs
