"""Eigensolvers for the few leading eigenpairs of a symmetric (kernel) matrix.

Kernel PCA in its dual form (:eq:`eq-kpca-dual`, Chapter 1, *Kernels, feature maps and conjugate
feature duality*) needs the ``s`` largest eigenpairs of the ``N x N`` centred Gram matrix, with
``s`` usually much smaller than ``N``. A full eigendecomposition costs ``O(N^3)`` and computes
``N - s`` pairs that are thrown away; :func:`top_eigenpairs` computes only the ``s`` wanted ones,
either with LAPACK's subset driver or with ARPACK (Lanczos iterations, ``O(N^2)`` per step), and
picks between them with :func:`choose_eigen_solver`.

Conventions fixed for the whole library
---------------------------------------
* Eigenvalues are returned in DESCENDING order.
* Sign convention (:func:`flip_signs`): every eigenvector column is flipped so that its entry of
  largest absolute value is positive (the first such entry on ties). Eigenvectors are otherwise
  defined only up to sign, and the sign would depend on the solver and the BLAS library.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import ArpackNoConvergence, eigsh

from ._validation import check_array, check_n_components, check_random_state

__all__ = [
    "flip_signs",
    "choose_eigen_solver",
    "rank_tolerance",
    "check_leading_eigenvalues",
    "top_eigenpairs",
    "SOLVERS",
]

SOLVERS = ("auto", "dense", "arpack")

#: Symmetry tolerance: ``max|K - K^T| <= SYMMETRY_RTOL * max|K|`` is accepted (and symmetrised).
SYMMETRY_RTOL = 1e-8


def flip_signs(V, *, return_signs=False):
    """Flip each column so that its entry of largest absolute value is positive.

    The library's deterministic sign convention for eigenvectors and hidden features (ties: the
    first entry of largest absolute value decides).

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
    >>> flip_signs([[1.0, 0.5], [-2.0, 0.1]])
    array([[-1. ,  0.5],
           [ 2. ,  0.1]])
    """
    V = check_array(V, "V")
    rows = np.argmax(np.abs(V), axis=0)  # argmax returns the first maximum on ties
    signs = np.sign(V[rows, np.arange(V.shape[1])])
    signs[signs == 0] = 1.0  # an all-zero column stays as it is
    V = V * signs
    return (V, signs) if return_signs else V


def rank_tolerance(n):
    """Relative tolerance ``10 * n * eps`` below which an eigenvalue counts as zero.

    An eigenvalue ``lambda_i <= rank_tolerance(n) * lambda_max`` is numerically zero: the
    backward error of a symmetric eigensolver is about ``n * eps * ||K||_2``, so smaller
    eigenvalues (and their eigenvectors) are rounding noise. For ``n = 1000`` this is about
    ``2.2e-12``.
    """
    return 10.0 * n * np.finfo(np.float64).eps


def check_leading_eigenvalues(values, n, n_components, what):
    """Raise ``ValueError`` if one of the requested leading eigenvalues is numerically zero.

    A zero eigenvalue has no hidden feature (``h = Lambda^{-1} H^T k_c``): below
    ``rank_tolerance(n) * lambda_max`` an eigenvalue is indistinguishable from rounding error, so
    ``n_components`` exceeds the numerical rank. Used after iterative (Stiefel) solutions, whose
    Ritz values are checked the way :func:`top_eigenpairs` checks its own.

    Parameters
    ----------
    values : ndarray of shape (n_components,)
        Eigenvalues, descending.
    n : int
        Size of the matrix they come from.
    n_components : int
        The requested number, named in the message.
    what : str
        The matrix, for the message (e.g. ``"the centred kernel matrix"``).
    """
    floor = rank_tolerance(n) * max(float(values[0]), 0.0)
    bad = np.flatnonzero(values <= floor)
    if bad.size and bad[0] == 0:
        raise ValueError(
            f"n_components={n_components} exceeds the numerical rank 0 of {what}: it has no positive "
            "eigenvalue (e.g. all samples are identical in feature space). Check the data and the "
            "kernel parameters."
        )
    if bad.size:
        raise ValueError(
            f"n_components={n_components} exceeds the numerical rank of {what}: eigenvalue "
            f"{bad[0] + 1} is {values[bad[0]]:.3e}, numerically zero. Use n_components <= {bad[0]} "
            "(or a kernel/feature map of higher rank)."
        )


def choose_eigen_solver(n, s):
    """The solver that ``top_eigenpairs(solver="auto")`` uses for ``s`` of ``n`` eigenpairs.

    Rule: ``'arpack'`` when ``n >= 500`` and ``s <= min(n // 40, 50)``, else ``'dense'``.

    Why: ARPACK (Lanczos) needs a few dozen ``O(n^2)`` matrix-vector products for a handful of
    well-separated leading eigenpairs, but its cost explodes when many pairs are wanted
    (``ncv = 2 s + 1`` Lanczos vectors, ``O(n ncv^2)`` work per restart and many restarts when the
    requested eigenvalues are small and clustered, as for the fast-decaying spectra of smooth
    kernels). LAPACK's subset driver (``evr``) pays a fixed ``O(n^3)`` tridiagonal reduction and
    is then almost independent of ``s``. Below ``n = 500`` everything takes milliseconds.

    Measured by ``benchmarks/bench_eigensolvers.py`` (centred RBF Gram matrices, median-heuristic
    bandwidth, 2 CPU cores shared with other jobs, so single timings are noisy; seconds, best of
    3 for ``n <= 1000``):

    ========  =====  ====  ========  ========
    data        n     s     dense     arpack
    ========  =====  ====  ========  ========
    random     1000    20    0.071     0.080
    random     1000    50    0.25      0.79
    random     2000    50    0.64      0.39
    random     2000   100    0.67      2.08
    random     4000    10    4.75      0.63
    random     4000    50    8.43      1.12
    random     4000   100    4.86     11.2
    random     4000   200    6.21     16.3
    moons       500    20    0.019     0.010
    moons       500   200    0.094     2.33
    moons      1000    50    0.097     0.151
    moons      2000    50    0.62      0.28
    moons      2000   200    0.75     20.5
    moons      4000    10    4.33      0.55
    moons      4000    50    4.87      1.08
    moons      4000   100    4.90      6.30
    moons      4000   200    4.07    104.5
    ========  =====  ====  ========  ========

    Over the whole grid (``n`` in {500, 1000, 2000, 4000}, ``s`` in {1, 2, 5, 10, 20, 50, 100,
    200}, both data sets; 64 cases) the rule picks the faster solver in 59 cases; the misses are
    at ``n <= 1000``, where it is at most 1.9x (9 ms) slower. A rule on the ratio alone,
    ``s <= n // 10``, would be up to 27x slower (``n = 4000, s = 200`` on moons: ARPACK 104 s vs
    4 s), hence the cap of 50. ARPACK is never used for ``s >= n`` (it cannot compute all
    eigenpairs). For reference, the issue that motivated this function reported 0.28 s (ARPACK)
    vs 2.6 s (subset ``eigh``) at ``n = 4000, s = 10`` on an idle machine; same ratio as here.

    Parameters
    ----------
    n : int
        Size of the matrix.
    s : int
        Number of leading eigenpairs wanted.

    Returns
    -------
    solver : {'dense', 'arpack'}
    """
    if n >= 500 and s <= min(n // 40, 50):
        return "arpack"
    return "dense"


def max_asymmetry(K, block=256):
    """Return ``max|K - K^T|`` of a square matrix, tile by tile.

    Reading ``block x block`` tiles keeps the transposed reads in cache and needs no n x n
    temporary: a kernel matrix made by :mod:`rkmlearn.kernels` is exactly symmetric, and checking
    that must cost much less than the eigensolver that follows.
    """
    n = K.shape[0]
    asym = 0.0
    for i in range(0, n, block):
        for j in range(i, n, block):
            diff = K[i : i + block, j : j + block] - K[j : j + block, i : i + block].T
            asym = max(asym, float(np.abs(diff).max()))
    return asym


def symmetrize_inplace(K, block=256):
    """Replace the square matrix ``K`` by ``(K + K^T) / 2`` in place and return it.

    The result is exactly symmetric in floating point (addition is commutative). Working on
    ``block x block`` tiles keeps the transposed reads in cache: about twice as fast as
    ``0.5 * (K + K.T)`` for n = 4000 and no second n x n array.
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


