"""One RKM level: the hidden features ``H`` of fitted views, solved in the primal or the dual.

:func:`solve_level` is the shared core of every eigen-model (Algorithms 1-4 of the duality paper,
Chapter 2): the dual eigenproblem ``K H = H Lambda`` of the summed centred kernel matrix
(:eq:`eq-mv-dual-eig`, plus an optional coupling matrix: Part V's ``(K + A) H = H Lambda``) or the
primal one ``C U~ = U~ Lambda`` of the concatenated centred features (:eq:`eq-mv-primal-eig`), by
eigendecomposition or on the Stiefel manifold with the rotation (:eq:`eq-mv-rotation`).

Conventions (fixed here, once): eigenvalues are those of ``K`` / ``C``, NOT divided by ``n``, and
``Gamma = Lambda``; ``U = U~ Gamma^{1/2}`` (:eq:`eq-mv-rescaling`); ``h_i = Gamma^{-1} sum_v e_{v,i}``
with the view scores ``e_{v,i} = U_v^T phi_{v,c}(x_i)`` (:eq:`eq-mv-stationarity`); signs by
:func:`~rkmlearn.solvers.eigen.flip_signs` on ``H`` in every setting, ``U``, ``U~`` follow.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse
from scipy.linalg.blas import dsyrk

from ._symmetric import SYMMETRY_RTOL, check_symmetric_matrix, rank_tolerance
from ._validation import (check_array, check_n_components, check_random_state, check_two_samples, primal_needs_features,
                          validate)
from .base import LEVEL_DEFAULTS, LEVEL_RULES, warn_not_converged
from .matrix_free import matrix_free_dual_level, use_matrix_free
from .solvers.eigen import check_leading_eigenvalues, flip_signs
from .solvers.generalized import check_metric
from .solvers.subspace import LevelOptions, Subspace, leading_subspace
from .views import STREAM_BYTES, is_dask, row_chunks

__all__ = ["Level", "solve_level", "check_centred_gram"]


@dataclass(frozen=True)
class Level:
    """A solved RKM level (see :func:`solve_level`).

    Attributes
    ----------
    H : ndarray of shape (n, s)
        Hidden features of the training samples (``H^T H = I``; ``H^T B H = I`` with a metric ``B``).
    U : list of (ndarray of shape (d_v, s) or None)
        Per view ``U_v``: primal weights (:eq:`eq-mv-stationarity` ``U_v = Phi_{v,c}^T H`` in the
        dual); None for a view with an implicit kernel.
    U_tilde : ndarray of shape (d_f, s) or None
        Orthonormal ``U~`` (primal).
    scores : list of ndarray of shape (n, s) or None
        Per view ``E_v = Phi_{v,c} U_v = K_{v,c} H``: row i is ``e_{v,i}`` (None without ``with_scores``).
    spectrum : Subspace
        The eig / Stiefel step (:func:`~rkmlearn.solvers.subspace.leading_subspace`): ``values``,
        ``Gamma``, ``Gamma_prime``, ``history``, ``n_iter``.
    trace : float
        ``trace(K)`` or ``trace(C)`` (explained variance ratios are ``eigenvalues / trace``).
    matrix : ndarray or None
        The decomposed ``K`` (dual) or ``C`` (primal, when formed) if ``keep_matrix``.
    """

    H: np.ndarray
    U: list
    U_tilde: np.ndarray | None
    scores: list
    spectrum: Subspace
    trace: float
    matrix: np.ndarray | None = None

    @property
    def eigenvalues(self):
        """Of ``K`` / ``C`` (of ``Gamma'`` for an unrotated Stiefel fit), descending, shape (s,)."""
        return self.spectrum.values

    @property
    def Gamma(self):
        """``diag(eigenvalues)`` after eig or rotation, else ``Gamma'``; shape (s, s)."""
        return self.spectrum.Gamma

    @property
    def singular_floor(self):
        """``rank_tolerance(n) * lambda_1``: an ``s x s`` matrix of the level's scale (``Gamma``,
        ``Gamma - U_v^T U_v``) with an eigenvalue at or below it is singular (the latent map's rule)."""
        return rank_tolerance(self.H.shape[0]) * float(self.eigenvalues[0])


def check_centred_gram(K_c, scale, what):
    """Raise ``ValueError`` when a centred kernel matrix is zero to rounding: ``max|K_c| <=
    rank_tolerance(n) * scale`` (``scale``: the uncentred kernel's magnitude, what centring cancelled).

    The rank rule of a level, for a model that decomposes ``K_c`` its own way (the deep RKM's
    joint training): all samples look alike in feature space. ``what`` names the matrix.
    """
    if np.abs(K_c).max() <= rank_tolerance(K_c.shape[0]) * scale:
        raise ValueError(
            f"{what} is zero to rounding, i.e. all samples look alike in feature space (constant X, or "
            "kernel_params far outside the scale of X). Check the data and the kernel parameters."
        )


def _finite(compute, what, *, diagonal=False):
    """``compute()``, which must not overflow (finite inputs can: ``X * 1e160``); else a ValueError.

    ``diagonal``: the value is a PSD Gram matrix, whose entries (and partial sums) are bounded by
    its diagonal, so checking the diagonal (O(n)) suffices.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        value = compute()
    if not np.all(np.isfinite(np.diagonal(value) if diagonal else value)):
        raise ValueError(
            f"{what} overflowed (inf or NaN from finite inputs): the data are too large. Rescale X "
            "(e.g. sklearn.preprocessing.StandardScaler)."
        )
    return value


def _level_inputs(arguments):
    """The checks of :func:`solve_level`'s data: ``Xs`` (when given), at least 2 samples to centre."""
    Xs = arguments["Xs"]
    if Xs is not None:
        arguments["Xs"] = Xs = [check_array(X, _input_name(Xs, v)) for v, X in enumerate(Xs)]
    check_two_samples((arguments["views"][0].X_ if Xs is None else Xs[0]).shape[0], arguments["name"], "an RKM level")


@validate(then=_level_inputs, **LEVEL_RULES)
def solve_level(views, n_components, *, setting=LEVEL_DEFAULTS["setting"], solver=LEVEL_DEFAULTS["solver"],
                rescale=LEVEL_DEFAULTS["rescale"], rotate=LEVEL_DEFAULTS["rotate"], coupling=None, metric=None,
                eigen_solver=LEVEL_DEFAULTS["eigen_solver"], optimizer=LEVEL_DEFAULTS["optimizer"],
                learning_rate=LEVEL_DEFAULTS["learning_rate"], max_iter=LEVEL_DEFAULTS["max_iter"],
                tol=LEVEL_DEFAULTS["tol"], verbose=LEVEL_DEFAULTS["verbose"], random_state=None,
                keep_matrix=False, with_scores=True, name="solve_level", Xs=None, gram_budget=None):
    """Hidden features of one RKM level from :class:`~rkmlearn.views.View` objects.

    Parameters
    ----------
    views : list of View
        Fitted on the same ``n`` samples, or fitted here on ``Xs``. The primal setting needs
        explicit feature maps.
    n_components : int
        ``s``, ``1 <= s <= n - 1`` (and ``<= d_f`` in the primal); a numerically zero eigenvalue
        (relative to the scale of the data) is a ``ValueError``.
    setting : {"dual", "primal"}
        ``K = sum_v K_{v,c} (+ coupling)`` (n x n) or ``C = Phi_c^T Phi_c`` (d_f x d_f; with the
        Stiefel solver and ``d_f > n`` only its factor ``Phi_c`` is used).
    solver : {"eig", "stiefel"}
    rescale : bool
        Primal only: ``U = U~ Gamma^{1/2}``; False keeps ``U = U~`` (Chapter 3's Figure 7).
    rotate : bool
        Stiefel only: rotate to the eigenbasis.
    coupling : array-like or scipy.sparse matrix of shape (n, n), optional
        Symmetric matrix added to ``K`` (dual only), e.g. the recurrent RKM's banded ``A``: a
        sparse one is added in place (no second ``n x n`` array unless ``keep_matrix``).
    metric : array-like of shape (n, n), optional
        ``B``, symmetric positive definite (dual only): the generalised problem ``K H = B H Lambda``
        with ``H^T B H = I`` (a kernel CCA, a generative RKM; :mod:`~rkmlearn.solvers.generalized`).
        The rank rule is then relative to ``lambda_1`` only.
    eigen_solver : {"auto", "dense", "arpack", "block"}
    optimizer : {"pg", "cayley_adam"}
    learning_rate : float
        Cayley-Adam's step bound.
    max_iter : int
    tol : float
        Stiefel stopping rule (Riemannian gradient norm ``<= tol * max(1, |f|)``).
    verbose : bool
        Progress bar and a one-line summary of the Stiefel run.
    random_state : int, RandomState, Generator or None
        Seeds ARPACK's start vector or the Stiefel starting point.
    keep_matrix : bool, default=False
        Keep the decomposed matrix in :attr:`Level.matrix`.
    with_scores : bool, default=True
        Compute :attr:`Level.scores` (one ``n x n`` by ``n x s`` product per view in the dual);
        models that never impute a view skip them.
    name : str
        Who is solving, for warnings and messages.
    Xs : list of ndarray, optional
        Training inputs of the views, one per view (validated by the caller): the level fits the
        views on them, a dual level with :meth:`View.fit_centred_gram <rkmlearn.views.View.fit_centred_gram>`
        (each kernel evaluated once, its statistics taken while the Gram matrix is built). None:
        the views are fitted already (their centred Gram matrices are computed afresh).
    gram_budget : int, optional
        Bytes the dual level's dense ``n x n`` arrays may take (default
        :data:`~rkmlearn.kernels.operator.GRAM_BYTES`, 4 GiB); above it, or for a Dask input, the level
        is solved matrix-free (:mod:`rkmlearn.matrix_free`: products in tiles, the same answer to
        ``1e-8``; ``solver="eig"`` without ``coupling`` or ``metric``, else the dense path).

    Returns
    -------
    Level

    Examples
    --------
    >>> import numpy as np
    >>> from rkmlearn import View
    >>> X = np.random.default_rng(0).normal(size=(30, 3))
    >>> level = solve_level([View().fit(X)], 2)          # linear kernel: PCA scores
    >>> level.H.shape, bool(np.allclose(level.H.T @ level.H, np.eye(2)))
    ((30, 2), True)
    """
    # from here down to the optimiser the settings travel as ONE object
    opts = LevelOptions(setting=setting, solver=solver, rescale=rescale, rotate=rotate, eigen_solver=eigen_solver,
                        optimizer=optimizer, learning_rate=learning_rate, max_iter=max_iter, tol=tol, verbose=verbose)
    if not opts.rescale and opts.setting != "primal":
        raise ValueError(
            "rescale=False only applies to setting='primal' (U = U~ Lambda^{1/2} is a primal step; the "
            "dual H needs no rescaling). Use setting='primal' or rescale=True."
        )
    rng = check_random_state(random_state)
    if opts.setting == "dual":
        return _dual_level(views, Xs, n_components, coupling, metric, opts, rng, keep_matrix, with_scores, name,
                           gram_budget)
    for matrix, what in ((coupling, "coupling"), (metric, "metric")):
        if matrix is not None:
            raise ValueError(f"{what} is an n x n matrix of the dual problem; use setting='dual'.")
    for v, X in enumerate(Xs or []):
        views[v].fit(X, name=_input_name(Xs, v))
    return _primal_level(views, n_components, opts, rng, keep_matrix, with_scores, name)


def _leading(matrix, s, rng, opts, name, *, size, scale, what, factor=None, metric_factor=None, band=None):
    """The eig or Stiefel step (:func:`leading_subspace`), its warning, and the one rank check."""
    sub = leading_subspace(matrix, s, rng, opts, factor=factor, metric_factor=metric_factor, band=band)
    if sub.history is not None:
        if not sub.converged:
            warn_not_converged(name, sub.n_iter, sub.message)
        if opts.verbose:
            print(f"{name}[{opts.optimizer}]: {sub.n_iter} iterations, converged={sub.converged}, "
                  f"grad_norm={sub.history['grad_norm'][-1]:.3e}")
    check_leading_eigenvalues(sub.values, size, s, what, scale=scale)
    return sub, opts.solver == "eig" or opts.rotate  # signs are fixed unless the basis is arbitrary


def _input_name(Xs, v):
    return "X" if len(Xs) == 1 else f"Xs[{v}]"


def _dual_level(views, Xs, n_components, coupling, metric, opts, rng, keep_matrix, with_scores, name, gram_budget=None):
    """Algorithms 2 and 4: ``(K + coupling) H = H Lambda``, ``K = sum_v M_c K_v M_c`` (:eq:`eq-mv-dual-eig`);
    with a ``metric`` ``B``: ``(K + coupling) H = B H Lambda``."""
    n = (views[0].X_ if Xs is None else Xs[0]).shape[0]
    s = check_n_components(n_components, n - 1, what="n_samples - 1")
    if use_matrix_free(views, Xs, n, gram_budget, coupling, metric, opts.solver, name):  # past the budget
        return Level(*matrix_free_dual_level(views, Xs, s, rng, opts.eigen_solver, keep_matrix, with_scores, name))
    grams = [view.centred_gram if Xs is None else (lambda view=view, v=v: view.fit_centred_gram(Xs[v], name=_input_name(Xs, v)))
             for v, view in enumerate(views)]
    K_views = [_finite(gram, f"the centred Gram matrix of view {v}", diagonal=True) for v, gram in enumerate(grams)]
    K = K_views[0] if len(K_views) == 1 else np.sum(K_views, axis=0)
    scale = sum(view.scale_ for view in views)  # what centring cancelled: the rounding level of K
    restore = None
    if coupling is not None:
        single = len(K_views) == 1  # K is K_{0,c}: the scores need it back
        K, scale, restore = _add_coupling(K, coupling, n, scale, copy=single and keep_matrix)
        restore = restore if single and not keep_matrix else None
    what = f"the centred kernel matrix ({', '.join(view.description for view in views)})"
    metric_factor = None
    if metric is not None:  # B changes the eigenvalues' scale: the rank rule is relative to lambda_1
        metric_factor, scale = check_metric(metric, n, "metric")[1], 0.0
    band = coupling if scipy.sparse.issparse(coupling) else None  # K + band: the eigensolver uses the structure
    try:
        sub, fix_signs = _leading(K, s, rng, opts, name, size=n, scale=scale, what=what, metric_factor=metric_factor,
                                  band=band)
    except ValueError as exc:  # a linear kernel on data far from the origin: say so, not "samples look alike"
        causes = [(v, view.offset_swamps_spread()) for v, view in enumerate(views)]
        v, cause = next(((v, c) for v, c in causes if c), (None, None))
        if cause is None or "numerical rank" not in str(exc):
            raise
        name_v = "X" if Xs is None else _input_name(Xs, v)
        raise ValueError(f"{name_v}: {cause} (n_components={s} exceeded the numerical rank of {what}.)") from exc
    trace = float(np.trace(K))
    if restore is not None:  # K_{v,c} again (the scores need it), with its own bits
        rows, cols, saved = restore
        K[rows, cols] = saved
    H = flip_signs(sub.basis) if fix_signs else sub.basis
    scores = [K_v @ H for K_v in K_views] if with_scores else None  # K_{v,c} H
    U = [view.centred_features().T @ H if view.explicit else None for view in views]  # U_v = Phi_v^T H (stationarity)
    return Level(H, U, None, scores, sub, trace, K if keep_matrix else None)


def _add_coupling(K, coupling, n, scale, copy):
    """``K + coupling`` and its scale; a sparse coupling is added IN PLACE unless ``copy``.

    Returns ``(K, scale, restore)``: ``restore = (rows, cols, saved entries)`` of a sparse sum, with
    which the caller can put ``K`` back exactly, else None. A sparse (banded) coupling,
    RecurrentRKM's ``A``, costs ``O(nnz)`` instead of a second ``n x n`` array.
    """
    if scipy.sparse.issparse(coupling):
        coo = scipy.sparse.coo_array(coupling, dtype=np.float64)
        coo.sum_duplicates()
        if coo.shape != (n, n):
            raise ValueError(f"coupling must be ({n}, {n}), one row per sample; got {coo.shape}.")
        if not np.all(np.isfinite(coo.data)):
            raise ValueError("coupling contains NaN or infinite values; pass a finite symmetric matrix.")
        coupling_max = float(np.abs(coo.data).max(initial=0.0))
        asym = abs(coo - coo.T).max() if coo.nnz else 0.0
        if asym > SYMMETRY_RTOL * coupling_max:
            raise ValueError(f"coupling must be symmetric; max|coupling - coupling^T| = {asym:.2e}.")
        rows, cols = coo.row, coo.col
        K = K.copy() if copy else K
        saved = K[rows, cols]  # fancy indexing: a copy of the nnz entries
        K[rows, cols] += coo.data
        return K, scale + coupling_max, (rows, cols, saved)
    coupling = check_symmetric_matrix(coupling, "coupling")
    if coupling.shape != (n, n):
        raise ValueError(f"coupling must be ({n}, {n}), one row per sample; got {coupling.shape}.")
    return K + coupling, scale + float(np.abs(coupling).max()), None


def _primal_level(views, n_components, opts, rng, keep_matrix, with_scores, name):
    """Algorithms 1 and 3: ``C U~ = U~ Lambda``, ``C = Phi_c^T Phi_c`` (:eq:`eq-mv-primal-eig`)."""
    if not all(view.explicit for view in views):
        bad = next(v for v, view in enumerate(views) if not view.explicit)
        raise primal_needs_features(f"setting='primal' but view {bad} has an implicit {views[bad].description}")
    if any(view.streamed_ for view in views):
        return _streamed_primal_level(views, n_components, opts, rng, keep_matrix, with_scores, name)
    Phis = [view.centred_features() for view in views]
    Phi_c = Phis[0] if len(Phis) == 1 else np.hstack(Phis)
    n, d_f = Phi_c.shape
    s = check_n_components(n_components, min(n - 1, d_f), what=f"min(n_samples - 1, d_f) = min({n - 1}, {d_f})")
    trace = _finite(lambda: float(np.einsum("ij,ij->", Phi_c, Phi_c)), "the trace of the feature covariance C")
    checks = dict(scale=sum(view.scale_ for view in views),
                  what=f"the feature covariance C ({', '.join(view.description for view in views)})")
    if d_f <= n or opts.solver == "eig":
        C = _finite(lambda: Phi_c.T @ Phi_c, "the feature covariance C")
        C = 0.5 * (C + C.T)  # exactly symmetric, as the eigensolvers assume
        sub, fix_signs = _leading(C, s, rng, opts, name, size=d_f, **checks)
    else:  # Stiefel with d_f > n: never form the d_f x d_f matrix
        C = None
        sub, fix_signs = _leading(None, s, rng, opts, name, factor=Phi_c, size=n, **checks)
    # Rescaling U = U~ Gamma^{1/2}; without it U = U~ (Chapter 3's Figure 7).
    w, O = np.linalg.eigh(sub.Gamma)
    U_tilde = sub.basis
    U = ((U_tilde @ O) * np.sqrt(w)) @ O.T if opts.rescale else U_tilde
    H = (((Phi_c @ U) @ O) / w) @ O.T  # h_i = Gamma^{-1} U^T phi_c(x_i): stationarity
    if fix_signs:
        H, signs = flip_signs(H, return_signs=True)
        U, U_tilde = U * signs, U_tilde * signs
    U_views = np.split(U, np.cumsum([P.shape[1] for P in Phis])[:-1], axis=0)
    scores = [P @ U_v for P, U_v in zip(Phis, U_views)] if with_scores else None
    return Level(H, U_views, U_tilde, scores, sub, trace, C if keep_matrix else None)


def _chunk_stats(views, Xs, shift):
    """One chunk's ``[count, sum(phi - shift), lower triangle of (phi - shift)^T (phi - shift)]``
    flattened (row-major; the upper triangle is 0), and ``max_i ||phi_v(x_i) - shift_v||^2`` per view.

    The chunk's features are computed once for all of them; ``syrk`` forms one triangle (NumPy's
    ``Phi.T @ Phi`` is ``syrk`` too, then mirrors every chunk): it is mirrored once, after the
    reduction."""
    Phis = [view.chunk_features(X) for view, X in zip(views, Xs)]
    Phi = (Phis[0] if len(Phis) == 1 else np.hstack(Phis)) - shift
    # C is accumulated about the shift: max ||phi - shift||^2 sets its rounding level (exact differences;
    # the uncentred ||phi||^2 would make X + 1e8 with unit spread look like rank 0)
    maxsq = [float(np.einsum("ij,ij->i", P, P).max(initial=0.0))
             for P in np.split(Phi, np.cumsum([P.shape[1] for P in Phis])[:-1], axis=1)]
    upper = dsyrk(1.0, Phi.T, lower=0)  # Phi.T is Fortran-ordered: (Phi^T)(Phi^T)^T, no copy of the chunk
    # the Fortran-ordered upper triangle read in memory order IS the row-major lower one: no transposing copy
    return np.concatenate([[Phi.shape[0]], Phi.sum(axis=0), upper.ravel(order="K")]), np.array(maxsq)


def _chunk_outputs(views, Xs, means, W, U_views):
    """One chunk's ``[Phi_c W, per view Phi_{v,c} U_v, per view phi_{v,c}^T mu_v + mu_v^T mu_v]``."""
    Phis = [view.chunk_features(X) - mu for view, X, mu in zip(views, Xs, means)]
    Phi_c = Phis[0] if len(Phis) == 1 else np.hstack(Phis)
    parts = [Phi_c @ W] + [P @ U for P, U in zip(Phis, U_views)]
    parts += [(P @ mu + mu @ mu)[:, None] for P, mu in zip(Phis, means)]
    return np.hstack(parts)


def _map_rows(views, function, width):
    """``function(list of per-view row chunks)`` over chunks of rows whose features are ``width``
    wide (NumPy), or ``(X, function)`` for the caller to map over the blocks of a Dask array ``X``.

    With Dask, the blocks are computed where the data live (a ``distributed`` cluster too) and only
    the per-block results travel.
    """
    Xs = [view.X_ for view in views]
    n = Xs[0].shape[0]
    if not is_dask(Xs[0]):
        return [function([X[rows] for X in Xs]) for rows in row_chunks(n, width)]
    return Xs[0], function


def _streamed_primal_level(views, n_components, opts, rng, keep_matrix, with_scores, name):
    """The primal level of streamed views: ``C``, the means and the outputs, a chunk of rows at a time.

    Memory ``D^2`` + one chunk (:data:`~rkmlearn.views.CHUNK_BYTES`), never the ``n x D`` features.
    ``C = sum_i (phi_i - mu)(phi_i - mu)^T`` is accumulated about a shift (the first chunk's mean),
    so that subtracting ``n delta delta^T`` (``delta = mu - shift``, small) cancels no digits.
    """
    if opts.solver != "eig":
        raise ValueError(f"{name}: streamed features (more than {STREAM_BYTES / 2**20:.0f} MB, or a Dask array) "
                         "need solver='eig'; use it, or fewer samples / features.")
    X0 = views[0].X_
    n = X0.shape[0]
    sizes = [view.chunk_features(np.asarray(view.X_[:1])).shape[1] for view in views]
    d_f = sum(sizes)
    first = [np.asarray(view.X_[row_chunks(n, d_f)[0]]) for view in views]
    shift = np.hstack([view.chunk_features(X) for view, X in zip(views, first)]).mean(axis=0)
    s = check_n_components(n_components, min(n - 1, d_f), what=f"min(n_samples - 1, d_f) = min({n - 1}, {d_f})")
    if is_dask(X0):  # per-block vectors, reduced by Dask (a tree of sums)
        import dask

        if len(views) > 1:
            raise ValueError("Dask arrays are streamed for one view; pass NumPy arrays for several views.")
        X, V = X0, len(views)
        length = 1 + d_f + d_f * d_f
        blocks = X.map_blocks(lambda B: np.concatenate(_chunk_stats(views, [B], shift))[None, :], dtype=np.float64,
                              chunks=((1,) * X.numblocks[0], (length + V,)))
        total, maxsq = dask.compute(blocks[:, :length].sum(axis=0), blocks[:, length:].max(axis=0))
    else:  # one chunk in memory at a time, summed as it comes
        total, maxsq = 0.0, 0.0
        for rows in row_chunks(n, d_f):
            part, mx = _chunk_stats(views, [view.X_[rows] for view in views], shift)
            total, maxsq = total + part, np.maximum(maxsq, mx)
    delta = total[1:1 + d_f] / total[0]

    def covariance():  # exactly symmetric: the mirrored lower triangle minus n delta delta^T (products commute)
        lower = total[1 + d_f:].reshape(d_f, d_f)
        return lower + np.tril(lower, -1).T - total[0] * np.outer(delta, delta)

    C = _finite(covariance, "the feature covariance C")
    mu = shift + delta
    means = np.split(mu, np.cumsum(sizes)[:-1])
    checks = dict(scale=float(sum(maxsq)), what=f"the feature covariance C ({', '.join(v.description for v in views)})")
    sub, fix_signs = _leading(C, s, rng, opts, name, size=d_f, **checks)
    w, O = np.linalg.eigh(sub.Gamma)
    U_tilde = sub.basis
    U = ((U_tilde @ O) * np.sqrt(w)) @ O.T if opts.rescale else U_tilde
    W = ((U @ O) / w) @ O.T  # H = Phi_c W: h_i = Gamma^{-1} U^T phi_c(x_i) (eq-mv-stationarity)
    U_views = np.split(U, np.cumsum(sizes)[:-1], axis=0)
    width = s * (1 + len(views)) + len(views)
    out = _map_rows(views, lambda Xs: _chunk_outputs(views, Xs, means, W, U_views), d_f)
    if isinstance(out, tuple):
        X = out[0]
        out = X.map_blocks(lambda B: _chunk_outputs(views, [B], means, W, U_views), dtype=np.float64,
                           chunks=(X.chunks[0], (width,))).compute()
    else:
        out = np.vstack(out)
    H, scores = out[:, :s], [out[:, s * (1 + v):s * (2 + v)] for v in range(len(views))]
    for v, view in enumerate(views):
        view.set_streamed_statistics(means[v], float(maxsq[v]), out[:, s * (1 + len(views)) + v])
    if fix_signs:
        H, signs = flip_signs(H, return_signs=True)
        U, U_tilde = U * signs, U_tilde * signs
        U_views, scores = [U_v * signs for U_v in U_views], [E * signs for E in scores]
    return Level(H, U_views, U_tilde, scores if with_scores else None, sub, float(np.trace(C)),
                 C if keep_matrix else None)
