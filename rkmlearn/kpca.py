"""Kernel PCA in its Restricted Kernel Machine form: the :class:`KPCA` estimator."""

from __future__ import annotations

import copy
import warnings
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from . import stiefel
from ._validation import (
    check_array,
    check_kernel_or_feature_map,
    check_n_components,
    check_n_features,
    check_random_state,
    check_scalar_range,
)
from .kernels import GramCenterer, Linear, make_kernel
from .linalg import SOLVERS as _EIGEN_SOLVERS
from .linalg import check_leading_eigenvalues, flip_signs, top_eigenpairs

__all__ = ["KPCA"]

_SETTINGS = ("dual", "primal")
_SOLVERS = ("eig", "stiefel")
_OPTIMIZERS = ("pg", "cayley_adam")


class KPCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    r"""Kernel principal component analysis as a Restricted Kernel Machine (RKM).

    **The model** (Chapter 1, *Kernels, feature maps and conjugate feature duality*). Kernel PCA
    looks for directions ``W`` in feature space along which the centred features
    ``phi_c(x_i) = phi(x_i) - mean_j phi(x_j)`` vary most. The RKM writes it with hidden features
    ``h_i`` (one per sample) through the energy :eq:`eq-kpca-rkm-objective`

    ``J(W, h_i) = -sum_i phi_c(x_i)^T W h_i + (lambda/2) sum_i h_i^T h_i + (eta/2) tr(W^T W)``,

    obtained from the least-squares PCA objective by the Fenchel-Young inequality
    :eq:`eq-fenchel-young` (``e^T h <= e^T e / (2 lambda) + (lambda/2) h^T h``), which introduces the
    hidden features as conjugate variables of the errors. Its stationarity conditions
    :eq:`eq-kpca-stationarity` (with ``eta = 1``) give ``W = sum_i phi_c(x_i) h_i^T`` and
    ``W^T phi_c(x_i) = lambda h_i``. Eliminating ``W`` gives the **dual** eigenproblem
    :eq:`eq-kpca-dual`, ``K_c H = H Lambda`` with ``H^T H = I`` and ``K_c = M_c K M_c``;
    eliminating the ``h_i`` gives the **primal** eigenproblem :eq:`eq-kpca-primal`,
    ``C W = W Lambda`` with ``C = Phi_c^T Phi_c`` and ``W = U~ Lambda^{1/2}``. A new point is
    mapped to its hidden features by :eq:`eq-kpca-projection`,
    ``h(x) = Lambda^{-1} H^T k_c(x) = Lambda^{-1} W^T phi_c(x)``, which returns the rows of ``H``
    for the training points. Instead of an eigendecomposition, the top-s eigenspace can be found
    by maximising ``tr(H^T K_c H)`` on the Stiefel manifold :eq:`eq-stiefel-trace`; the optimum is
    defined up to a rotation, which :eq:`eq-rotation` removes.

    **Four training algorithms** (the duality paper's Algorithms 1-4): ``setting`` chooses the
    dual problem (an N x N kernel matrix) or the primal one (a d x d covariance of explicit
    features, ``feature_map`` required); ``solver`` chooses an eigendecomposition
    (:func:`rkmlearn.linalg.top_eigenpairs`) or Stiefel optimisation followed by the rotation.
    All four return the same model, up to the solver's accuracy.

    **Conventions.**

    * ``eigenvalues_`` are eigenvalues of the centred Gram matrix ``K_c`` (equal to those of
      ``C = Phi_c^T Phi_c``), *not* divided by N. They equal scikit-learn's
      ``KernelPCA.eigenvalues_``.
    * ``transform`` returns the RKM hidden features ``h(x) = Lambda^{-1} H^T k_c(x)``.
      scikit-learn's ``KernelPCA.transform`` returns ``h(x) * sqrt(Lambda)`` per component (up to
      sign).
    * Signs: each column of ``H_`` is flipped so that its entry of largest absolute value is
      positive (the first such entry on ties), in every setting and solver, so primal and dual
      fits agree with no manual sign fixing. ``W_`` is flipped with ``H_``.
    * ``n_components <= n_samples - 1``: the centred kernel matrix has rank at most N - 1 (the
      constant vector is in its null space), and a zero eigenvalue has no hidden feature
      (``Lambda^{-1}``). In the primal setting also ``n_components <= n_features_out`` of the
      feature map. A component whose eigenvalue is numerically zero raises ``ValueError``.

    Parameters
    ----------
    n_components : int, default=2
        Number of components s, ``1 <= s <= n_samples - 1`` (and ``<= n_features_out`` in the
        primal setting).
    kernel : str, Kernel or callable, default="rbf"
        Kernel of the dual setting, resolved by :func:`rkmlearn.kernels.make_kernel`:
        ``'linear'``, ``'rbf'``, ``'laplacian'``, ``'polynomial'``, ``'cosine'``, a
        :class:`~rkmlearn.kernels.Kernel` instance or a callable ``f(X, Y)``. The RBF kernel is
        ``exp(-||x - y||^2 / (2 sigma^2))``, default ``sigma=1`` (scikit-learn's
        ``gamma = 1 / (2 sigma^2)``). Must stay at its default when ``feature_map`` is given.
    kernel_params : dict or None, default=None
        Hyperparameters of a named kernel, e.g. ``{"sigma": 2.0}``.
    feature_map : transformer or None, default=None
        Explicit feature map, e.g. :class:`~rkmlearn.features.RandomFourierFeatures`. It is
        cloned and fitted on ``X``. Required for ``setting="primal"``; in the dual setting the
        kernel becomes the linear kernel of the features, ``Phi Phi^T``.
    setting : {"dual", "primal"}, default="dual"
        Which eigenproblem to solve: :eq:`eq-kpca-dual` (N x N) or :eq:`eq-kpca-primal` (d x d).
    solver : {"eig", "stiefel"}, default="eig"
        Eigendecomposition, or optimisation on the Stiefel manifold (:eq:`eq-stiefel-trace`)
        followed by the rotation :eq:`eq-rotation`.
    eigen_solver : {"auto", "dense", "arpack"}, default="auto"
        Passed to :func:`rkmlearn.linalg.top_eigenpairs` (``solver="eig"`` only): LAPACK's subset
        driver, ARPACK, or the benchmarked choice between them
        (:func:`rkmlearn.linalg.choose_eigen_solver`).
    optimizer : {"pg", "cayley_adam"}, default="pg"
        Stiefel optimiser (``solver="stiefel"`` only): :func:`rkmlearn.stiefel.projected_gradient`
        (accurate) or :func:`rkmlearn.stiefel.cayley_adam` (the duality paper's choice).
    max_iter : int, default=5000
        Iteration budget of the Stiefel optimiser.
    tol : float, default=1e-10
        Tolerance of the Stiefel optimiser's stopping rule (Riemannian gradient norm
        ``<= tol * max(1, |f|)``, see :func:`rkmlearn.stiefel.projected_gradient`).
    random_state : int, RandomState instance or None, default=None
        Seeds the random starting point of the Stiefel optimiser and of the ARPACK solver.
    verbose : bool, default=False
        Show a progress bar during Stiefel optimisation and print a one-line summary.

    Attributes
    ----------
    H_ : ndarray of shape (n_samples, n_components)
        Hidden features of the training points, orthonormal columns (``H_.T @ H_ = I``).
    eigenvalues_ : ndarray of shape (n_components,)
        Eigenvalues of ``K_c`` (not divided by N), descending.
    explained_variance_ratio_ : ndarray of shape (n_components,)
        ``eigenvalues_ / trace(K_c)``.
    W_ : ndarray of shape (n_features_out, n_components) or None
        Primal weights ``W = U~ Lambda^{1/2}`` (primal) or ``Phi_c^T H`` (dual with a feature
        map); None for an implicit kernel. ``W_.T @ W_ = diag(eigenvalues_)``.
    X_fit_ : ndarray of shape (n_samples, n_features_in_) or None
        Training data (dual setting, needed for ``k(x, x_i)`` at ``transform``); None in primal.
    kernel_ : Kernel
        The kernel actually used: the resolved ``kernel``, or the linear kernel of the features
        when ``feature_map`` is given (``feature_map_.get_kernel()`` is the kernel those
        features equal or approximate).
    centerer_ : GramCenterer or None
        Training statistics centring test kernel rows (:eq:`eq-centering-test`); None when
        features are explicit (they are centred with ``feature_mean_``).
    feature_map_ : transformer or None
        The fitted clone of ``feature_map``.
    feature_mean_ : ndarray of shape (n_features_out,) or None
        Mean training feature vector (explicit features only).
    n_features_in_ : int
        Number of input features.
    history_ : dict or None
        Optimiser history (``solver="stiefel"``; see :class:`rkmlearn.stiefel.StiefelResult`),
        else None.
    n_iter_ : int or None
        Iterations taken by the Stiefel optimiser; None for ``solver="eig"``.

    Examples
    --------
    >>> import numpy as np
    >>> from rkmlearn import KPCA
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> model = KPCA(n_components=2, kernel_params={"sigma": 2.0}).fit(X)
    >>> model.transform(X).shape
    (50, 2)
    >>> bool(np.allclose(model.transform(X), model.H_))
    True
    """

    def __init__(
        self,
        n_components=2,
        *,
        kernel="rbf",
        kernel_params=None,
        feature_map=None,
        setting="dual",
        solver="eig",
        eigen_solver="auto",
        optimizer="pg",
        max_iter=5000,
        tol=1e-10,
        random_state=None,
        verbose=False,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.feature_map = feature_map
        self.setting = setting
        self.solver = solver
        self.eigen_solver = eigen_solver
        self.optimizer = optimizer
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------------------------------------
    # validation
    # ------------------------------------------------------------------------------------------
    def _check_options(self):
        for value, name, allowed in (
            (self.setting, "setting", _SETTINGS),
            (self.solver, "solver", _SOLVERS),
            (self.optimizer, "optimizer", _OPTIMIZERS),
        ):
            if not isinstance(value, str) or value not in allowed:
                raise ValueError(f"{name}={value!r} is not supported; use one of {list(allowed)}.")
        if not isinstance(self.eigen_solver, str) or self.eigen_solver not in _EIGEN_SOLVERS:
            raise ValueError(
                f"eigen_solver={self.eigen_solver!r} is not supported; use one of {list(_EIGEN_SOLVERS)}."
            )
        check_scalar_range(self.max_iter, "max_iter", low=1, low_inclusive=True, integer=True)
        check_scalar_range(self.tol, "tol", low=0.0, low_inclusive=True)
        if not isinstance(self.verbose, (bool, np.bool_, Integral)):
            raise ValueError(f"verbose must be True or False, got {self.verbose!r}.")
        check_kernel_or_feature_map(self.kernel, self.kernel_params, self.feature_map, self.setting)

    def _explicit_features(self, X):
        """Fit a clone of the feature map on X; return the features as float64."""
        self.feature_map_ = clone(self.feature_map)
        Phi = check_array(self.feature_map_.fit_transform(X), "feature_map.fit_transform(X)")
        if Phi.shape[0] != X.shape[0]:
            raise ValueError(
                f"feature_map.fit_transform(X) returned {Phi.shape[0]} rows for {X.shape[0]} samples; "
                "the feature map must return one row per sample."
            )
        return Phi

    # ------------------------------------------------------------------------------------------
    # solvers
    # ------------------------------------------------------------------------------------------
    def _top_eigenspace(self, A, s, rng):
        """Top-s eigenpairs of the symmetric PSD matrix A (N x N dual, d x d primal).

        Returns (eigenvalues descending, orthonormal eigenvectors). With solver="stiefel" this
        maximises tr(V^T A V) on St (:eq:`eq-stiefel-trace`) and rotates (:eq:`eq-rotation`).
        """
        if self.solver == "eig":
            seed = rng.randint(np.iinfo(np.int32).max)
            values, vectors = top_eigenpairs(
                A, s, solver=self.eigen_solver, check_rank=False, random_state=seed
            )
            self.history_, self.n_iter_ = None, None
        else:
            fun, grad = stiefel.trace_objective(A)
            V0 = rng.standard_normal((A.shape[0], s))
            optimise = stiefel.projected_gradient if self.optimizer == "pg" else stiefel.cayley_adam
            result = optimise(fun, grad, V0, max_iter=self.max_iter, tol=self.tol, progress=bool(self.verbose))
            if not result.converged:
                warnings.warn(
                    f"KPCA: the Stiefel optimiser did not converge ({result.message}); the components "
                    "may be inaccurate. Increase max_iter, loosen tol, or use solver='eig'.",
                    ConvergenceWarning,
                    stacklevel=3,
                )
            if self.verbose:
                print(
                    f"KPCA[{self.optimizer}]: {result.n_iter} iterations, converged={result.converged}, "
                    f"grad_norm={result.history['grad_norm'][-1]:.3e}"
                )
            vectors, values, _ = stiefel.rotate_to_eigenbasis(result.X, A)
            self.history_, self.n_iter_ = result.history, result.n_iter
        check_leading_eigenvalues(values, A.shape[0], self.n_components, "the centred kernel matrix")
        return values, vectors

    # ------------------------------------------------------------------------------------------
    # fit / transform
    # ------------------------------------------------------------------------------------------
    def fit(self, X, y=None):
        """Fit the model to ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, ``n_samples >= 2``.
        y : ignored

        Returns
        -------
        self : KPCA
        """
        X = check_array(X, "X")
        self._check_options()
        n_samples = X.shape[0]
        if n_samples < 2:
            raise ValueError(
                "X has 1 sample (n_samples = 1), but kernel PCA needs at least 2 samples to centre the "
                "features; pass more samples."
            )
        rng = check_random_state(self.random_state)
        self.n_features_in_ = X.shape[1]
        self.feature_map_ = None
        self.feature_mean_ = None
        self.centerer_ = None
        self.X_fit_ = None
        self.W_ = None
        if self.setting == "dual":
            self._fit_dual(X, rng)
        else:
            self._fit_primal(X, rng)
        self._n_features_out = self.H_.shape[1]  # names for get_feature_names_out
        return self

    def _fit_dual(self, X, rng):
        n_samples = X.shape[0]
        s = check_n_components(self.n_components, n_samples - 1, what="n_samples - 1")
        Phi = None
        if self.feature_map is not None:
            Phi = self._explicit_features(X)
            self.kernel_ = Linear()
            K = self.kernel_(Phi)
        else:
            # a private copy: changing the user's Kernel instance later must not change the model
            self.kernel_ = copy.deepcopy(make_kernel(self.kernel, **(self.kernel_params or {})))
            K = self.kernel_(X)
        self.centerer_ = GramCenterer()
        K_c = self.centerer_.fit_transform(K)
        del K
        values, H = self._top_eigenspace(K_c, s, rng)
        self.H_, self.eigenvalues_ = H, values
        self.explained_variance_ratio_ = values / float(np.trace(K_c))
        if Phi is not None:
            # Explicit features: W = Phi_c^T H (:eq:`eq-kpca-stationarity`, eta = 1), and the
            # dual prediction Lambda^{-1} H^T k_c(x) equals Lambda^{-1} W^T phi_c(x), which needs
            # no training data at transform time.
            self.feature_mean_ = Phi.mean(axis=0)
            self.W_ = (Phi - self.feature_mean_).T @ H
            self.centerer_ = None
        else:
            self.X_fit_ = X.copy()  # check_array may return the caller's own array

    def _fit_primal(self, X, rng):
        Phi = self._explicit_features(X)
        n_samples, n_out = Phi.shape
        s = check_n_components(
            self.n_components,
            min(n_samples - 1, n_out),
            what=f"min(n_samples - 1, n_features_out) = min({n_samples - 1}, {n_out})",
        )
        self.kernel_ = Linear()
        self.feature_mean_ = Phi.mean(axis=0)
        Phi_c = Phi - self.feature_mean_
        C = Phi_c.T @ Phi_c
        C = 0.5 * (C + C.T)  # exactly symmetric, as the eigensolvers assume
        values, U = self._top_eigenspace(C, s, rng)
        root = np.sqrt(values)
        # W = U~ Lambda^{1/2} (:eq:`eq-kpca-primal`); H = Phi_c W Lambda^{-1} = Phi_c U~ Lambda^{-1/2}
        H = (Phi_c @ U) / root
        # Sign convention on H (not on U~), so that primal and dual fits agree.
        H, signs = flip_signs(H, return_signs=True)
        self.H_ = H
        self.W_ = (U * root) * signs
        self.eigenvalues_ = values
        self.explained_variance_ratio_ = values / float(np.trace(C))

    def transform(self, X):
        """Hidden features of new points, ``h(x) = Lambda^{-1} H^T k_c(x)`` (:eq:`eq-kpca-projection`).

        In the primal setting (and in the dual one with explicit features) the equivalent
        ``Lambda^{-1} W^T phi_c(x)`` is used. For the training points the result equals ``H_``
        up to rounding.

        Parameters
        ----------
        X : array-like of shape (n_samples_new, n_features_in_)

        Returns
        -------
        H_new : ndarray of shape (n_samples_new, n_components)
        """
        check_is_fitted(self, "H_")
        X = check_array(X, "X")
        check_n_features(X, self.n_features_in_, "X", estimator_name=self)
        if self.feature_map_ is not None:
            Phi = check_array(self.feature_map_.transform(X), "feature_map.transform(X)")
            return ((Phi - self.feature_mean_) @ self.W_) / self.eigenvalues_
        K_c = self.centerer_.transform(self.kernel_(X, self.X_fit_))
        return (K_c @ self.H_) / self.eigenvalues_

    def fit_transform(self, X, y=None):
        """Fit the model and return the training hidden features ``H_`` (a copy).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        H : ndarray of shape (n_samples, n_components)
        """
        return self.fit(X).H_.copy()
