"""A centred kernel matrix as products, a tile at a time: the matrix-free dual level (issue 33).

A dual level needs only products ``K_c V`` with a block ``V`` (n, b) of vectors
(:func:`~rkmlearn.solvers.operator.operator_eigenpairs`), ``K_c = sum_v M_c K_v M_c``
(:eq:`eq-centering-train`, summed over the views of a multi-view level). They are formed over the
UPPER triangle in ``TILE x TILE`` tiles: each tile ``T = K[R, C]`` is computed (one BLAS product and
an ``exp`` for RBF), centred as the dense path centres it, ``T - (r_R 1^T + 1 r_C^T - g)``, used twice
(``Y[R] += T V[C]`` and, off the diagonal, ``Y[C] += T^T V[R]``) and dropped. Memory ``n b`` plus a
tile per thread; work per product ``n^2 / 2`` kernel values, whatever ``b``. The row means ``r_v``
(and ``g_v``, their mean) come from ONE pass of row sums before the first product; centring the
tiles themselves, not ``V`` and ``K V`` (``M_c K (M_c V)``), keeps the products' rounding at the
level of ``K_c``: the uncentred ``K`` of a wide RBF has a top eigenvalue ``~ n``, 30 times ``K_c``'s,
and its rounding would stall the solver's residuals above ``n eps``.

A strip of rows of the upper triangle (:func:`upper_strip_products`) is independent of the others:
locally the strips run on threads; with a Dask input (chunked by rows) each chunk's strip is one
Dask task, its ``(n - start) x b`` result summed here, so a ``distributed`` cluster computes them.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from .._validation import is_dask
from .zoo import RBF

__all__ = ["CentredGramOperator", "upper_strip_products", "kernel_diagonal", "dense_gram_bytes", "GRAM_BYTES", "TILE"]

#: Tile edge of the products: 512 x 512 float64 (2 MB, in a core's L2/L3 cache). Measured (RBF, d = 20,
#: n = 8192, b = 8, one thread): 4.9 ns an upper-triangle entry, against 5.6 (1024) and 7.6 (2048).
TILE = 512
#: A dual level whose dense matrices would take more than this (:func:`dense_gram_bytes`) is solved
#: matrix-free (the ``gram_budget`` of :func:`rkmlearn.level.solve_level`). 4 GiB: n = 23,170 for one
#: view. Below it the dense path (one kernel evaluation, then BLAS passes over memory) is the faster
#: one, and every stored result stays bit for bit; benchmarks/bench_matrix_free.py, n = 20,000, RBF,
#: d = 20, s = 10, 2 BLAS threads: matrix-free 15.9 s CPU, 0.29 GB peak; dense 14.2 s, 3.43 GB.
GRAM_BYTES = 4 * 2**30
#: Strips of the upper triangle (equal work each) a local product is split into: they run on as many
#: threads as BLAS may use (``OPENBLAS_NUM_THREADS``, threadpoolctl; NumPy's BLAS and ``exp`` release
#: the GIL, SciPy's BLAS does not), each tile's BLAS call on one, and are summed in this fixed order,
#: so that the result does not depend on the number of threads.
STRIPS = 8


def dense_gram_bytes(n, n_views):
    """Bytes of the dense dual path's ``n x n`` arrays: one per view, plus their sum for several views."""
    return 8 * n * n * (1 if n_views == 1 else n_views + 1)


def upper_strip_products(kernels, Xs, V, rows, centre=None):
    """Rows ``[0, rows)`` of the upper triangle of ``K = sum_v K_v(Xs[v])`` times ``V``, tile by tile.

    Returns ``Z`` (m, b), ``m = len(Xs[0])``: ``Z[:rows]`` holds the strip's entries times ``V`` and
    ``Z[rows:]`` the mirrored ``K[:rows, rows:]^T V[:rows]``; summed over the strips of a matrix (each
    given the rows from its start on) they are ``K V``. ``centre = (r, g)``: the tiles are centred,
    ``K - (r_i + r_j - g)`` (``r`` of the same rows as ``Xs``), so the product is ``K_c V``. ``V = None``:
    the row sums of each ``K_v`` over the same entries instead, (V, m).
    """
    m = Xs[0].shape[0]
    blocks = [kernel.blocks(X, multiply=np.matmul) if isinstance(kernel, RBF) else kernel.blocks(X)
              for kernel, X in zip(kernels, Xs)]
    Z = np.zeros((len(kernels), m) if V is None else (m, V.shape[1]))
    for i in range(0, rows, TILE):
        R = slice(i, min(i + TILE, rows))
        # the diagonal tile R x R (exact diagonal), then the tiles to its right
        for C in [R] + [slice(j, min(j + TILE, m)) for j in range(R.stop, m, TILE)]:
            tiles = [block(R, C) for block in blocks]
            if V is None:
                for v, T in enumerate(tiles):
                    Z[v, R] += T.sum(axis=1)
                    if C is not R:
                        Z[v, C] += T.sum(axis=0)
                continue
            T = tiles[0] if len(tiles) == 1 else sum(tiles)
            if centre is not None:
                r, g = centre
                offset = np.add.outer(r[R], r[C])  # the dense centring's offset, GramCenterer's formula
                offset -= g
                T -= offset
            Z[R] += T @ V[C]  # NumPy's BLAS: it releases the GIL
            if C is not R:
                Z[C] += T.T @ V[R]
    return Z


