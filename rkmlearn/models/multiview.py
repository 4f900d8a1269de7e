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

from .._validation import check_array, check_scalar_range, checked_by, validate, views
from ..base import LEVEL_DEFAULTS, estimator_init
from ..preimage import kernel_smoother
from ..solvers.linear import SymmetricSolver
from .latent import LatentModel, make_views

__all__ = ["MultiViewKPCA"]


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
    n_features_in_ : list of int
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
                                                    "preimage_top_k": None, "random_state": None})

    # -- fit -----------------------------------------------------------------------------------
    def _make_views(self, n_views):
        """One unfitted :class:`View` per view from ``kernels`` and ``feature_maps``."""
        return make_views(self.kernels, self.feature_maps, n_views, self.setting)

    @validate(Xs=views())
    def fit(self, Xs, y=None):
        """Fit the model to a list of views (row ``i`` of every view is sample ``i``, ``n >= 2``).

        Parameters
        ----------
        Xs : list of array-like, each of shape (n_samples, n_features_v)
        y : ignored

        Returns
        -------
        self : MultiViewKPCA

        Fitting one instance from two threads at once leaves the state of one of the fits, never a mix
        (the attributes are built on a copy and published together); fit clones to keep both.
        """
        return self._fit_atomically(MultiViewKPCA._fit, Xs)

    def _fit(self, Xs):
        if self.preimage_top_k is not None:
            check_scalar_range(self.preimage_top_k, "preimage_top_k", low=1, high=Xs[0].shape[0], low_inclusive=True,
                               integer=True)
        level = self._fit_views(self._make_views(len(Xs)), Xs, names=[f"Xs[{v}]" for v in range(len(Xs))])
        self.n_features_in_ = [X.shape[1] for X in Xs]
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
        """Validate views for inference (the rule of :meth:`transform` and :meth:`predict_view`); ``Xs[target]``
        may be None (it is not used)."""
        check_is_fitted(self, "H_")
        if isinstance(Xs, np.ndarray) or not isinstance(Xs, (list, tuple)):
            raise ValueError(
                f"Xs must be a list of {self.n_views_} views (None at the target view); got {type(Xs).__name__}."
            )
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

    @validate(Xs=checked_by("_check_views_in"))
    def transform(self, Xs):
        """Hidden features of new samples with all views given, :eq:`eq-mv-latent`.

        ``h(x) = Gamma^{-1} sum_v U_v^T phi_{v,c}(x_v) = Gamma^{-1} H^T sum_v k_{v,c}(x_v)``, test
        features / kernel rows centred with training statistics; ``H_`` for the training samples.

        Parameters
        ----------
        Xs : list of array-like, one per view

        Returns
        -------
        H_new : ndarray of shape (n_samples_new, n_components)
        """
        return self._latent(Xs)

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
        Xs : list of length n_views_
            The views of the new samples; ``Xs[target]`` may be None (it is ignored).
        target : int
            Index of the view to impute, ``0 <= target < n_views_``.
        return_latent : bool, default=False
            Also return the hidden features ``h`` (n_samples_new, n_components).

        Returns
        -------
        X_target : ndarray of shape (n_samples_new, n_features_in_[target])
        H_new : ndarray, only if ``return_latent``
        """
        X_target, h = self.view_predictor(target)(Xs)
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

