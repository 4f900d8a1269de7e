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
from scipy.linalg.blas import dgemm
from scipy.sparse.linalg import ArpackNoConvergence, eigsh

from .._blas import product
from .._validation import array, check_n_components, check_option, check_random_state, check_square, validate

__all__ = [
    "flip_signs",
    "choose_eigen_solver",
    "rank_tolerance",
    "check_leading_eigenvalues",
    "top_eigenpairs",
    "SOLVERS",
]

SOLVERS = ("auto", "dense", "arpack", "block")

#: Symmetry tolerance: ``max|K - K^T| <= SYMMETRY_RTOL * max|K|`` is accepted (and symmetrised).
SYMMETRY_RTOL = 1e-8

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


def rank_tolerance(n):
    """Relative tolerance ``10 * n * eps`` below which an eigenvalue counts as zero.

    The backward error of a symmetric eigensolver is about ``n * eps * ||K||_2``, so smaller
    eigenvalues (and their eigenvectors) are rounding noise. For ``n = 1000`` it is ``2.2e-12``.
    """
    return 10.0 * n * np.finfo(np.float64).eps


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


class _NotConverged(Exception):
    """The block solver gave up (its work budget): the caller falls back to the dense driver."""


def _orthonormalise(Q, m, Z, rng):
    """Orthonormal basis of ``Z`` orthogonal to ``Q[:, :m]`` (block Gram-Schmidt twice, then QR).

    A direction that vanishes (the Krylov space has become invariant, e.g. an exactly repeated
    eigenvalue) is replaced by a random one, so that the basis stays orthonormal.
    """
    before = np.linalg.norm(Z, axis=0)
    for _ in range(2):  # "twice is enough" (Kahan-Parlett): orthogonal to rounding
        if m:
            Z -= product(Q[:, :m], product(Q[:, :m].T, Z))
    Z, R = np.linalg.qr(Z)
    # a direction that is rounding only (the block lost rank: an invariant subspace, a repeated
    # eigenvalue), normalised by QR, would not be orthogonal to Q: a random one replaces it
    weak = np.abs(np.diagonal(R)) <= 1e-12 * max(float(before.max(initial=0.0)), np.finfo(np.float64).tiny)
    if weak.any():
        Z[:, weak] = rng.standard_normal((Z.shape[0], int(np.count_nonzero(weak))))
        for _ in range(2):
            if m:
                Z -= product(Q[:, :m], product(Q[:, :m].T, Z))
        Z = np.linalg.qr(Z)[0]
    return Z


