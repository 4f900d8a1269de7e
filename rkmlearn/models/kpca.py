"""Kernel PCA in its RKM form: :class:`KPCA`, one view through the level of :class:`~rkmlearn.MultiViewKPCA`.

Both compose :class:`~rkmlearn.models.latent.LatentModel` (views, the level, the latent map); KPCA
has no view to impute, so it has no ``predict_view``.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import ClassNamePrefixFeaturesOutMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import array, check_kernel_or_feature_map, checked_by, validate
from ..base import ONE_VIEW_DEFAULTS, estimator_init, level_defaults
from ..views import View, is_dask
from .latent import LatentModel

__all__ = ["KPCA"]


class KPCA(ClassNamePrefixFeaturesOutMixin, LatentModel):
    r"""Kernel principal component analysis as a Restricted Kernel Machine (Chapter 1).

    The RKM energy :eq:`eq-kpca-rkm-objective` (from PCA by the Fenchel-Young inequality
    :eq:`eq-fenchel-young`) has the stationarity conditions :eq:`eq-kpca-stationarity`; eliminating
    ``W`` gives the dual eigenproblem :eq:`eq-kpca-dual` ``K_c H = H Lambda``, eliminating ``h`` the
    primal one :eq:`eq-kpca-primal` ``C W = W Lambda`` with ``W = U~ Lambda^{1/2}``; new points map
    to :eq:`eq-kpca-projection` ``h(x) = Lambda^{-1} H^T k_c(x) = Lambda^{-1} W^T phi_c(x)``. With
    ``solver="stiefel"`` the top eigenspace is found on the Stiefel manifold
    (:eq:`eq-stiefel-trace`) and rotated (:eq:`eq-rotation`). This is the one-view case of
    :class:`~rkmlearn.MultiViewKPCA` (the same level and latent map, same conventions).

    Conventions: ``eigenvalues_`` are those of ``K_c`` (not divided by N; scikit-learn's
    ``KernelPCA.eigenvalues_``); ``transform`` returns ``h(x)`` (scikit-learn's ``KernelPCA``
    returns ``h(x) sqrt(Lambda)`` up to sign); ``H_`` signs by
    :func:`~rkmlearn.solvers.eigen.flip_signs`, ``W_`` follows; ``n_components <= n_samples - 1``
    (and ``<= n_features_out`` in the primal) and at most the numerical rank.

    Parameters
    ----------
    n_components : int, default=2
    kernel : str, Kernel, callable or None, default="rbf"
        Dual-setting kernel (:func:`rkmlearn.kernels.make_kernel`); None is the linear kernel. RBF:
        ``exp(-||x - y||^2 / (2 sigma^2))``, ``sigma=1`` by default. Must stay at its default (or
        None) when ``feature_map`` is given.
    kernel_params : dict or None, default=None
        E.g. ``{"sigma": 2.0}``.
    feature_map : transformer or None, default=None
        Explicit feature map (cloned, fitted); required for ``setting="primal"``.
    setting : {"dual", "primal"}, default="dual"
    solver : {"eig", "stiefel"}, default="eig"
    eigen_solver : {"auto", "dense", "arpack", "block"}, default="auto"
    optimizer : {"pg", "cayley_adam"}, default="pg"
    learning_rate : float, default=0.3
        Cayley-Adam's step bound.
    max_iter : int, default=10000
    tol : float, default=1e-10
    random_state : int, RandomState, Generator or None, default=None
    verbose : bool, default=False
        Progress bar and a one-line summary of a Stiefel run.

    Attributes
    ----------
    H_ : ndarray of shape (n_samples, n_components)
        Hidden features of the training points (``H_.T @ H_ = I``).
    eigenvalues_ : ndarray of shape (n_components,)
    explained_variance_ratio_ : ndarray of shape (n_components,)
        ``eigenvalues_ / trace(K_c)``.
    W_ : ndarray of shape (n_features_out, n_components) or None
        ``U~ Lambda^{1/2}`` (primal) or ``Phi_c^T H`` (dual with a feature map); None for a kernel.
    X_fit_ : ndarray of shape (n_samples, n_features_in_) or None
        Training data (dual with a kernel), else None.
    kernel_ : Kernel
        The kernel used (linear kernel of the features with a feature map).
    centerer_ : GramCenterer or None
        Training statistics for test kernel rows (:eq:`eq-centering-test`); None with features.
    feature_map_ : transformer or None
    feature_mean_ : ndarray of shape (n_features_out,) or None
    n_features_in_ : int
    history_ : dict or None
    n_iter_ : int or None
        Stiefel iterations; None for ``solver="eig"``.

    Examples
    --------
    >>> import numpy as np
    >>> from rkmlearn import KPCA
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> model = KPCA(n_components=2, kernel_params={"sigma": 2.0}).fit(X)
    >>> model.transform(X).shape, bool(np.allclose(model.transform(X), model.H_))
    ((50, 2), True)
    """

    __init__ = estimator_init({"n_components": 2},
                              {**ONE_VIEW_DEFAULTS, **level_defaults("rescale", "rotate"), "random_state": None})

    @validate(X=array(dask=True, memmap=True))  # a Dask array (or a large memmap) is streamed by the primal level
    def fit(self, X, y=None):
        """Fit the model to ``X`` of shape (n_samples, n_features), ``n_samples >= 2``; returns self.

        Fitting one instance from two threads at once leaves the state of one of the fits, never a mix
        (the attributes are built on a copy and published together); fit clones to keep both."""
        return self._fit_atomically(KPCA._fit, X)

    def _fit(self, X):
        check_kernel_or_feature_map(self.kernel, self.kernel_params, self.feature_map, self.setting)
        explicit = self.feature_map is not None
        view = View(kernel=None if explicit else self.kernel, feature_map=self.feature_map,
                    kernel_params=self.kernel_params)
        self._fit_views([view], [X], names=["X"])
        self.n_features_in_ = X.shape[1]
        self.kernel_, self.feature_map_, self.feature_mean_ = view.kernel_, view.feature_map_, view.feature_mean_
        self.centerer_ = None if explicit else view.centerer_
        self.X_fit_ = None if explicit else view.X_
        self.W_ = self.U_[0] if explicit else None
        self._n_features_out = self.H_.shape[1]  # names for get_feature_names_out
        return self

    def _check_input(self, X):
        """The rule of :meth:`transform`: a fitted model, ``X`` with the training columns (a Dask array as is)."""
        check_is_fitted(self, "H_")
        return X if is_dask(X) else self.views_[0].check_input(X, "X", estimator=self)

    @validate(X=checked_by("_check_input"))
    def transform(self, X):
        """Hidden features ``h(x) = Lambda^{-1} H^T k_c(x)`` (:eq:`eq-kpca-projection`), (m, n_components).

        ``X`` is (m, n_features_in_); with explicit features ``Lambda^{-1} W^T phi_c(x)`` is used.
        """
        if is_dask(X):  # lazily, block by block: a Dask array of shape (m, n_components)
            X = X.rechunk({1: -1})  # whole rows per block
            return X.map_blocks(self.transform, dtype=np.float64, chunks=(X.chunks[0], (self.H_.shape[1],)))
        return self._latent([X])
