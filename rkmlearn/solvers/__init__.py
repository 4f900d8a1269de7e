"""Numerical solvers shared by every RKM model.

* :mod:`~rkmlearn.solvers.eigen`: leading eigenpairs (ARPACK / LAPACK subset), sign convention, rank rule;
* :mod:`~rkmlearn.solvers.generalized`: ``A x = lambda B x`` (``B`` SPD) by Cholesky reduction;
* :mod:`~rkmlearn.solvers.linear`: symmetric and bordered (LS-SVM / KKT) linear systems, factored once;
* :mod:`~rkmlearn.solvers.stiefel`: geometry of Stiefel manifolds and products with Euclidean blocks;
* :mod:`~rkmlearn.solvers.line_search`: Armijo backtracking and Barzilai-Borwein steps;
* :mod:`~rkmlearn.solvers.optimisers`: projected gradient (line search or Adam per block), Cayley-Adam;
* :mod:`~rkmlearn.solvers.iteration`: their result object and their one iteration loop;
* :mod:`~rkmlearn.solvers.objectives`: the trace objective of kernel PCA on St;
* :mod:`~rkmlearn.solvers.subspace`: the leading invariant subspace by eigendecomposition or on St,
  and the rotation to the eigenbasis.
"""

from . import eigen, generalized, iteration, line_search, linear, objectives, optimisers, stiefel, subspace

__all__ = ["eigen", "generalized", "iteration", "line_search", "linear", "objectives", "optimisers", "stiefel",
           "subspace"]