def _check_symmetric_matrix(K, name="K"):
    """Validate a square, symmetric matrix; return it exactly symmetric (copied only if needed)."""
    K = check_array(K, name)
    n, m = K.shape
    if n != m:
        raise ValueError(
            f"{name} must be a square (n, n) symmetric matrix; got shape {K.shape}. Pass the "
            "Gram matrix kernel(X) of one data set."
        )
    asym = max_asymmetry(K)
    if asym == 0.0:
        return K
    scale = np.abs(K).max()
    if asym > SYMMETRY_RTOL * scale:
        raise ValueError(
            f"{name} must be symmetric; max|K - K^T| = {asym:.2e} exceeds {SYMMETRY_RTOL:g} * "
            f"max|K| = {SYMMETRY_RTOL * scale:.2e}. Pass a Gram matrix k(x_i, x_j), or "
            "symmetrise it with (K + K.T) / 2 if the asymmetry is intended rounding."
        )
    return symmetrize_inplace(K.copy())  # never modify the caller's array


def _dense(K, s):
    n = K.shape[0]
    evals, evecs = scipy.linalg.eigh(
        K, subset_by_index=[n - s, n - 1], driver="evr", check_finite=False
    )
    return evals, evecs


def _arpack(K, s, random_state):
    n = K.shape[0]
    # Deterministic start vector (ARPACK's default is random): same answer on every call.
    v0 = check_random_state(random_state).uniform(-1.0, 1.0, size=n)
    return eigsh(K, k=s, which="LA", v0=v0, tol=0.0)


