"""Iterative eigensolvers behind :func:`rkmlearn.solvers.eigen.top_eigenpairs`, each with a residual check.

* :func:`block_krylov_eigenpairs`: block Lanczos for the ``s`` leading eigenpairs of a dense
  symmetric ``K`` (one pass over ``K`` per block of vectors, where ARPACK makes one per vector).
* :func:`lowrank_band_eigenpairs`: the same for ``M = K + B`` with ``K`` numerically low rank
  (a kernel matrix) and ``B`` a sparse band (RecurrentRKM's ``K + A``, :eq:`eq-rrkm-eig`), whose
  leading eigenvalues cluster within ``1e-5`` where Krylov methods stall.

Both answer to LAPACK's accuracy (residuals ``<= n eps`` of the largest eigenvalue) or raise
``_NotConverged``, and the caller falls back to the dense driver.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse
from scipy.linalg.blas import dgemm

from .._blas import product
from .._validation import check_random_state

__all__ = ["block_krylov_eigenpairs", "lowrank_band_eigenpairs"]


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
    K : ndarray of shape (n, n), or an operator
        Symmetric (not checked here); an operator has ``shape`` and ``matmat(V) = K V``
        (:mod:`rkmlearn.solvers.operator`: a matrix-free level).
    s : int
        Number of pairs, ``s <= n // 4``.
    random_state : int, RandomState, Generator or None
        Seeds the starting block.
    block_size : int, optional
        ``b``; default 8 for ``s <= 20``, else 16. Measured (``benchmarks/bench_eigensolvers.py
        --block-sizes``, RBF Gram, one thread): for ``s = 10..20``, ``b = 8`` is 20-28 % faster than the
        former ``b = min(s, 16)`` at n = 2000 and between 2 % slower and 11 % faster at n = 5000;
        beyond ``s = 20`` a wider block wins (``b = s = 25`` gives up on a decaying spectrum where 16
        converges in a third of ARPACK's time).
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
    # 8 or 16 columns: wide enough for a cluster at s, narrow enough for many Krylov steps per restart
    b = (8 if s <= 20 else 16) if block_size is None else block_size
    m_max = min(max(4 * b, 120, 3 * s + 2 * b) if max_basis is None else max_basis, n // 2)
    rtol = n * np.finfo(np.float64).eps if rtol is None else rtol
    budget = n // 4 if budget is None else budget
    if s > n // 4 or m_max < 2 * b + s:
        raise _NotConverged("matrix too small for a block Krylov space")
    rng = check_random_state(random_state)
    # Fortran order: every leading block of columns Q[:, :m] is a contiguous BLAS operand (no copies)
    Q, KQ, T = np.empty((n, m_max), order="F"), np.empty((n, m_max), order="F"), np.empty((m_max, m_max))
    Q[:, :b] = _orthonormalise(Q, 0, rng.standard_normal((n, b)), rng)
    k, m, spent, history, check_at = 0, b, 0, [], 0
    while True:
        KQ[:, k:m] = _times_symmetric(K, Q[:, k:m])  # the one pass over K per block
        spent += m - k
        T[:m, k:m] = product(Q[:, :m].T, KQ[:, k:m])  # new columns of Q^T K Q
        T[k:m, :k] = T[:k, k:m].T
        T[k:m, k:m] = 0.5 * (T[k:m, k:m] + T[k:m, k:m].T)
        expand = m < 2 * (s + b) or spent < check_at  # too few columns for s pairs, or surely not converged yet
        if expand and m + b <= m_max and spent + b <= budget:
            Q[:, m:m + b] = _orthonormalise(Q, m, KQ[:, k:m].copy(), rng)
            k, m = m, m + b
            continue
        theta, Y = scipy.linalg.eigh(T[:m, :m], check_finite=False)
        theta, Y = theta[::-1], Y[:, ::-1]
        R = product(KQ[:, :m], Y[:, :s]) - product(Q[:, :m], Y[:, :s]) * theta[:s]
        residual = float(np.linalg.norm(R, axis=0).max()) / max(abs(float(theta[0])), np.finfo(np.float64).tiny)
        if residual <= rtol:
            return theta[:s].copy(), product(Q[:, :m], Y[:, :s])
        history.append((spent, residual))
        if spent + b > budget or (4 * spent >= budget and _too_slow(history, rtol, budget - spent)):
            raise _NotConverged(f"residual {residual:.1e} after {spent} products")
        check_at = _next_check(history, rtol, b)
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
    if not isinstance(K, np.ndarray):  # an operator (matrix-free level): the products computed on the fly
        return np.asfortranarray(K.matmat(B))
    operand = K.T if K.flags.c_contiguous else np.asfortranarray(K)
    return dgemm(1.0, operand, np.asfortranarray(B))


def _rate(history, back):
    """The residuals' geometric rate per product over the last ``back`` checks (``history`` holds
    ``(products spent, residual)`` pairs)."""
    (spent0, r0), (spent1, r1) = history[-1 - back], history[-1]
    return (r1 / r0) ** (1.0 / max(spent1 - spent0, 1))


def _too_slow(history, rtol, products_left):
    """Whether the residuals, shrinking geometrically at their recent rate, miss ``rtol`` by ``products_left``."""
    if len(history) < 4:
        return False
    rate = _rate(history, 3)
    if rate >= 1.0:
        return len(history) >= 8  # no progress at all
    return np.log(rtol / history[-1][1]) / np.log(rate) > 3.0 * products_left  # 3x: Krylov accelerates


def _next_check(history, rtol, b):
    """The product count before which the residuals cannot reach ``rtol`` (no Rayleigh-Ritz needed).

    Extrapolates the last two checks' geometric rate and waits for half the products it predicts
    (Krylov convergence accelerates; a check costs an ``m x m`` eigendecomposition and two
    ``n x m`` by ``m x s`` products, and at n = 2000 a third of the checks are saved)."""
    if len(history) < 2:
        return 0
    rate = _rate(history, 1)
    if not 0.0 < rate < 1.0:
        return 0
    needed = np.log(rtol / history[-1][1]) / np.log(rate)
    return history[-1][0] + int(0.5 * needed) - b



def lowrank_band_eigenpairs(M, band, s, *, rtol=None, max_rank=None, sweeps=10):
    """The ``s`` largest eigenpairs of ``M = K + B``, ``K`` PSD and numerically low rank, ``B`` a sparse band.

    RecurrentRKM's ``K + A`` (:eq:`eq-rrkm-eig`): its eigenvalues 8-13 lie within ``1e-5`` of
    each other (the top of the band's spectrum, barely lifted by ``K``), where ARPACK needs
    thousands of products and block Krylov gives up. Here:

    1. ``K = M - B ~ F F^T`` by a partial pivoted Cholesky (``O(n r^2)``, ``r`` columns of ``K``;
       Santa Fe: ``r ~ 20``), stopped when the remaining diagonal is ``<= eps max diag(K)``;
    2. a start: the leading ``s + r + 8`` eigenvectors of ``B`` (LAPACK's banded solver) and ``F``;
    3. sweeps of Rayleigh-Ritz with the EXACT ``M`` (one ``n x n`` by ``n x 2s`` product) and one
       step of Rayleigh quotient iteration per wanted pair, ``(B + F F^T - theta I)^{-1} v`` by
       Woodbury (banded solves, an ``r x r`` system): cubic convergence, the cluster resolved;
    4. a certificate that the converged pairs are the LEADING ``s``: ``M - B - F F^T`` is PSD with
       norm ``<= eps_F`` (the remaining trace), so ``M`` has no more than
       ``#{eig(B + F F^T) > sigma - eps_F}`` eigenvalues above ``sigma``, counted by Sylvester's
       inertia (Haynsworth: ``#{eig(B - t) > 0} + #{eig(I + F^T (B - t)^{-1} F) < 0}``).

    Parameters
    ----------
    M : ndarray of shape (n, n)
        Exactly symmetric (not checked), ``K + band``.
    band : scipy.sparse array of shape (n, n)
        Symmetric, nonzero only within ``p << n`` diagonals of the main one.
    s : int
    rtol : float, optional
        Residual bound relative to the largest eigenvalue; default ``n eps``.
    max_rank : int, optional
        Most columns of ``F``; default ``min(n // 8, 200)``.
    sweeps : int, default=10

    Returns
    -------
    eigenvalues, eigenvectors : ndarray of shape (s,) and (n, s)
        As :func:`block_krylov_eigenpairs` returns them (eigenvalues descending).

    Raises
    ------
    _NotConverged
        ``K`` is not low rank, the band is wide, the residuals do not reach ``rtol``, or the count
        does not certify the leading ``s``: the caller uses the dense driver.
    """
    n = M.shape[0]
    eps = np.finfo(np.float64).eps
    rtol = n * eps if rtol is None else rtol
    max_rank = min(n // 8, 200) if max_rank is None else max_rank
    dia = scipy.sparse.dia_array(band)
    p = int(np.abs(dia.offsets).max(initial=0))
    if p > n // 8 or s + 1 > n // 4:
        raise _NotConverged("band too wide or too many pairs")
    bands = np.zeros((2 * p + 1, n))  # LAPACK band storage: bands[p + i - j, j] = B[i, j]
    for offset, values in zip(dia.offsets, dia.data):  # dia: data[k, j] = B[j - offset_k, j]
        bands[p - offset] += values
    F, eps_F = _partial_cholesky(M, dia.tocsr(), bands[p], max_rank)
    q = min(s + F.shape[1] + 8, n - 1)
    mu = _top_band_eigenvalues(bands, q)
    W = np.hstack([_inverse_iteration(bands, mu), F])
    for _ in range(sweeps):
        Q = np.linalg.qr(W)[0]
        MQ = product(M, Q)  # the exact matrix: Rayleigh-Ritz and residuals are M's own
        G = product(Q.T, MQ)
        theta, Y = scipy.linalg.eigh(0.5 * (G + G.T), check_finite=False)
        theta, Y = theta[::-1], Y[:, ::-1]
        V = product(Q, Y[:, :s])
        R = product(MQ, Y[:, :s]) - V * theta[:s]
        top = max(abs(float(theta[0])), np.finfo(np.float64).tiny)
        residual = float(np.linalg.norm(R, axis=0).max())
        if residual <= rtol * top:
            # below theta_s by more than the residual and the neglected part of K: no eigenvalue of M
            # between sigma and theta_s is missed; a near-tie with theta_{s+1} is left to LAPACK
            margin = max(1e-3 * (theta[s - 1] - theta[s]), 10.0 * (residual + eps_F), 100 * eps * top)
            if _count_above(bands, mu, F, theta[s - 1] - margin - eps_F) != s:
                raise _NotConverged("the count does not certify the leading pairs")
            return theta[:s].copy(), V
        W = np.hstack([V, _rqi_step(bands, F, V, theta[:s])])
    raise _NotConverged(f"residual {residual:.1e} after {sweeps} sweeps")


def _partial_cholesky(M, band, band_diagonal, max_rank):
    """``F`` with ``M - band ~ F F^T`` (pivoted, ``O(n r^2)``) and the trace it leaves out (a bound on
    the norm of the PSD remainder)."""
    n = M.shape[0]
    d = np.diagonal(M) - band_diagonal
    tol = np.finfo(np.float64).eps * max(float(d.max(initial=0.0)), np.finfo(np.float64).tiny)
    F = np.zeros((n, max_rank))
    for k in range(max_rank + 1):
        i = int(np.argmax(d))
        if d[i] <= tol:
            return F[:, :k].copy(), float(np.clip(d, 0.0, None).sum())
        if k == max_rank:
            break
        column = M[i] - band[[i]].toarray()[0] - F[:, :k] @ F[i, :k]  # row i = column i (symmetric)
        F[:, k] = column / np.sqrt(d[i])
        d -= F[:, k] ** 2
        d[i] = 0.0
    raise _NotConverged(f"K is not of rank <= {max_rank}")


def _shifted(bands, shift):
    p = bands.shape[0] // 2
    shifted = bands.copy()
    shifted[p] -= shift
    return shifted


def _rqi_step(bands, F, V, theta):
    """``(B + F F^T - theta_i I)^{-1} v_i`` per column, normalised (Woodbury on the banded ``B``)."""
    p, r = bands.shape[0] // 2, F.shape[1]
    Z = np.empty_like(V)
    for i in range(V.shape[1]):
        try:
            solved = scipy.linalg.solve_banded((p, p), _shifted(bands, theta[i]), np.column_stack([V[:, i], F]),
                                               check_finite=False)
            z = solved[:, 0]
            if r:
                BiF = solved[:, 1:]
                z = z - BiF @ np.linalg.solve(np.eye(r) + F.T @ BiF, F.T @ z)
        except (np.linalg.LinAlgError, ValueError):  # theta_i an eigenvalue of B: keep v_i
            z = V[:, i]
        norm = np.linalg.norm(z)
        Z[:, i] = z / norm if np.isfinite(norm) and norm > 0 else V[:, i]
    return Z


def _top_band_eigenvalues(bands, q):
    """The ``q`` largest eigenvalues of the band, descending (bisection: no eigenvectors, no n x n array)."""
    p, n = bands.shape[0] // 2, bands.shape[1]
    if p == 1:  # tridiagonal (RecurrentRKM's p = 1): LAPACK's bisection directly
        mu = scipy.linalg.eigvalsh_tridiagonal(bands[1], bands[0, 1:], select="i", select_range=(n - q, n - 1),
                                               check_finite=False, lapack_driver="stebz")
    else:
        mu = scipy.linalg.eig_banded(bands[: p + 1], eigvals_only=True, select="i", select_range=(n - q, n - 1),
                                     check_finite=False)
    return mu[::-1].copy()


def _inverse_iteration(bands, mu):
    """Approximate eigenvectors of the band for its eigenvalues ``mu``: one shifted solve each, from
    a fixed start (near-exact shifts: the solve is the eigenvector, or a mix within a cluster of
    the band's eigenvalues, which spans the same space)."""
    p, n = bands.shape[0] // 2, bands.shape[1]
    start = np.cos(np.arange(n) * 0.7548776662466927) + 0.5  # deterministic, no symmetry of the band's vectors
    scale = max(float(np.abs(mu).max(initial=0.0)), np.finfo(np.float64).tiny)
    Z = np.empty((n, mu.shape[0]))
    for j, m in enumerate(mu):
        try:
            z = scipy.linalg.solve_banded((p, p), _shifted(bands, m + 1e-10 * scale), start, check_finite=False)
        except (np.linalg.LinAlgError, ValueError):
            z = start
        norm = np.linalg.norm(z)
        Z[:, j] = z / norm if np.isfinite(norm) and norm > 0 else start / np.linalg.norm(start)
    return Z


def _count_above(bands, mu, F, sigma):
    """The number of eigenvalues of ``B + F F^T`` above ``sigma`` (Sylvester's inertia, Haynsworth), or
    at least ``len(mu) + 1`` when ``sigma`` is below the band's ``len(mu)`` largest eigenvalues ``mu``."""
    p, r = bands.shape[0] // 2, F.shape[1]
    above = int(np.count_nonzero(mu > sigma))
    if above == mu.shape[0]:  # more of the band's eigenvalues above sigma than computed
        return above + 1
    if r == 0:
        return above
    try:
        BiF = scipy.linalg.solve_banded((p, p), _shifted(bands, sigma), F, check_finite=False)
    except (np.linalg.LinAlgError, ValueError):
        return -1  # sigma an eigenvalue of B: no certificate
    C = np.eye(r) + F.T @ BiF
    return above + int(np.count_nonzero(np.linalg.eigvalsh(0.5 * (C + C.T)) < 0))