class CentredGramOperator:
    """``K_c = sum_v M_c K_v M_c`` of kernels on inputs, as products (see the module's note).

    Parameters
    ----------
    kernels : list of Kernel
    Xs : list of ndarray or dask.array of shape (n, d_v)
        The inputs of each kernel (the features of an explicit view with the linear kernel). Dask
        arrays (one view, chunked by rows): each chunk's strip of tiles is a Dask task.
    row_means : list of ndarray of shape (n,), optional
        ``r_v`` when known; else one pass computes them before the first product.

    Attributes
    ----------
    shape : (n, n)
    row_means : list of ndarray or None
    passes : int
        Passes over the tiles (the row sums, then one per product).

    Examples
    --------
    >>> import numpy as np
    >>> from rkmlearn.kernels import RBF
    >>> X = np.random.default_rng(0).normal(size=(50, 2))
    >>> K = RBF(1.0)(X)
    >>> K_c = K - K.mean(axis=0) - K.mean(axis=1)[:, None] + K.mean()
    >>> operator = CentredGramOperator([RBF(1.0)], [X])
    >>> bool(np.allclose(operator.matmat(X), K_c @ X)), operator.passes
    (True, 2)
    """

    def __init__(self, kernels, Xs, row_means=None):
        self.kernels, self.Xs, self.row_means = list(kernels), list(Xs), row_means
        n = Xs[0].shape[0]
        self.shape, self.passes = (n, n), 0
        self._workers = _blas_threads()  # read before the products limit BLAS to one thread

    def matmat(self, V):
        """``K_c V`` (n, b) for ``V`` (n, b)."""
        r = sum(self._means())  # of K = sum_v K_v; g likewise
        Y = self._strips(np.asarray(V, dtype=np.float64), (r, float(sum(m.mean() for m in self.row_means))))
        self.passes += 1
        return Y

    def view(self, v):
        """The operator of view ``v`` alone (``K_{v,c}``), with its statistics."""
        means = None if self.row_means is None else [self.row_means[v]]
        return CentredGramOperator([self.kernels[v]], [self.Xs[v]], means)

    def _strips(self, V, centre=None):
        """The strips of :func:`upper_strip_products`, summed: ``K_c V``, or the row sums (``V = None``)."""
        n = self.shape[0]
        if is_dask(self.Xs[0]):  # one Dask task per chunk of rows
            import dask

            starts = np.concatenate([[0], np.cumsum(self.Xs[0].chunks[0])]).astype(int)
            spans = [(a, b) for a, b in zip(starts[:-1], starts[1:]) if b > a]
        else:  # the same strips on local threads
            spans = _equal_work_strips(n, STRIPS)

        def arguments(a, b):
            return (self.kernels, [X[a:] for X in self.Xs], None if V is None else V[a:], b - a,
                    None if centre is None else (centre[0][a:], centre[1]))

        # each tile's BLAS call on one thread: the strips are the parallelism (BLAS threads beside them
        # spin and oversubscribe: a Dask LocalCluster in this process took 10x the CPU time without it;
        # distributed's worker processes start with OPENBLAS_NUM_THREADS=1)
        with threadpool_limits(limits=1, user_api="blas"):
            if is_dask(self.Xs[0]):
                results = dask.compute(*[dask.delayed(upper_strip_products, pure=True)(*arguments(a, b))
                                         for a, b in spans])
            else:
                with ThreadPoolExecutor(min(len(spans), self._workers)) as pool:
                    results = list(pool.map(lambda span: upper_strip_products(*arguments(*span)), spans))
        total = np.zeros((len(self.Xs), n) if V is None else V.shape)
        for (a, _), Z in zip(spans, results):
            target = total[:, a:] if V is None else total[a:]
            target += Z
        return total

    # -- what else a level asks: O(n) or O(n d) each --------------------------------------------
    def kernel_diagonals(self):
        """``k_v(x_i, x_i)`` per view, (V, n)."""
        return np.array([kernel_diagonal(kernel, X) for kernel, X in zip(self.kernels, self.Xs)])

    def diagonal(self):
        """The diagonal of ``K_c``: ``sum_v k_v(x_i, x_i) - (2 r_{v,i} - g_v)``, as the dense centring forms it."""
        return sum(k - (r + r - r.mean()) for k, r in zip(self.kernel_diagonals(), self._means()))

    def trace(self):
        """``trace(K_c)``."""
        return float(self.diagonal().sum())

    def column(self, i):
        """Column ``i`` of ``K_c``: ``sum_v k_v(X, x_i) - (r_v + r_{v,i} - g_v)``."""
        total = 0.0
        for kernel, X, r in zip(self.kernels, self.Xs, self._means()):
            X = np.asarray(X)
            total = total + (kernel(X, X[i:i + 1])[:, 0] - (r + r[i] - r.mean()))
        return total

    def _means(self):
        if self.row_means is None:  # one pass of row sums: the statistics
            self.row_means = list(self._strips(None) / self.shape[0])
            self.passes += 1
        return self.row_means


def _blas_threads():
    """The threads NumPy's BLAS would use (its thread pool's setting): the strips' workers."""
    counts = [info["num_threads"] for info in threadpool_info() if info.get("user_api") == "blas"]
    return max(counts, default=os.cpu_count() or 1)


def _equal_work_strips(n, count):
    """``count`` spans of rows whose strips of the upper triangle hold about equal numbers of entries
    (rows ``[a, n)`` hold ``(n - a)^2 / 2``), on multiples of :data:`TILE`."""
    starts = {min(n, TILE * round(n * (1.0 - np.sqrt(1.0 - k / count)) / TILE)) for k in range(count)}
    bounds = sorted(starts | {n})
    return [(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def kernel_diagonal(kernel, X):
    """``k(x_i, x_i)``, (n,), of a NumPy or (chunk by chunk) Dask array."""
    if not is_dask(X):
        return kernel.diag(X)
    return X.map_blocks(lambda B: kernel.diag(B), drop_axis=1, dtype=np.float64).compute()