def block_krylov_eigenpairs(K, s, random_state=0, *, block_size=None, rtol=None, budget=None, max_basis=None):
    """The ``s`` largest eigenpairs of a symmetric ``K`` by block Lanczos with a residual check.

    A block Krylov space ``[V, K V, K^2 V, ...]`` (``b`` columns per block, fully reorthogonalised)
    with Rayleigh-Ritz after every block product, thick-restarted with its leading Ritz vectors when
    it reaches ``max(4 b, 120, 3 s + 2 b)`` columns. It stops when every wanted Ritz pair has the residual
    ``||K x - theta x|| <= rtol * theta_1`` (default ``rtol = n eps``, the backward error of
    LAPACK's own solvers, so the answer is as exact as the dense one).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric (not checked here).
    s : int
        Number of pairs, ``s <= n // 4``.
    random_state : int, RandomState, Generator or None
        Seeds the starting block.
    block_size : int, optional
        ``b``; default ``s`` clipped to [8, 16] (measured: ``b = s = 25`` gives up on a decaying
        spectrum where 16 converges in a third of ARPACK's time).
    max_basis : int, optional
        Largest Krylov basis before a thick restart (default above).
    rtol : float, optional
    budget : int, optional
        Most matrix-vector products (block columns) to spend; default ``n // 4``: about a quarter
        of the cost of LAPACK's reduction (``4/3 n^3`` flops at a third of the GEMM rate).

    Returns
    -------
    eigenvalues : ndarray of shape (s,)
        Descending.
    eigenvectors : ndarray of shape (n, s)

    Raises
    ------
    _NotConverged
        When the budget is spent, or (after a quarter of it) the residuals shrink too slowly to
        converge within three times what is left (a cluster of nearly equal eigenvalues): the
        caller uses the dense driver.
    """
    n = K.shape[0]
    # 8 to 16 columns: wide enough for a cluster at s, narrow enough for many Krylov steps per restart
    b = min(max(s, 8), 16) if block_size is None else block_size
    m_max = min(max(4 * b, 120, 3 * s + 2 * b) if max_basis is None else max_basis, n // 2)
    rtol = n * np.finfo(np.float64).eps if rtol is None else rtol
    budget = n // 4 if budget is None else budget
    if s > n // 4 or m_max < 2 * b + s:
        raise _NotConverged("matrix too small for a block Krylov space")
    rng = check_random_state(random_state)
    # Fortran order: every leading block of columns Q[:, :m] is a contiguous BLAS operand (no copies)
    Q, KQ, T = np.empty((n, m_max), order="F"), np.empty((n, m_max), order="F"), np.empty((m_max, m_max))
    Q[:, :b] = _orthonormalise(Q, 0, rng.standard_normal((n, b)), rng)
    k, m, spent, history = 0, b, 0, []
    while True:
        KQ[:, k:m] = _times_symmetric(K, Q[:, k:m])  # the one pass over K per block
        spent += m - k
        T[:m, k:m] = product(Q[:, :m].T, KQ[:, k:m])  # new columns of Q^T K Q
        T[k:m, :k] = T[:k, k:m].T
        T[k:m, k:m] = 0.5 * (T[k:m, k:m] + T[k:m, k:m].T)
        if m < 2 * (s + b) and m + b <= m_max:  # too few columns to hold s converged pairs: expand first
            Q[:, m:m + b] = _orthonormalise(Q, m, KQ[:, k:m].copy(), rng)
            k, m = m, m + b
            continue
        theta, Y = scipy.linalg.eigh(T[:m, :m], check_finite=False)
        theta, Y = theta[::-1], Y[:, ::-1]
        R = product(KQ[:, :m], Y[:, :s]) - product(Q[:, :m], Y[:, :s]) * theta[:s]
        residual = float(np.linalg.norm(R, axis=0).max()) / max(abs(float(theta[0])), np.finfo(np.float64).tiny)
        if residual <= rtol:
            return theta[:s].copy(), product(Q[:, :m], Y[:, :s])
        history.append(residual)
        if spent + b > budget or (4 * spent >= budget and _too_slow(history, rtol, (budget - spent) // b)):
            raise _NotConverged(f"residual {residual:.1e} after {spent} products")
        if m + b > m_max:  # thick restart: keep the leading Ritz vectors and their products
            keep = m_max - 2 * b
            Q[:, :keep], KQ[:, :keep] = product(Q[:, :m], Y[:, :keep]), product(KQ[:, :m], Y[:, :keep])
            T[:keep, :keep] = np.diag(theta[:keep])
            m = keep
            if s >= b:  # continue from the residuals of the b least converged wanted pairs
                Z = R[:, np.argsort(np.linalg.norm(R, axis=0))[-b:]]
            else:
                Z = np.hstack([R, KQ[:, s:b] - Q[:, s:b] * theta[s:b]])
        else:
            Z = KQ[:, m - b:m].copy()  # the next Krylov block
        Q[:, m:m + b] = _orthonormalise(Q, m, Z, rng)
        k, m = m, m + b


def _times_symmetric(K, B):
    """``K B`` for a symmetric ``K`` and a Fortran-ordered ``B``, Fortran-ordered, by one ``dgemm``.

    ``K`` C-ordered is ``K^T`` Fortran-ordered, which IS ``K``: the plain ``(n, n) x (n, b)``
    product, the shape OpenBLAS runs fastest (half the time of ``(B^T K)^T`` at n = 2000).
    """
    operand = K.T if K.flags.c_contiguous else np.asfortranarray(K)
    return dgemm(1.0, operand, np.asfortranarray(B))


def _too_slow(history, rtol, steps_left):
    """Whether the residuals, shrinking geometrically at their recent rate, miss ``rtol`` by ``steps_left``."""
    if len(history) < 4:
        return False
    rate = (history[-1] / history[-4]) ** (1.0 / 3.0)
    if rate >= 1.0:
        return len(history) >= 8  # no progress at all
    return np.log(rtol / history[-1]) / np.log(rate) > 3.0 * steps_left  # 3x: Krylov accelerates


def max_asymmetry(K, block=256):
    """``max|K - K^T|`` of a square matrix, tile by tile (cache-friendly, no n x n temporary)."""
    n = K.shape[0]
    asym = 0.0
    for i in range(0, n, block):
        for j in range(i, n, block):
            diff = K[i : i + block, j : j + block] - K[j : j + block, i : i + block].T
            asym = max(asym, float(np.abs(diff).max()))
    return asym


def symmetrize_inplace(K, block=256):
    """Replace the square matrix ``K`` by ``(K + K^T) / 2`` in place (exactly symmetric); return it.

    Tile by tile: about twice as fast as ``0.5 * (K + K.T)`` at n = 4000, no second n x n array.
    """
    n = K.shape[0]
    for i in range(0, n, block):
        diag = K[i : i + block, i : i + block]
        diag[...] = 0.5 * (diag + diag.T)
        for j in range(i + block, n, block):
            upper = K[i : i + block, j : j + block]
            lower = K[j : j + block, i : i + block]
            upper += lower.T
            upper *= 0.5
            lower[...] = upper.T
    return K


def check_symmetric_matrix(K, name="K", *, kind="(n, n) symmetric matrix", what="symmetric",
                           square_advice=" Pass the Gram matrix kernel(X) of one data set.",
                           advice="Pass a Gram matrix k(x_i, x_j), or symmetrise it with ({name} + {name}.T) / 2 "
                                  "if the asymmetry is intended rounding."):
    """Validate a square, symmetric matrix; return it exactly symmetric (copied only if needed).

    The one symmetry rule: an asymmetry up to ``SYMMETRY_RTOL * max|K|`` is rounding and is removed;
    more is an error. ``kind``, ``what`` and the advice word the messages for the caller's matrix.
    """
    K = check_square(K, name, kind=kind, advice=square_advice)
    asym = max_asymmetry(K)
    if asym == 0.0:
        return K
    scale = np.abs(K).max()
    if asym > SYMMETRY_RTOL * scale:
        raise ValueError(
            f"{name} must be {what}; max|{name} - {name}^T| = {asym:.2e} exceeds {SYMMETRY_RTOL:g} * "
            f"max|{name}| = {SYMMETRY_RTOL * scale:.2e}. {advice.format(name=name)}"
        )
    return symmetrize_inplace(K.copy())  # never modify the caller's array


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
        _mirror_lower(K)
        K[np.diag_indices(n)] = diagonal


def _mirror_lower(K, block=256):
    """Copy the strict lower triangle of the square C-ordered ``K`` onto its upper one, tile by tile."""
    n = K.shape[0]
    for i in range(0, n, block):
        diag = K[i : i + block, i : i + block]
        upper = np.triu_indices(diag.shape[0], 1)
        diag[upper] = diag.T[upper]
        for j in range(i + block, n, block):
            K[i : i + block, j : j + block] = K[j : j + block, i : i + block].T


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


def top_eigenpairs(K, n_components, solver="auto", *, check_rank=True, random_state=0, symmetric=False,
                   fix_signs=True):
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
    if solver == "auto":
        solver = choose_eigen_solver(n, s)
    if solver == "arpack" and s >= n:
        raise ValueError(
            f"n_components={s} is too large for solver='arpack', which needs n_components < n "
            f"(= {n}); use solver='dense' (or 'auto')."
        )
    if solver == "arpack":
        try:
            evals, evecs = _arpack(K, s, random_state)
        except ArpackNoConvergence:
            evals, evecs = _dense(K, s, random_state, symmetric)  # slower but always converges: same answer
    elif solver == "block":
        try:
            evals, evecs = block_krylov_eigenpairs(K, s, random_state)
        except _NotConverged:
            evals, evecs = _dense(K, s, random_state, symmetric)  # a cluster, or too small: exact in O(n^3)
    else:
        evals, evecs = _dense(K, s, random_state, symmetric)
    order = np.argsort(evals)[::-1]
    evals = np.ascontiguousarray(evals[order])
    evecs = flip_signs(evecs[:, order]) if fix_signs else np.ascontiguousarray(evecs[:, order])
    if check_rank:
        check_leading_eigenvalues(evals, n, s, "the (centred) kernel matrix")
    return evals, evecs
