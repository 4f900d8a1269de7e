"""The dual level without its ``n x n`` matrix: when it would exceed a memory budget, or the input is Dask.

:func:`rkmlearn.level.solve_level` takes this path when the dense dual arrays
(:func:`~rkmlearn.kernels.operator.dense_gram_bytes`) would exceed ``gram_budget`` (default
:data:`~rkmlearn.kernels.operator.GRAM_BYTES`), or a view's input is a Dask array: the views are
fitted without a Gram matrix, the leading eigenpairs come from tile products
(:class:`~rkmlearn.kernels.operator.CentredGramOperator`,
:func:`~rkmlearn.solvers.operator.operator_eigenpairs`: the block solver's residual check, ARPACK on
the same products as its fallback), and the level's conventions are the dense path's: eigenvalues
of ``K_c`` (not divided by n), the one rank rule, the one sign rule, ``E_v = K_{v,c} H`` (one more
pass per view), ``U_v = Phi_{v,c}^T H`` for explicit views. Memory: ``n x`` (a Krylov basis of at most
120 columns, twice) plus one tile per thread, instead of ``n^2``.
"""

from __future__ import annotations

import numpy as np

from ._validation import is_dask
from .kernels import operator as gram_operator
from .kernels.operator import CentredGramOperator, dense_gram_bytes
from .solvers.eigen import check_leading_eigenvalues, flip_signs
from .solvers.operator import operator_eigenpairs
from .solvers.subspace import Subspace

__all__ = ["use_matrix_free", "matrix_free_dual_level"]


def use_matrix_free(views, Xs, n, gram_budget, coupling, metric, solver, name):
    """Whether the dual level goes matrix-free: its dense arrays exceed ``gram_budget`` bytes (None:
    :data:`rkmlearn.kernels.operator.GRAM_BYTES`), or an input is a Dask array; the latter needs what the path supports."""
    dask = any(is_dask(X) for X in (Xs or []))
    budget = gram_operator.GRAM_BYTES if gram_budget is None else gram_budget  # read now: settable
    if not dask and dense_gram_bytes(n, len(views)) <= budget:
        return False
    supported = coupling is None and metric is None and solver == "eig"
    if dask and not supported:
        raise ValueError(f"{name}: a Dask input is solved matrix-free, which supports solver='eig' without "
                         "coupling or metric; use those, or a NumPy array.")
    return supported  # else the dense path (a coupling, a metric or the Stiefel solver need the matrix)


def matrix_free_dual_level(views, Xs, s, rng, eigen_solver, keep_matrix, with_scores, name):
    """``(H, U, U_tilde, scores, spectrum, trace, matrix)`` of the dual level, matrix-free.

    ``matrix`` is the :class:`~rkmlearn.kernels.operator.CentredGramOperator` with ``keep_matrix``
    (its diagonal, columns and pivoted Cholesky factor: what ProbabilisticKPCA asks).
    """
    if Xs is not None:
        for v, (view, X) in enumerate(zip(views, Xs)):
            view.fit_matrix_free(X, name="X" if len(Xs) == 1 else f"Xs[{v}]")
    implicit = [not view.explicit for view in views]
    row_means = None if Xs is not None and any(implicit) else [view.centerer_.row_means_ for view in views]
    operator = CentredGramOperator([view.kernel_ for view in views],
                                   [view.X_ if not view.explicit else view.features() for view in views], row_means)
    seed = rng.randint(np.iinfo(np.int32).max)  # the one draw of the dense path (leading_subspace)
    values, V = operator_eigenpairs(operator, s, seed, solver="arpack" if eigen_solver == "arpack" else "block")
    for view, means, is_implicit in zip(views, operator.row_means, implicit):
        if is_implicit and view.centerer_ is None:
            view.set_gram_statistics(means)
    what = f"the centred kernel matrix ({', '.join(view.description for view in views)})"
    check_leading_eigenvalues(values, operator.shape[0], s, what, scale=sum(view.scale_ for view in views))
    H = flip_signs(V)
    scores = [operator.view(v).matmat(H) for v in range(len(views))] if with_scores else None  # K_{v,c} H
    U = [view.centred_features().T @ H if view.explicit else None for view in views]
    return H, U, None, scores, Subspace(V, values, np.diag(values)), operator.trace(), \
        operator if keep_matrix else None