def top_eigenpairs(K, n_components, solver="auto", *, check_rank=True, random_state=0):
    """The ``n_components`` largest eigenpairs of a symmetric matrix, largest first.

    Solves ``K H = H Lambda``, ``H^T H = I`` for the leading eigenvalues, as needed by the dual
    kernel PCA problem :eq:`eq-kpca-dual` (Chapter 1, *Kernels, feature maps and conjugate
    feature duality*), without a full eigendecomposition.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Symmetric matrix (e.g. a centred Gram matrix). It is symmetrised as ``(K + K^T) / 2``;
        an asymmetry larger than ``1e-8 * max|K|`` is an error.
    n_components : int
        Number ``s`` of eigenpairs, ``1 <= s <= n``.
    solver : {'auto', 'dense', 'arpack'}, default='auto'
        ``'dense'``: LAPACK's subset driver,
        ``scipy.linalg.eigh(K, subset_by_index=[n - s, n - 1], driver='evr')``.
        ``'arpack'``: ``scipy.sparse.linalg.eigsh(K, k=s, which='LA')`` from a seeded start
        vector (requires ``s < n``); should ARPACK not converge, the dense solver is used.
        ``'auto'``: :func:`choose_eigen_solver` (benchmarked rule).
    check_rank : bool, default=True
        Raise a ``ValueError`` if a requested eigenvalue is ``<= rank_tolerance(n) * lambda_max``
        (``rank_tolerance(n) = 10 * n * eps``), i.e. ``n_components`` exceeds the numerical rank
        of ``K``: such eigenvectors are rounding noise. A centred Gram matrix has rank at most
        ``N - 1``.
    random_state : int, RandomState instance or None, default=0
        Seed of ARPACK's start vector. The default makes results reproducible bit for bit.

    Returns
    -------
    eigenvalues : ndarray of shape (n_components,)
        In descending order.
    eigenvectors : ndarray of shape (n, n_components)
        Orthonormal columns, column ``j`` for ``eigenvalues[j]``, signs fixed by
        :func:`flip_signs`.

    Examples
    --------
    >>> top_eigenpairs([[2.0, 0.0], [0.0, 1.0]], 1)
    (array([2.]), array([[1.],
           [0.]]))
    """
    K = _check_symmetric_matrix(K, "K")
    n = K.shape[0]
    s = check_n_components(n_components, n, "n_components", what="n (the size of K)")
    if solver not in SOLVERS:
        raise ValueError(f"solver must be one of {list(SOLVERS)}; got {solver!r}.")
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
            evals, evecs = _dense(K, s)  # slower but always converges: same answer
    else:
        evals, evecs = _dense(K, s)

    order = np.argsort(evals)[::-1]
    evals = np.ascontiguousarray(evals[order])
    evecs = flip_signs(evecs[:, order])

    if check_rank:
        tol = rank_tolerance(n)
        threshold = tol * max(evals[0], 0.0)
        rank = int(np.count_nonzero(evals > threshold))
        if rank < s:
            if rank == 0:
                raise ValueError(
                    f"n_components={s} exceeds the numerical rank 0 of the (centred) kernel "
                    "matrix: it has no positive eigenvalue (a constant kernel matrix has rank 0 "
                    "after centring). Check the kernel and its parameters."
                )
            raise ValueError(
                f"n_components={s} exceeds the numerical rank {rank} of the (centred) kernel "
                f"matrix (eigenvalues <= {tol:.1e} * largest count as zero); use "
                f"n_components <= {rank}."
            )
    return evals, evecs
