"""What kernel PCA and multi-view kernel PCA share: views, one level, the latent map (Parts I).

:class:`LatentModel` fits a list of :class:`~rkmlearn.views.View` objects through one level
(:func:`~rkmlearn.level.solve_level`), keeps its hidden features and spectrum, and maps new samples
to the latent space, :eq:`eq-mv-latent` (``Gamma`` factored once at fit). :class:`~rkmlearn.KPCA`
(one view) and :class:`~rkmlearn.MultiViewKPCA` (several views, plus view imputation) compose it;
:func:`make_views` builds the views of a ``kernels`` / ``feature_maps`` pair of lists, for them and
for the Part III classifiers.
"""

from __future__ import annotations

import copy

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin

from .._validation import check_two_samples, primal_needs_features
from ..base import level_options
from ..level import solve_level
from ..solvers.linear import SymmetricSolver
from ..views import STREAM_BYTES, View, row_chunks

__all__ = ["LatentModel", "make_views"]

_ALGORITHMS = {("primal", "eig"): 1, ("dual", "eig"): 2, ("primal", "stiefel"): 3, ("dual", "stiefel"): 4}


def make_views(kernels, feature_maps, n_views, setting="dual"):
    """One unfitted :class:`View` per view from per-view lists of kernels and feature maps.

    ``None`` for a list: the default (linear kernel, no feature map) in every view. A view takes a
    kernel or a feature map, not both; ``setting="primal"`` needs a feature map in every view.
    """
    kernels = _per_view(kernels, "kernels", n_views)
    feature_maps = _per_view(feature_maps, "feature_maps", n_views)
    for v, (kernel, fmap) in enumerate(zip(kernels, feature_maps)):
        if fmap is not None and kernel is not None:
            raise ValueError(
                f"view {v} has both kernels[{v}]={kernel!r} and feature_maps[{v}]; give one of them "
                "(with a feature map the kernel is the linear kernel of its features)."
            )
        if fmap is None and setting == "primal":
            raise primal_needs_features(f"setting='primal' but feature_maps[{v}] is None",
                                        "use setting='dual' to work with kernels")
    return [View(kernel=k, feature_map=fm) for k, fm in zip(kernels, feature_maps)]


def _per_view(value, name, n_views):
    if value is None:
        return [None] * n_views
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{name} must be a list with one entry per view (or None); got {type(value).__name__}.")
    if len(value) != n_views:
        raise ValueError(
            f"{name} has {len(value)} entries but Xs has {n_views} views; pass one entry per view "
            "(None for the default)."
        )
    return list(value)


class LatentModel(TransformerMixin, BaseEstimator):
    """Views fitted by one level, and the latent map of new samples (the base of KPCA models).

    A subclass declares its parameters (the level options of :data:`~rkmlearn.base.LEVEL_DEFAULTS`,
    ``n_components``, ``random_state``), builds its views and calls :meth:`_fit_views`.
    """

    def _fit_atomically(self, fit, *args):
        """``fit(copy, *args)`` on a shallow copy of this estimator, then its attributes published in one
        ``__dict__`` update: two threads fitting one instance leave the state of one fit (the last to
        finish), never one fit's ``n_features_in_`` beside the other's ``views_``. Fitting clones
        (``sklearn.base.clone``) in parallel is still the way to get both fits."""
        scratch = copy.copy(self)
        fit(scratch, *args)
        self.__dict__.update(scratch.__dict__)
        return self

    def _fit_views(self, views, Xs, names):
        """Fit ``views`` on ``Xs`` through the level and keep what inference needs."""
        options = level_options(self)
        n = Xs[0].shape[0]
        check_two_samples(n, names[0], "kernel PCA")
        self.views_ = views  # fitted by the level: a kernel is evaluated once
        level = solve_level(views, self.n_components, Xs=Xs, random_state=self.random_state,
                            with_scores=len(views) > 1, name=type(self).__name__, **options)
        for view in self.views_:
            view.release()  # the n x d_f training features are not needed after fit
        self.n_views_ = len(views)
        self.algorithm_ = _ALGORITHMS[options["setting"], options["solver"]]
        self.H_, self.Gamma_, self.Gamma_prime_ = level.H, level.Gamma, level.spectrum.Gamma_prime
        self.eigenvalues_ = level.eigenvalues
        self.explained_variance_ratio_ = level.eigenvalues / level.trace
        self.history_, self.n_iter_ = level.spectrum.history, level.spectrum.n_iter
        self.U_ = level.U if all(U is not None for U in level.U) else None
        self.U_tilde_ = level.U_tilde
        self._view_weights = level.U  # U_v per view, None for a kernel view
        self._factor_gammas(level)
        return level

    def _factor_gammas(self, level):
        """Factor ``Gamma`` once, for the latent map; returns the singularity floor used."""
        floor = level.singular_floor
        self._gamma_solver = SymmetricSolver(self.Gamma_, "Gamma", floor=floor)
        return floor

    def _score_sum(self, Xs, exclude=None):
        """``sum_{w != exclude} U_w^T phi_{w,c}(x)`` (= ``H^T k_{w,c}(x)`` for kernel views), (m, s)."""
        total = 0.0
        for v, (view, X) in enumerate(zip(self.views_, Xs)):
            if v != exclude:
                U = self._view_weights[v]
                total = total + (_features_times(view, X, U) if U is not None else
                                 view.centred_kernel_rows_times(X, self.H_))
        return total

    def _latent(self, Xs):
        """``h(x) = Gamma^{-1} sum_v U_v^T phi_{v,c}(x_v)`` of validated views (:eq:`eq-mv-latent`)."""
        return self._gamma_solver.solve(self._score_sum(Xs).T).T

    def fit_transform(self, X, y=None):
        """Fit and return ``H_`` (a copy)."""
        return self.fit(X).H_.copy()


def _features_times(view, X, U):
    """``phi_c(X) U``, (m, s), a chunk of rows at a time: never the m x D features of a large X."""
    if X.shape[0] * U.shape[0] * 8 <= STREAM_BYTES:
        return view.centred_features(X) @ U
    return np.vstack([view.centred_features(X[rows]) @ U for rows in row_chunks(X.shape[0], U.shape[0])])
