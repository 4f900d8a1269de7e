"""The leading invariant subspace of a symmetric PSD matrix: by eigendecomposition or on St.

One function for the step every RKM level takes (Algorithms 1-4 of the duality paper differ only
in the matrix and in this choice): :func:`leading_subspace`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import stiefel
from .eigen import top_eigenpairs

__all__ = ["Subspace", "leading_subspace"]


@dataclass(frozen=True)
class Subspace:
    """Result of :func:`leading_subspace`: the basis, its spectrum and how it was found.

    ``basis`` (dim, s) is orthonormal: eigenvectors (``eig``, or ``stiefel`` rotated), else the
    optimiser's. ``values`` (s,), descending, are the eigenvalues, or the Ritz values (eigenvalues of
    ``Gamma'``) for ``stiefel``. ``Gamma`` (s, s) is ``diag(values)`` after ``eig`` or rotation, else
    ``Gamma'``; ``Gamma_prime`` is the optimiser's ``V'^T A V'`` (:eq:`eq-mv-gamma-dual`), None for
    ``eig``. ``history``, ``n_iter``, ``converged``, ``message`` describe the Stiefel run
    (:class:`~rkmlearn.solvers.stiefel.StiefelResult`); None / True / "" for ``eig``.
    """

    basis: np.ndarray
    values: np.ndarray
    Gamma: np.ndarray
    Gamma_prime: np.ndarray | None = None
    history: dict | None = None
    n_iter: int | None = None
    converged: bool = True
    message: str = ""


def leading_subspace(A, n_components, rng, *, factor=None, band=None, method="eig", rotate=True, eigen_solver="auto",
                     optimizer="pg", learning_rate=0.3, max_iter=10000, tol=1e-10, progress=False):
    """Top-``s`` invariant subspace of ``A`` (or of ``factor^T factor``), eig or Stiefel + rotation.

    ``method="eig"``: :func:`~rkmlearn.solvers.eigen.top_eigenpairs`. ``method="stiefel"``: maximise
    ``tr(V^T A V)`` on St (:eq:`eq-stiefel-trace`) with :func:`~rkmlearn.solvers.stiefel.projected_gradient`
    or :func:`~rkmlearn.solvers.stiefel.cayley_adam` from a random start, form ``Gamma' = V^T A V``
    and, with ``rotate``, rotate by its eigenvectors (:eq:`eq-mv-rotation`). Signs are NOT fixed here
    (the caller fixes them on the hidden features). Ranks are not checked here either.

    Parameters
    ----------
    A : ndarray of shape (dim, dim) or None
        Exactly symmetric PSD float64 matrix (not checked); None when ``factor`` is given.
    n_components : int
    rng : numpy.random.RandomState
        Draws ARPACK's seed (eig) or the starting point (stiefel): one draw either way.
    factor : ndarray of shape (n, dim), optional
        ``A = factor^T factor`` given by its factor and never formed (Stiefel with ``dim > n``).
    band : scipy.sparse array, optional
        ``A`` is a low-rank PSD matrix plus this band (eig only; see
        :func:`~rkmlearn.solvers.eigen.top_eigenpairs`).
    method : {"eig", "stiefel"}
    rotate : bool
    eigen_solver, optimizer, learning_rate, max_iter, tol : see :func:`rkmlearn.level.solve_level`.
    progress : bool
        Optimiser progress bar.

    Returns
    -------
    Subspace
    """
    s = n_components
    if method == "eig":
        if A is None:
            A = factor.T @ factor
            A = 0.5 * (A + A.T)
        seed = rng.randint(np.iinfo(np.int32).max)
        # the levels build A exactly symmetric: no O(dim^2) symmetry scan
        values, V = top_eigenpairs(A, s, solver=eigen_solver, check_rank=False, random_state=seed, symmetric=True,
                                   band=band, fix_signs=False)  # the level fixes them, once
        return Subspace(V, values, np.diag(values))
    fun, grad = stiefel.trace_objective(A) if A is not None else stiefel.factored_trace_objective(factor)
    dim = A.shape[0] if A is not None else factor.shape[1]
    V0 = rng.standard_normal((dim, s))
    if optimizer == "cayley_adam":
        result = stiefel.cayley_adam(fun, grad, V0, learning_rate=learning_rate, max_iter=max_iter, tol=tol,
                                     progress=progress)
    else:
        result = stiefel.projected_gradient(fun, grad, V0, max_iter=max_iter, tol=tol, progress=progress)
    V = result.X
    Gamma_prime = -V.T @ grad(V)  # V^T A V (the objective caches A V)
    Gamma_prime = 0.5 * (Gamma_prime + Gamma_prime.T)
    values, O = np.linalg.eigh(Gamma_prime)  # s x s only
    values, O = values[::-1].copy(), O[:, ::-1]
    basis, Gamma = (V @ O, np.diag(values)) if rotate else (V, Gamma_prime)
    return Subspace(basis, values, Gamma, Gamma_prime, result.history, result.n_iter, result.converged,
                    result.message)
