"""Numerical solvers shared by every RKM model.

* :mod:`~rkmlearn.solvers.eigen`: leading eigenpairs (ARPACK / LAPACK subset), sign convention, rank rule;
* :mod:`~rkmlearn.solvers.linear`: symmetric and bordered (LS-SVM / KKT) linear systems, factored once;
* :mod:`~rkmlearn.solvers.stiefel`: optimisation on Stiefel manifolds and products with Euclidean blocks;
* :mod:`~rkmlearn.solvers.subspace`: the leading invariant subspace by eigendecomposition or on St.
"""

from . import eigen, linear, stiefel, subspace

__all__ = ["eigen", "linear", "stiefel", "subspace"]
