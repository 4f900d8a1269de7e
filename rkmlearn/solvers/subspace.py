"""The leading invariant subspace of a symmetric matrix: by eigendecomposition or on St, and the rotation.

One function for the step every RKM level takes (Algorithms 1-4 of the duality paper differ only
in the matrix and in this choice): :func:`leading_subspace`, optionally of a generalised problem
``A x = lambda B x`` (``B`` SPD, :mod:`~rkmlearn.solvers.generalized`). The rotation of an orthonormal
basis into eigenvectors, :eq:`eq-rotation`, lives here once (:func:`rotate_to_eigenbasis`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_square
from .eigen import flip_signs, top_eigenpairs
from .generalized import back_substitute, reduce_generalized
from .objectives import _factored_trace_objective, _trace_objective
from .optimisers import cayley_adam, projected_gradient
from .stiefel import as_point

__all__ = ["Subspace", "LevelOptions", "leading_subspace", "rotate_to_eigenbasis"]


@dataclass(frozen=True)
class Subspace:
    """Result of :func:`leading_subspace`: the basis, its spectrum and how it was found.

    ``basis`` (dim, s) is orthonormal (``B``-orthonormal with a metric): eigenvectors (``eig``, or
    ``stiefel`` rotated), else the optimiser's. ``values`` (s,), descending, are the eigenvalues, or
    the Ritz values (eigenvalues of ``Gamma'``) for ``stiefel``. ``Gamma`` (s, s) is
    ``diag(values)`` after ``eig`` or rotation, else ``Gamma'``; ``Gamma_prime`` is the optimiser's
    ``V'^T A V'`` (:eq:`eq-mv-gamma-dual`), None for ``eig``. ``history``, ``n_iter``, ``converged``,
    ``message`` describe the Stiefel run (:class:`~rkmlearn.solvers.iteration.OptimiserResult`);
    None / True / "" for ``eig``.
    """

    basis: np.ndarray
    values: np.ndarray
    Gamma: np.ndarray
    Gamma_prime: np.ndarray | None = None
    history: dict | None = None
    n_iter: int | None = None
    converged: bool = True
    message: str = ""


@dataclass(frozen=True)
class LevelOptions:
    """The settings of an RKM level, one object from :func:`rkmlearn.level.solve_level` down to the optimiser.

    Its fields are the level options and their one default each (:data:`rkmlearn.base.LEVEL_DEFAULTS`
    is read from here; ``rkmlearn.base.LEVEL_OPTIONS`` holds their allowed values, checked once by
    the level's caller): ``setting`` ("dual" or "primal"), ``solver`` ("eig" or "stiefel"),
    ``rescale`` (primal ``U = U~ Gamma^{1/2}``), ``rotate`` (Stiefel: rotate to the eigenbasis),
    ``eigen_solver`` (:func:`~rkmlearn.solvers.eigen.top_eigenpairs`), and the Stiefel run's
    ``optimizer`` ("pg" or "cayley_adam"), Cayley-Adam's ``learning_rate``, ``max_iter``, ``tol`` and
    ``verbose`` (a progress bar). ``optimizer="pg"`` (projected gradient) is the accurate workhorse;
    chapters that follow the duality paper pass ``optimizer="cayley_adam"`` explicitly (0.3 is its
    measured good step bound).
    """

    setting: str = "dual"
    solver: str = "eig"
    rescale: bool = True
    rotate: bool = True
    eigen_solver: str = "auto"
    optimizer: str = "pg"
    learning_rate: float = 0.3
    max_iter: int = 10000
    tol: float = 1e-10
    verbose: bool = False

    def minimise(self, fun, grad, X0):
        """Run the Stiefel optimiser these options name from ``X0``; an :class:`~rkmlearn.solvers.iteration.OptimiserResult`."""
        if self.optimizer == "cayley_adam":
            return cayley_adam(fun, grad, X0, learning_rate=self.learning_rate, max_iter=self.max_iter, tol=self.tol,
                               progress=self.verbose)
        return projected_gradient(fun, grad, X0, max_iter=self.max_iter, tol=self.tol, progress=self.verbose)


def _ritz(V, AV):
    """``Gamma' = V^T A V`` (symmetrised) of an orthonormal ``V``, given ``A V``; its eigenvalues
    (descending) and eigenvectors ``O``: ``V O`` diagonalises it (:eq:`eq-rotation`, s x s only)."""
    Gamma_prime = V.T @ AV
    Gamma_prime = 0.5 * (Gamma_prime + Gamma_prime.T)
    values, O = np.linalg.eigh(Gamma_prime)
    return values[::-1].copy(), O[:, ::-1], Gamma_prime


def rotate_to_eigenbasis(H, K):
    """Rotate an orthonormal basis of an invariant subspace into eigenvectors, :eq:`eq-rotation`.

    ``Gamma' = H^T K H = O Gamma O^T`` (s x s only); ``H O`` diagonalises it (Chapter 1). ``H`` is
    (N, s) orthonormal, ``K`` (N, N) symmetric. Returns ``H_rot = H O`` (N, s) with the signs of
    :func:`~rkmlearn.solvers.eigen.flip_signs` (``O``'s columns flipped with it), the Ritz values
    ``gamma`` (s,) descending, and ``O`` (s, s).
    """
    H = as_point(H, "H")
    K = check_square(K)
    if K.shape[0] != H.shape[0]:
        raise ValueError(f"K must be ({H.shape[0]}, {H.shape[0]}) to match H's {H.shape[0]} rows, got {K.shape}.")
    gamma, O, _ = _ritz(H, K @ H)
    H_rot, signs = flip_signs(H @ O, return_signs=True)
    return H_rot, gamma, O * signs


def leading_subspace(A, n_components, rng, options=LevelOptions(), *, factor=None, metric_factor=None, band=None):
    """Top-``s`` invariant subspace of ``A`` (or of ``factor^T factor``), eig or Stiefel + rotation.

    ``options.solver="eig"``: :func:`~rkmlearn.solvers.eigen.top_eigenpairs` (by ``options.eigen_solver``).
    ``options.solver="stiefel"``: maximise
    ``tr(V^T A V)`` on St (:eq:`eq-stiefel-trace`) with
    :func:`~rkmlearn.solvers.optimisers.projected_gradient` or
    :func:`~rkmlearn.solvers.optimisers.cayley_adam` (``options.optimizer``, :meth:`LevelOptions.minimise`)
    from a random start, form ``Gamma' = V^T A V`` and, with ``options.rotate``, rotate by its eigenvectors (:eq:`eq-mv-rotation`). With a metric ``B``
    the problem is ``A x = lambda B x``: solved as above on ``L^{-1} A L^{-T}`` (``B = L L^T``), the
    basis back-substituted (``B``-orthonormal). Signs are NOT fixed here (the caller fixes them on
    the hidden features). Ranks are not checked here either.

    Parameters
    ----------
    A : ndarray of shape (dim, dim) or None
        Exactly symmetric float64 matrix (not checked); None when ``factor`` is given.
    n_components : int
    rng : numpy.random.RandomState
        Draws ARPACK's seed (eig) or the starting point (stiefel): one draw either way.
    options : LevelOptions
        The level's settings (``solver``, ``rotate``, ``eigen_solver`` and the Stiefel run's).
    factor : ndarray of shape (n, dim), optional
        ``A = factor^T factor`` given by its factor and never formed (Stiefel with ``dim > n``).
    metric_factor : ndarray of shape (dim, dim), optional
        ``L``, the lower Cholesky factor of the metric ``B = L L^T`` (symmetric positive definite;
        :func:`~rkmlearn.solvers.generalized.check_metric` checks ``B`` and returns ``L``).
    band : scipy.sparse array, optional
        ``A`` is a low-rank PSD matrix plus this band (eig without a metric only; see
        :func:`~rkmlearn.solvers.eigen.top_eigenpairs`).

    Returns
    -------
    Subspace
    """
    if A is None and (metric_factor is not None or options.solver == "eig"):  # the Stiefel solver may keep the factor
        A = factor.T @ factor
        A = 0.5 * (A + A.T)
    if metric_factor is not None:
        sub = leading_subspace(reduce_generalized(A, metric_factor), n_components, rng, options)
        return Subspace(back_substitute(metric_factor, sub.basis), sub.values, sub.Gamma, sub.Gamma_prime, sub.history,
                        sub.n_iter, sub.converged, sub.message)
    s, rotate = n_components, options.rotate
    if options.solver == "eig":
        seed = rng.randint(np.iinfo(np.int32).max)
        # the levels build A exactly symmetric: no O(dim^2) symmetry scan
        values, V = top_eigenpairs(A, s, solver=options.eigen_solver, check_rank=False, random_state=seed, symmetric=True,
                                   band=band, fix_signs=False)  # the level fixes them, once
        return Subspace(V, values, np.diag(values))
    fun, grad = _trace_objective(A) if A is not None else _factored_trace_objective(factor)
    dim = A.shape[0] if A is not None else factor.shape[1]
    V0 = rng.standard_normal((dim, s))
    result = options.minimise(fun, grad, V0)
    V = result.X
    values, O, Gamma_prime = _ritz(V, -grad(V))  # A V (the objective caches it)
    basis, Gamma = (V @ O, np.diag(values)) if rotate else (V, Gamma_prime)
    return Subspace(basis, values, Gamma, Gamma_prime, result.history, result.n_iter, result.converged,
                    result.message)
