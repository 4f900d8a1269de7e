"""Multi-view kernel PCA as an RKM in primal and dual: :class:`MultiViewKPCA` (Part I).

The model is a list of :class:`~rkmlearn.views.View` objects plus one level
(:func:`~rkmlearn.level.solve_level`), fitted and mapped to the latent space by
:class:`~rkmlearn.models.latent.LatentModel`; view imputation solves small ``s x s`` systems
factored once at fit (:class:`~rkmlearn.solvers.linear.SymmetricSolver`) and maps imputed views
back to inputs.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._validation import check_array, check_n_features, check_scalar_range, check_views, checked_by, validate
from ..base import LEVEL_DEFAULTS, estimator_init
from ..preimage import kernel_smoother
from ..solvers.linear import SymmetricSolver
from .latent import LatentModel, make_views
from .tensor import ParsedViews, _is_2d_list

__all__ = ["MultiViewKPCA"]


def _check_view_sizes(view_sizes):
    """``view_sizes`` checked: None, or a non-empty list / tuple of ints ``>= 1`` with at most one ``-1``."""
    if view_sizes is None:
        return None
    if not isinstance(view_sizes, (list, tuple)) or not view_sizes or any(
            isinstance(d, (bool, np.bool_)) or not isinstance(d, Integral) or (d < 1 and d != -1)
            for d in view_sizes) or sum(d == -1 for d in view_sizes) > 1:
        raise ValueError(
            f"view_sizes must be a tuple of positive ints, the columns of each view of one array X in order "
            f"(one entry may be -1: the remaining columns), or None (X is one view); got {view_sizes!r}. "
            "E.g. view_sizes=(64, 10) for np.hstack([images, one_hot_labels])."
        )
    return [int(d) for d in view_sizes]


def _view_widths(sizes, n_features, name):
    """The columns of each view of ``name``, an array of ``n_features`` columns: checked ``sizes`` (None:
    one view), its ``-1`` the columns the others leave."""
    if sizes is None:
        return [n_features]
    known = sum(d for d in sizes if d != -1)
    if -1 in sizes:
        if known >= n_features:
            raise ValueError(
                f"view_sizes={tuple(sizes)} leaves no column for its -1 entry: {name} has n_features = {n_features} "
                f"and the other views take {known}; pass more columns or other view_sizes."
            )
        return [n_features - known if d == -1 else d for d in sizes]
    if known != n_features:
        raise ValueError(
            f"view_sizes={tuple(sizes)} sum to {known} columns but {name} has n_features = {n_features}; give "
            f"the columns of each view in order, adding up to {n_features} (or -1 for the columns the others leave)."
        )
    return sizes


def _is_list_of_views(Xs):
    """A list / tuple of arrays, of nested lists of rows, or None (a view not given): the views. Anything
    else (an array, a DataFrame, a list of rows of numbers) is ONE array (the rule of
    :func:`~rkmlearn.models.tensor.parse_views`)."""
    return isinstance(Xs, (list, tuple)) and all(X is None or hasattr(X, "shape") or _is_2d_list(X) for X in Xs)


def _column_blocks(X, sizes):
    """The views of one array: its column blocks of widths ``sizes``, each C-contiguous (as a list of
    views is after its check, so both forms compute with the same arrays)."""
    return [np.ascontiguousarray(block) for block in np.split(X, np.cumsum(sizes)[:-1], axis=1)]


class MultiViewKPCA(LatentModel):
    r"""Multi-view kernel PCA as a Restricted Kernel Machine, primal or dual, four algorithms.

    Views ``v = 1..V`` of the same ``n`` samples share one hidden feature ``h_i`` per sample
    (:eq:`eq-mv-jprd`, Chapter 2). The stationarity conditions :eq:`eq-mv-stationarity` give the
    primal eigenproblem of the cross-covariance (:eq:`eq-mv-primal-eig`, with ``U = U~ Lambda^{1/2}``,
    :eq:`eq-mv-rescaling`) or the dual one of ``K = sum_v M_c K_v M_c`` (:eq:`eq-mv-dual-eig`);
    ``setting`` x ``solver`` are the paper's Algorithms 1-4 (``solver="stiefel"``: Chapter 4,
    :eq:`eq-mv-rotation`). Inference: the latent map :eq:`eq-mv-latent` (:meth:`transform`) and view
    imputation :eq:`eq-mv-impute-primal` / :eq:`eq-mv-impute-dual` (:meth:`predict_view`).

    Conventions: ``eigenvalues_`` are those of ``C`` / ``K``, not divided by ``n``; signs by
    :func:`~rkmlearn.solvers.eigen.flip_signs` on ``H_`` (primal and dual agree without sign fixing);
    ``n_components`` at most the numerical rank.

    Parameters
    ----------
    n_components : int, default=2
        Number of components ``s``.
    kernels : list or None, default=None
        One kernel per view (str, :class:`~rkmlearn.kernels.Kernel` or callable; ``None`` entries:
        linear). ``None``: linear in every view. A view with a feature map needs a ``None`` kernel.
    feature_maps : list or None, default=None
        One explicit feature map per view (cloned, fitted), ``None`` entries for kernel views. The
        primal setting needs one in every view.
    setting : {"dual", "primal"}, default="dual"
    solver : {"eig", "stiefel"}, default="eig"
    rescale : bool, default=True
        Primal only: ``U = U~ Gamma^{1/2}``; False is the omission of Chapter 3 (Figure 7).
    rotate : bool, default=True
        Stiefel only: rotate to the eigenbasis.
    eigen_solver : {"auto", "dense", "arpack", "block"}, default="auto"
        See :func:`rkmlearn.solvers.eigen.top_eigenpairs`.
    optimizer : {"pg", "cayley_adam"}, default="pg"
        Stiefel optimiser: :func:`~rkmlearn.solvers.optimisers.projected_gradient` or
        :func:`~rkmlearn.solvers.optimisers.cayley_adam` (the duality paper's).
    learning_rate : float, default=0.3
        Cayley-Adam's step bound (2650 iterations to ``tol`` on Chapter 4's sum of sines; 8300 at 0.1).
    max_iter : int, default=10000
    tol : float, default=1e-10
        Stiefel stopping rule (Riemannian gradient norm ``<= tol * max(1, |f|)``).
    preimage_top_k : int or None, default=None
        Kernel-smoother pre-images (:func:`rkmlearn.preimage.kernel_smoother`) keep the ``top_k``
        largest weights; ``1 <= preimage_top_k <= n_samples`` (checked at fit).
    random_state : int, RandomState, Generator or None, default=None
        Seeds the Stiefel starting point and ARPACK's start vector.
    verbose : bool, default=False
    view_sizes : tuple of int or None, default=None
        The views given as ONE array ``X = np.hstack(Xs)`` (scikit-learn's form: pipelines,
        ``check_estimator``, cross-validation): the number of columns of each view, in order; one
        entry may be ``-1``, the columns the others leave (as in :func:`numpy.reshape`). ``None``: one
        array is one view. A list of views needs none; if given, it must describe their widths.
        Fitted on one array, the model takes one array (the same columns) wherever it takes views,
        and :meth:`~rkmlearn.models.generative.GenerativeRKM.sample` returns one; a list of views
        is accepted too (and the other way round: one array after a fit on a list is split by the
        fitted views' widths).

    Attributes
    ----------
    H_ : ndarray of shape (n_samples, n_components)
        Hidden features of the training samples (orthonormal columns when ``rescale=True``).
    Gamma_ : ndarray of shape (n_components, n_components)
        ``diag(eigenvalues_)`` (eig, or Stiefel with rotation), else ``Gamma'``.
    Gamma_prime_ : ndarray of shape (n_components, n_components) or None
        The optimiser's ``Gamma'`` (Stiefel); None for eig.
    eigenvalues_ : ndarray of shape (n_components,)
    explained_variance_ratio_ : ndarray of shape (n_components,)
    U_ : list of ndarray or None
        Per view ``U_v`` (primal, or dual with a feature map in every view), else None.
    U_tilde_ : ndarray of shape (d_f, n_components) or None
        Orthonormal ``U~`` (primal).
    views_ : list of View
        The fitted views.
    n_views_ : int
    n_features_in_ : list of int or int
        Columns per view; an int (all columns) when ``fit`` was given one array.
    view_sizes_ : list of int
        Columns per view (``view_sizes`` with its ``-1`` resolved).
    feature_names_in_ : ndarray of str
        Column names, when ``fit`` was given one DataFrame.
    history_ : dict or None
    n_iter_ : int or None
    algorithm_ : int
        The paper's algorithm (1-4) that was run.

    Examples
    --------
    >>> import numpy as np
    >>> from rkmlearn import MultiViewKPCA
    >>> from rkmlearn.features import IdentityFeatures
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(100, 2))
    >>> Xs = [z @ rng.normal(size=(2, 5)), z @ rng.normal(size=(2, 3))]
    >>> dual = MultiViewKPCA(n_components=2).fit(Xs)
    >>> primal = MultiViewKPCA(n_components=2, setting="primal",
    ...                        feature_maps=[IdentityFeatures(), IdentityFeatures()]).fit(Xs)
    >>> bool(np.allclose(dual.H_, primal.H_)), bool(np.allclose(dual.predict_view([Xs[0], None], 1), Xs[1]))
    (True, True)
    """

    __init__ = estimator_init({"n_components": 2}, {"kernels": None, "feature_maps": None, **LEVEL_DEFAULTS,
                                                    "preimage_top_k": None, "random_state": None,
                                                    "view_sizes": None})

    # -- fit -----------------------------------------------------------------------------------
    def _make_views(self, n_views):
        """One unfitted :class:`View` per view from ``kernels`` and ``feature_maps``."""
        return make_views(self.kernels, self.feature_maps, n_views, self.setting)

    def _checked_form(self, Xs):
        """The rule of :meth:`fit`: a list of views (their widths as ``view_sizes`` says, if given), or
        one array split into its views by ``view_sizes``; checked once, as :class:`ParsedViews`."""
        sizes = _check_view_sizes(self.view_sizes)
        if _is_list_of_views(Xs):
            views = check_views(Xs, "Xs")
            widths = [X.shape[1] for X in views]
            described = sizes is None or (len(sizes) == len(widths) and all(d in (-1, w) for d, w in zip(sizes, widths)))
            if not described:
                raise ValueError(
                    f"view_sizes={tuple(sizes)} does not describe Xs: its {len(views)} view(s) have {widths} "
                    f"columns. Pass view_sizes={tuple(widths)} (or None) with a list of views."
                )
            return ParsedViews(views, False)
        X = check_array(Xs, "X")
        return ParsedViews(_column_blocks(X, _view_widths(sizes, X.shape[1], "X")), True)

    def _parsed(self, Xs):
        """``Xs`` as :class:`ParsedViews` without checks (the rule ran, or a nested call passed trusted views)."""
        if isinstance(Xs, ParsedViews):
            return Xs
        if isinstance(Xs, (list, tuple)):
            return ParsedViews(list(Xs), False)
        return ParsedViews(_column_blocks(Xs, _view_widths(_check_view_sizes(self.view_sizes), Xs.shape[1], "X")), True)

    @validate(Xs=checked_by("_checked_form"))
    def fit(self, Xs, y=None):
        """Fit the model to a list of views (row ``i`` of every view is sample ``i``, ``n >= 2``), or to
        one array of them side by side, split by ``view_sizes``.

        Parameters
        ----------
        Xs : list of array-like or array-like of shape (n_samples, n_features)
            The views, each of shape (n_samples, n_features_v), or ``np.hstack`` of them split by
            ``view_sizes`` (a DataFrame records ``feature_names_in_``).
        y : ignored

        Returns
        -------
        self : MultiViewKPCA

        Fitting one instance from two threads at once leaves the state of one of the fits, never a mix
        (the attributes are built on a copy and published together); fit clones to keep both.
        """
        return self._fit_atomically(MultiViewKPCA._fit, Xs)

    def _fit(self, Xs):
        Xs, single = self._parsed(Xs)
        if self.preimage_top_k is not None:
            check_scalar_range(self.preimage_top_k, "preimage_top_k", low=1, high=Xs[0].shape[0], low_inclusive=True,
                               integer=True)
        names = (["X"] if len(Xs) == 1 else [f"X (view {v})" for v in range(len(Xs))]) if single else \
            [f"Xs[{v}]" for v in range(len(Xs))]
        level = self._fit_views(self._make_views(len(Xs)), Xs, names=names)
        self.view_sizes_ = [X.shape[1] for X in Xs]
        # one array given: scikit-learn's int; a list of views: one int per view
        self.n_features_in_ = sum(self.view_sizes_) if single else list(self.view_sizes_)
        self._one_array = single
        self._scores = level.scores  # K_{v,c} H = Phi_{v,c} U_v: imputed kernel values
        return self

    def _factor_gammas(self, level):
        """Factor ``Gamma`` (latent map) and ``Gamma - U_v^T U_v`` per view (imputation), once."""
        floor = super()._factor_gammas(level)
        if level.scores is None:  # one view: nothing to impute from
            self._impute_solvers = []
            return floor
        # U_v^T U_v, or H^T K_{v,c} H in the dual (equal at the optimum)
        shares = [U.T @ U for U in level.U] if level.U_tilde is not None else [self.H_.T @ E for E in level.scores]
        advice = "The given views carry no information about some latent component: use fewer n_components."
        self._impute_solvers = [
            SymmetricSolver(self.Gamma_ - share, f"Gamma - U_{v}^T U_{v} (target={v})", floor=floor, advice=advice)
            for v, share in enumerate(shares)
        ]
        return floor

    # -- inference -----------------------------------------------------------------------------
    def _check_views_in(self, Xs, *, target=None):
        """Validate views for inference (the rule of :meth:`transform` and :meth:`predict_view`): a list
        whose ``Xs[target]`` may be None (it is not used), or one array of all the views' columns
        (those of ``target`` are not used: they may be NaN); returns the list of views."""
        check_is_fitted(self, "H_")
        if not _is_list_of_views(Xs):
            return self._check_array_in(Xs, target)
        if len(Xs) != self.n_views_:
            hint = f" with None at position target={target}" if target is not None else ""
            raise ValueError(
                f"Xs has {len(Xs)} view(s) but the model was fitted on {self.n_views_}; pass a list of "
                f"{self.n_views_} entries{hint}."
            )
        out, n = [], None
        for v, (X, view) in enumerate(zip(Xs, self.views_)):
            if v == target:
                out.append(None)
                continue
            if X is None:
                raise ValueError(f"Xs[{v}] is None, but only the target view may be missing.")
            X = view.check_input(X, f"Xs[{v}]", estimator=self)
            if n is not None and X.shape[0] != n:
                raise ValueError(
                    f"Xs[{v}] has {X.shape[0]} samples but an earlier view has {n}; all views must have "
                    "the same number of samples."
                )
            n = X.shape[0]
            out.append(X)
        return out

    def _check_array_in(self, X, target):
        """One array of the views side by side: its columns those of fit, split by the fitted widths;
        ``target``'s block is not checked (None in the list returned)."""
        X = check_array(X, "X", ensure_all_finite=target is None)
        check_n_features(X, sum(self.view_sizes_), "X", estimator_name=self)
        blocks = _column_blocks(X, self.view_sizes_)
        if target is None:
            return blocks
        return [None if v == target else view.check_input(block, f"X (view {v})", estimator=self)
                for v, (view, block) in enumerate(zip(self.views_, blocks))]

    def _views(self, Xs):
        """Validated ``Xs`` as a list of views: one array split by the fitted widths (a nested call's own)."""
        return list(Xs) if isinstance(Xs, (list, tuple)) else _column_blocks(Xs, self.view_sizes_)

    @validate(Xs=checked_by("_check_views_in"))
    def transform(self, Xs):
        """Hidden features of new samples with all views given, :eq:`eq-mv-latent`.

        ``h(x) = Gamma^{-1} sum_v U_v^T phi_{v,c}(x_v) = Gamma^{-1} H^T sum_v k_{v,c}(x_v)``, test
        features / kernel rows centred with training statistics; ``H_`` for the training samples.

        Parameters
        ----------
        Xs : list of array-like, one per view, or array-like of shape (n_samples_new, n_features)
            The views, or one array of them side by side (the columns of fit).

        Returns
        -------
        H_new : ndarray of shape (n_samples_new, n_components)
        """
        return self._latent(self._views(Xs))

    def fit_transform(self, Xs, y=None):
        """Fit and return ``H_`` (a copy)."""
        return super().fit_transform(Xs, y)

    @validate(then=lambda a: a.update(Xs=a["self"]._impute_inputs(a["Xs"], a["target"])))
    def predict_view(self, Xs, target, *, return_latent=False):
        """Impute view ``target`` of new samples from the other views, :eq:`eq-mv-impute-primal` / :eq:`eq-mv-impute-dual`.

        ``h = (Gamma - U_v^T U_v)^{-1} sum_{w != v} U_w^T phi_{w,c}(x_w)`` (dual: ``U_v^T U_v =
        H^T K_{v,c} H`` and the sum is ``H^T sum_{w != v} k_{w,c}(x_w)``), then ``phi_{v,c} = U_v h``,
        mapped back to inputs exactly for identity feature maps (linear kernel, IdentityFeatures),
        else by the kernel smoother :eq:`eq-kernel-smoother`.

        Parameters
        ----------
        Xs : list of length n_views_, or array-like of shape (n_samples_new, n_features)
            The views of the new samples; ``Xs[target]`` may be None (it is ignored). Or one array
            of all the views side by side (the columns of fit), whose columns of view ``target``
            are ignored (they may be NaN).
        target : int
            Index of the view to impute, ``0 <= target < n_views_``.
        return_latent : bool, default=False
            Also return the hidden features ``h`` (n_samples_new, n_components).

        Returns
        -------
        X_target : ndarray of shape (n_samples_new, view_sizes_[target])
            View ``target`` (its block of columns, when the views come as one array).
        H_new : ndarray, only if ``return_latent``
        """
        X_target, h = self.view_predictor(target)(self._views(Xs))
        return (X_target, h) if return_latent else X_target

    def _impute_inputs(self, Xs, target):
        """The rule of :meth:`predict_view`: ``target`` (via :meth:`view_predictor`), then the other views."""
        self.view_predictor(target)
        return self._check_views_in(Xs, target=target)

    def view_predictor(self, target):
        """A function ``f(Xs) -> (X_target, h)`` imputing view ``target`` from VALIDATED views.

        :meth:`predict_view` checks its inputs and calls it; a recursive forecaster calls it once
        per step to skip those checks (see :class:`rkmlearn.forecasting.NARForecaster`).
        """
        check_is_fitted(self, "H_")
        if self.n_views_ < 2:
            raise ValueError("predict_view needs a model fitted on at least 2 views (one to impute from).")
        if isinstance(target, (bool, np.bool_)) or not isinstance(target, Integral) or not 0 <= target < self.n_views_:
            raise ValueError(f"target={target!r} is not a view index; use an int in [0, {self.n_views_ - 1}].")
        target, solver = int(target), self._impute_solvers[int(target)]

        def impute(Xs):
            h = solver.solve(self._score_sum(Xs, exclude=target).T).T  # factored once in fit
            return self._preimage(target, h), h

        return impute

    def decode(self, H, view):
        """Map hidden features ``H`` (m, n_components) of any origin to the inputs of view ``view``.

        ``phi_{v,c} = U_v h``, then the pre-image: exact for identity feature maps (linear kernel,
        ``IdentityFeatures``), else the kernel smoother :eq:`eq-kernel-smoother` (with
        ``preimage_top_k``). What :meth:`predict_view` does after it has found ``h``; a generative
        model (:class:`~rkmlearn.models.generative.GenerativeRKM`) calls it on sampled ``h``.
        Returns view ``view`` only, (m, ``view_sizes_[view]``): its block of columns when the model
        was fitted on one array.
        """
        check_is_fitted(self, "H_")
        if isinstance(view, (bool, np.bool_)) or not isinstance(view, Integral) or not 0 <= view < self.n_views_:
            raise ValueError(f"view={view!r} is not a view index; use an int in [0, {self.n_views_ - 1}].")
        H = check_array(H, "H")
        if H.shape[1] != self.H_.shape[1]:
            raise ValueError(f"H has {H.shape[1]} columns but the model has n_components={self.H_.shape[1]}; "
                             "pass one row of hidden features per point to decode.")
        return self._preimage(int(view), H)

    def _preimage(self, v, h):
        """Map imputed hidden features ``h`` to the input space of view ``v``."""
        view = self.views_[v]
        if view.identity:  # phi_v = U_v h (+ mean): exact
            if self.U_tilde_ is not None:
                return h @ self.U_[v].T + view.feature_mean_
            # dual, linear kernel / identity features: phi_{v,c} = Phi_{v,c}^T H h (eq-mv-stationarity)
            return (h @ self.H_.T) @ (view.X_ - view.input_mean_) + view.input_mean_
        # centred kernel values of the imputed point, and mu^T phi_c (what centring removed)
        k_c = h @ self._scores[v].T
        if self.U_tilde_ is not None:
            mean_term = h @ (self.U_[v].T @ view.feature_mean_)
        else:
            mean_term = view.preimage_mean_term(h @ self.H_.T)  # phi_c = Phi_c^T alpha, alpha = H h
        return kernel_smoother(k_c, view.X_, view.centerer_, mean_term=mean_term, top_k=self.preimage_top_k)

