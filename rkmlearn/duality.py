"""Multi-view kernel PCA in primal and dual: the four training algorithms of the duality paper.

Part I of the book (*Duality, rescaling and rotation*) derives everything in this module from one
objective, :eq:`eq-mv-jprd`. The chapters and the code they explain:

* Chapter 2, *Primal and dual*: the stationarity conditions :eq:`eq-mv-stationarity`, the primal
  eigenproblem of the cross-covariance :eq:`eq-mv-primal-eig` (Algorithm 1) and the dual one of the
  summed centred kernel :eq:`eq-mv-dual-eig` (Algorithm 2);
* Chapter 3, *Rescaling*: ``U = U~ Lambda^{1/2}``, :eq:`eq-mv-rescaling`, and what goes wrong
  without it;
* Chapter 4, *Stiefel training and rotation*: Algorithms 3 and 4, the non-diagonal
  ``Gamma' = U~'^T C U~'`` and the rotation :eq:`eq-mv-rotation` that diagonalises it;
* Chapter 5, *Forecasting and imputation*: the latent map :eq:`eq-mv-latent`, view imputation
  :eq:`eq-mv-impute-primal` / :eq:`eq-mv-impute-dual`, the NAR forecaster :eq:`eq-mv-nar` and the
  algorithm flowchart (:func:`choose_algorithm`).

**Eigenvalue convention (one for the whole part).** ``C = Phi_c^T Phi_c`` and
``K = sum_v M_c K_v M_c`` are *not* divided by the number of samples ``n``; ``eigenvalues_`` are the
eigenvalues of ``C`` (equal to those of ``K``), and ``Gamma = Lambda`` at the optimum. This is also
the convention of :class:`rkmlearn.KPCA` and of scikit-learn's ``KernelPCA.eigenvalues_``.
"""

from __future__ import annotations

import copy
import warnings
from dataclasses import dataclass
from numbers import Integral

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from . import stiefel
from ._validation import (
    check_array,
    check_n_components,
    check_n_features,
    check_random_state,
    check_scalar_range,
    check_views,
)
from .features import IdentityFeatures
from .kernels import GramCenterer, Linear, make_kernel
from .linalg import SOLVERS as _EIGEN_SOLVERS
from .linalg import check_leading_eigenvalues, flip_signs, rank_tolerance, top_eigenpairs

__all__ = ["MultiViewKPCA", "NARForecaster", "AlgorithmChoice", "choose_algorithm"]

_SETTINGS = ("dual", "primal")
_SOLVERS = ("eig", "stiefel")
_OPTIMIZERS = ("cayley_adam", "pg")


# ----------------------------------------------------------------------------------------------
# one view: how to get its centred features / centred kernel rows, and how to go back to inputs
# ----------------------------------------------------------------------------------------------
@dataclass
class _View:
    """Everything the fitted model keeps about one view.

    ``kind`` is ``"features"`` (an explicit, fitted feature map) or ``"kernel"`` (a kernel
    function, dual setting only). ``identity`` is True when the feature map is the identity
    (``IdentityFeatures`` or the linear kernel): the view's pre-image is then exact.
    """

    kind: str
    identity: bool
    X: np.ndarray  # training inputs (pre-images, kernel evaluation)
    input_mean: np.ndarray
    feature_map: object = None
    feature_mean: np.ndarray | None = None
    Phi_c: np.ndarray | None = None  # centred training features (when needed)
    kernel: object = None
    centerer: GramCenterer | None = None  # statistics of the uncentred training Gram matrix
    KH: np.ndarray | None = None  # K_{v,c} H (dual) or Phi_{v,c} U_v (primal): imputed kernel values
    U: np.ndarray | None = None  # U_v (features views): scores U_v^T phi_c(x)

    def centred_features(self, X):
        Phi = check_array(self.feature_map.transform(X), "feature_map.transform(X)")
        return Phi - self.feature_mean

    def centred_kernel_rows(self, X):
        """``k_c(x)`` for each row x of X, centred with training statistics (m, n)."""
        if self.kind == "features":
            return self.centred_features(X) @ self.Phi_c.T
        return self.centerer.transform(self.kernel(X, self.X))


def _is_identity_map(feature_map=None, kernel=None):
    if feature_map is not None:
        return isinstance(feature_map, IdentityFeatures)
    return isinstance(kernel, Linear)


class _SymmetricSolver:
    """Factor a symmetric s x s matrix ``M`` once, then solve ``M Z = B`` for many ``B``.

    Cholesky when ``M`` is positive definite (the usual case: ``Gamma`` and, with rescaling,
    ``Gamma - U_v^T U_v = sum_{w != v} U_w^T U_w``); an LU factorisation when it is indefinite
    (``rescale=False`` can make ``Lambda - U~_v^T U~_v`` so). ``M`` counts as singular when an
    eigenvalue has magnitude ``<= floor`` (callers pass the rank tolerance times the scale of
    ``Gamma``: ``M`` is computed by subtraction, so smaller eigenvalues are rounding noise); a solve
    then raises a ``ValueError`` that names ``what``. The s x s eigenvalues cost nothing next to fit.
    """

    def __init__(self, M, what, floor=0.0):
        self.what, self._cho, self._lu, self._error = what, None, None, None
        M = 0.5 * (M + M.T)
        w = np.linalg.eigvalsh(M)
        if np.min(np.abs(w)) <= floor:
            self._error = (
                f"{what} is singular (smallest |eigenvalue| {np.min(np.abs(w)):.1e}): the given views carry "
                "no information about some latent component. Use fewer n_components or give more views."
            )
        elif w[0] > 0:
            self._cho = scipy.linalg.cho_factor(M, lower=True, check_finite=False)
        else:
            self._lu = scipy.linalg.lu_factor(M, check_finite=False)

    def solve(self, B):
        if self._error is not None:
            raise ValueError(self._error)
        if self._cho is not None:
            return scipy.linalg.cho_solve(self._cho, B, check_finite=False)
        return scipy.linalg.lu_solve(self._lu, B, check_finite=False)


def _spd_solve(M, B, what):
    """One solve of ``M Z = B`` (see :class:`_SymmetricSolver`)."""
    return _SymmetricSolver(M, what).solve(B)


def _sym_sqrt(G):
    """Symmetric square root of a symmetric positive semi-definite s x s matrix."""
    w, Q = np.linalg.eigh(0.5 * (G + G.T))
    return (Q * np.sqrt(np.clip(w, 0.0, None))) @ Q.T


class MultiViewKPCA(TransformerMixin, BaseEstimator):
    r"""Multi-view kernel PCA as a Restricted Kernel Machine, in primal or dual, four algorithms.

    **The model** (Part I, Chapter 2, *Primal and dual*). Views ``v = 1..V`` of the same ``n``
    samples are mapped by feature maps ``phi_v`` and coupled through one shared hidden feature
    ``h_i`` per sample. Conjugating every view's score ``e_{v,i} = U_v^T phi_v(x_{v,i})`` with the
    same ``h_i`` (Fenchel-Young, :eq:`eq-mv-fenchel-young`) turns the objective :eq:`eq-mv-jinit`
    into :eq:`eq-mv-jprd`, whose stationarity conditions :eq:`eq-mv-stationarity` are

    ``U_v = sum_i phi_v(x_{v,i}) h_i^T``, ``h_i = Gamma^{-1} sum_v U_v^T phi_v(x_{v,i})``,
    ``phi_v(x_{v,i}) = U_v h_i``.

    Eliminating the ``h_i`` gives the **primal** eigenproblem of the cross-covariance
    ``C = Phi_c^T Phi_c`` of the concatenated centred features (:eq:`eq-mv-cross-covariance`,
    :eq:`eq-mv-primal-eig`): ``C U~ = U~ Lambda`` with ``U = U~ Lambda^{1/2}``
    (:eq:`eq-mv-rescaling`). Eliminating the ``U_v`` gives the **dual** one,
    ``K H = H Lambda`` with ``K = sum_v M_c K_v M_c`` (:eq:`eq-mv-dual-eig`). In both,
    ``Gamma = Lambda``.

    **Four algorithms** (the paper's Table 1): ``setting`` x ``solver``.

    ===========  =================================  =======================================
    solver       ``setting="primal"``               ``setting="dual"``
    ===========  =================================  =======================================
    ``"eig"``    Alg. 1: ``U~, Lambda <- eig(C)``   Alg. 2: ``H, Lambda <- eig(K)``
    ``"stiefel"`` Alg. 3: Cayley-Adam on (8),       Alg. 4: Cayley-Adam on (12),
                 ``Gamma' = U~'^T C U~'``           ``Gamma' = H'^T K H'``
    ===========  =================================  =======================================

    With ``solver="stiefel"`` the optimiser returns an orthonormal basis of the right subspace,
    and ``Gamma'`` is not diagonal; ``rotate=True`` rotates by the eigenvectors ``O`` of
    ``Gamma'`` (:eq:`eq-mv-rotation`) so that the result equals the eigendecomposition's.
    Without rotation the model is still a stationary point and predicts the same views; only
    its latent components are mixed.

    **Conventions.**

    * ``eigenvalues_`` are eigenvalues of ``C`` / ``K``, not divided by ``n``; ``Gamma_ = diag``
      of them after ``eig`` or rotation.
    * Signs: after ``eig`` or rotation, each column of ``H_`` is flipped so that its entry of
      largest absolute value is positive (``U_`` is flipped with it): primal and dual agree with
      no manual sign fixing.
    * ``n_components <= rank``: ``K`` has rank at most ``n - 1`` (centring) and ``C`` at most
      ``d_f = sum_v d_{f,v}``; a numerically zero eigenvalue raises ``ValueError``.

    Parameters
    ----------
    n_components : int, default=2
        Number of components ``s``.
    kernels : list or None, default=None
        One kernel per view for the dual setting (str, :class:`~rkmlearn.kernels.Kernel` or
        callable, resolved by :func:`rkmlearn.kernels.make_kernel`; ``None`` entries mean
        ``"linear"``). ``None``: the linear kernel in every view. A view with a feature map
        must have a ``None`` kernel.
    feature_maps : list or None, default=None
        One explicit feature map per view (a transformer such as
        :class:`~rkmlearn.features.RandomFourierFeatures` or
        :class:`~rkmlearn.features.IdentityFeatures`, cloned and fitted per view), ``None`` entries
        for views given by a kernel. The primal setting needs a feature map in every view.
    setting : {"dual", "primal"}, default="dual"
    solver : {"eig", "stiefel"}, default="eig"
    rescale : bool, default=True
        Primal setting only: ``U = U~ Gamma^{1/2}`` (:eq:`eq-mv-rescaling`). ``False`` keeps
        ``U = U~`` -- the omission the paper's Figure 7 studies: components come out scaled by
        ``Lambda^{-1/2}`` and view predictions collapse. A teaching switch.
    rotate : bool, default=True
        Stiefel solver only: rotate the solution to the eigenbasis (:eq:`eq-mv-rotation`).
    eigen_solver : {"auto", "dense", "arpack"}, default="auto"
        Eigensolver of ``solver="eig"`` (:func:`rkmlearn.linalg.top_eigenpairs`).
    optimizer : {"cayley_adam", "pg"}, default="cayley_adam"
        Stiefel optimiser: :func:`rkmlearn.stiefel.cayley_adam` (the paper's) or
        :func:`rkmlearn.stiefel.projected_gradient` (reaches high accuracy faster).
    learning_rate : float, default=0.3
        Cayley-Adam's step bound. On the sum-of-sines problem of Chapter 4 (``n = 359``, ``s = 4``)
        Cayley-Adam meets ``tol`` after about 2650 iterations at 0.3 and 8300 at 0.1 (measured).
    max_iter : int, default=10000
        Iteration budget of the Stiefel optimiser.
    tol : float, default=1e-10
        Stopping rule of the optimiser (Riemannian gradient norm ``<= tol * max(1, |f|)``).
    preimage_top_k : int or None, default=None
        Views with a non-identity feature map are mapped back to inputs by the kernel smoother
        (:func:`rkmlearn.preimage.kernel_smoother`); this keeps the ``top_k`` largest weights.
    random_state : int, RandomState instance or None, default=None
        Seeds the Stiefel starting point and ARPACK's start vector.
    verbose : bool, default=False

    Attributes
    ----------
    H_ : ndarray of shape (n_samples, n_components)
        Hidden features of the training points. Orthonormal columns when ``rescale=True``.
    Gamma_ : ndarray of shape (n_components, n_components)
        ``Gamma``: diagonal ``Lambda`` (eig, or Stiefel with rotation), else ``Gamma'``.
    eigenvalues_ : ndarray of shape (n_components,)
        Eigenvalues of ``C`` / ``K`` (of ``Gamma'`` for an unrotated Stiefel fit), descending.
    U_ : list of ndarray or None
        Per view ``U_v`` (``(d_{f,v}, s)``): the primal weights; in the dual setting obtained by
        :eq:`eq-mv-stationarity` ``U_v = Phi_{v,c}^T H`` when every view has a feature map, else
        None.
    U_tilde_ : ndarray of shape (d_f, n_components) or None
        Orthonormal ``U~`` (primal setting).
    n_views_ : int
    n_features_in_ : list of int
        Input dimension of each view.
    history_ : dict or None
        Optimiser history (Stiefel), see :class:`rkmlearn.stiefel.StiefelResult`.
    n_iter_ : int or None
        Optimiser iterations (Stiefel); None for eig.
    algorithm_ : int
        1, 2, 3 or 4: the paper's algorithm that was run.

    Examples
    --------
    >>> import numpy as np
    >>> from rkmlearn import MultiViewKPCA
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(100, 2))
    >>> Xs = [z @ rng.normal(size=(2, 5)), z @ rng.normal(size=(2, 3))]
    >>> dual = MultiViewKPCA(n_components=2).fit(Xs)
    >>> primal = MultiViewKPCA(n_components=2, setting="primal",
    ...                        feature_maps=[IdentityFeatures(), IdentityFeatures()]).fit(Xs)
    >>> bool(np.allclose(dual.H_, primal.H_))
    True
    >>> bool(np.allclose(dual.predict_view([Xs[0], None], target=1), Xs[1]))
    True
    """

    def __init__(
        self,
        n_components=2,
        *,
        kernels=None,
        feature_maps=None,
        setting="dual",
        solver="eig",
        rescale=True,
        rotate=True,
        eigen_solver="auto",
        optimizer="cayley_adam",
        learning_rate=0.3,
        max_iter=10000,
        tol=1e-10,
        preimage_top_k=None,
        random_state=None,
        verbose=False,
    ):
        self.n_components = n_components
        self.kernels = kernels
        self.feature_maps = feature_maps
        self.setting = setting
        self.solver = solver
        self.rescale = rescale
        self.rotate = rotate
        self.eigen_solver = eigen_solver
        self.optimizer = optimizer
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.tol = tol
        self.preimage_top_k = preimage_top_k
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------------------------------------
    # validation
    # ------------------------------------------------------------------------------------------
    def _check_options(self, n_views):
        for value, name, allowed in (
            (self.setting, "setting", _SETTINGS),
            (self.solver, "solver", _SOLVERS),
            (self.optimizer, "optimizer", _OPTIMIZERS),
            (self.eigen_solver, "eigen_solver", _EIGEN_SOLVERS),
        ):
            if not isinstance(value, str) or value not in allowed:
                raise ValueError(f"{name}={value!r} is not supported; use one of {list(allowed)}.")
        for value, name in ((self.rescale, "rescale"), (self.rotate, "rotate"), (self.verbose, "verbose")):
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False, got {value!r}.")
        if not self.rescale and self.setting != "primal":
            raise ValueError(
                "rescale=False only applies to setting='primal' (U = U~ Lambda^{1/2} is a primal "
                "step; the dual H needs no rescaling). Use setting='primal' or rescale=True."
            )
        check_scalar_range(self.learning_rate, "learning_rate", low=0.0)
        check_scalar_range(self.max_iter, "max_iter", low=1, low_inclusive=True, integer=True)
        check_scalar_range(self.tol, "tol", low=0.0, low_inclusive=True)
        if self.preimage_top_k is not None:
            check_scalar_range(self.preimage_top_k, "preimage_top_k", low=1, low_inclusive=True, integer=True)

        kernels = self._per_view(self.kernels, "kernels", n_views)
        feature_maps = self._per_view(self.feature_maps, "feature_maps", n_views)
        for v, (k, fm) in enumerate(zip(kernels, feature_maps)):
            if fm is not None:
                if not (hasattr(fm, "fit_transform") and hasattr(fm, "transform")):
                    raise ValueError(
                        f"feature_maps[{v}] must be a transformer with fit_transform and transform "
                        f"(e.g. rkmlearn.features.IdentityFeatures()), got {fm!r}."
                    )
                if k is not None:
                    raise ValueError(
                        f"view {v} has both kernels[{v}]={k!r} and feature_maps[{v}]; give one of them "
                        "(with a feature map the kernel is the linear kernel of its features)."
                    )
            elif self.setting == "primal":
                raise ValueError(
                    f"setting='primal' needs an explicit feature map in every view, but feature_maps[{v}] "
                    "is None. Pass e.g. feature_maps=[IdentityFeatures(), RandomFourierFeatures(...)], "
                    "or use setting='dual' to work with kernels."
                )
        return kernels, feature_maps

    @staticmethod
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

    # ------------------------------------------------------------------------------------------
    # fit
    # ------------------------------------------------------------------------------------------
    def fit(self, Xs, y=None):
        """Fit the model to a list of views.

        Parameters
        ----------
        Xs : list of array-like, each of shape (n_samples, n_features_v)
            The views; row ``i`` of every view is the same sample. ``n_samples >= 2``.
        y : ignored

        Returns
        -------
        self : MultiViewKPCA
        """
        views = check_views(Xs, "Xs")
        n = views[0].shape[0]
        if n < 2:
            raise ValueError("Xs has 1 sample; multi-view kernel PCA needs at least 2 samples to centre the features.")
        kernels, feature_maps = self._check_options(len(views))
        rng = check_random_state(self.random_state)
        self.n_views_ = len(views)
        self.n_features_in_ = [X.shape[1] for X in views]
        self.algorithm_ = {("primal", "eig"): 1, ("dual", "eig"): 2, ("primal", "stiefel"): 3, ("dual", "stiefel"): 4}[
            (self.setting, self.solver)
        ]
        self._views = []
        for X, k, fm in zip(views, kernels, feature_maps):
            if fm is not None:
                fitted = clone(fm)
                Phi = check_array(fitted.fit_transform(X), "feature_map.fit_transform(X)")
                if Phi.shape[0] != n:
                    raise ValueError("a feature map returned a number of rows different from the number of samples.")
                mean = Phi.mean(axis=0)
                view = _View("features", _is_identity_map(feature_map=fitted), X.copy(), X.mean(axis=0),
                             feature_map=fitted, feature_mean=mean, Phi_c=Phi - mean)
            else:
                kernel = copy.deepcopy(make_kernel("linear" if k is None else k))
                view = _View("kernel", _is_identity_map(kernel=kernel), X.copy(), X.mean(axis=0), kernel=kernel)
            self._views.append(view)
        if self.setting == "primal":
            self._fit_primal(rng)
        else:
            self._fit_dual(rng)
        return self

    def _fit_dual(self, rng):
        """Algorithms 2 and 4: ``K = sum_v M_c K_v M_c`` (:eq:`eq-mv-dual-eig`)."""
        n = self._views[0].X.shape[0]
        s = check_n_components(self.n_components, n - 1, what="n_samples - 1")
        K_views = []
        for view in self._views:
            if view.kind == "features":
                view.centerer = GramCenterer().fit_features(view.Phi_c, view.feature_mean)
                K_views.append(view.Phi_c @ view.Phi_c.T)  # features already centred: M_c K_v M_c
            else:
                view.centerer = GramCenterer()
                K_views.append(view.centerer.fit_transform(view.kernel(view.X)))
        K = K_views[0] if len(K_views) == 1 else np.sum(K_views, axis=0)
        H, Gamma, values = self._solve(K, s, rng)
        if self.solver == "eig" or self.rotate:
            H = flip_signs(H)  # the library's sign convention (eig already applies it)
        for view, K_v in zip(self._views, K_views):
            view.KH = K_v @ H  # K_{v,c} H: imputation and pre-images need only this n x s block
            if view.kind == "features":
                view.U = view.Phi_c.T @ H  # U_v (eq-mv-stationarity): H^T k_c(x) = U_v^T phi_c(x)
        self._view_share = [H.T @ view.KH for view in self._views]  # H^T K_{v,c} H = U_v^T U_v
        self.H_, self.Gamma_, self.eigenvalues_ = H, Gamma, values
        self.explained_variance_ratio_ = values / float(np.trace(K))
        self.U_tilde_ = None
        # U_v = Phi_{v,c}^T H, the first stationarity condition (eq-mv-stationarity)
        self.U_ = [view.U for view in self._views] if all(v.kind == "features" for v in self._views) else None
        self._factor_gammas()

    def _fit_primal(self, rng):
        """Algorithms 1 and 3: ``C = Phi_c^T Phi_c`` of the concatenated features (:eq:`eq-mv-primal-eig`)."""
        n = self._views[0].X.shape[0]
        Phi_c = np.hstack([view.Phi_c for view in self._views])
        d_f = Phi_c.shape[1]
        s = check_n_components(
            self.n_components, min(n - 1, d_f), what=f"min(n_samples - 1, d_f) = min({n - 1}, {d_f})"
        )
        if d_f <= n or self.solver == "eig":
            C = Phi_c.T @ Phi_c
            C = 0.5 * (C + C.T)
            operator = C
        else:
            operator = None  # Stiefel with d_f > n: never form the d_f x d_f matrix
        U_tilde, Gamma, values = self._solve(operator, s, rng, Phi_c=Phi_c)
        # Rescaling (eq-mv-rescaling): U = U~ Gamma^{1/2}; without it U = U~ (Figure 7).
        U = U_tilde @ _sym_sqrt(Gamma) if self.rescale else U_tilde
        # Hidden features of the training points (eq-mv-stationarity): h_i = Gamma^{-1} U^T phi_c(x_i)
        H = _spd_solve(Gamma, (Phi_c @ U).T, "Gamma").T
        if self.solver == "eig" or self.rotate:
            H, signs = flip_signs(H, return_signs=True)
            U, U_tilde = U * signs, U_tilde * signs
        splits = np.cumsum([view.Phi_c.shape[1] for view in self._views])[:-1]
        self.U_ = np.split(U, splits, axis=0)
        self.U_tilde_ = U_tilde
        self.H_, self.Gamma_, self.eigenvalues_ = H, Gamma, values
        self.explained_variance_ratio_ = values / float(np.sum(Phi_c * Phi_c))
        self._view_share = [U_v.T @ U_v for U_v in self.U_]
        self._factor_gammas()
        for view, U_v in zip(self._views, self.U_):
            view.U = U_v
            if not view.identity:  # kernel-smoother pre-image: k_c = Phi_{v,c} U_v h
                view.centerer = GramCenterer().fit_features(view.Phi_c, view.feature_mean)
                view.KH = view.Phi_c @ U_v
            view.Phi_c = None  # the d_f-wide training features are not needed after fit

    def _factor_gammas(self):
        """Factor ``Gamma`` (latent map) and ``Gamma - U_v^T U_v`` per view (imputation) once."""
        floor = rank_tolerance(self.H_.shape[0]) * float(np.max(np.abs(np.linalg.eigvalsh(self.Gamma_))))
        self._gamma_solver = _SymmetricSolver(self.Gamma_, "Gamma", floor)
        self._impute_solvers = [
            _SymmetricSolver(self.Gamma_ - share, f"Gamma - U_{v}^T U_{v} (target={v})", floor)
            for v, share in enumerate(self._view_share)
        ]

    def _solve(self, A, s, rng, Phi_c=None):
        """Top-s solution of the symmetric problem ``A``: (orthonormal basis, Gamma, eigenvalues).

        ``A`` is ``K`` (dual) or ``C`` (primal); ``A=None`` means ``C = Phi_c^T Phi_c`` given by its
        factor (Stiefel only). ``solver="eig"`` computes eigenpairs (Algorithms 1, 2); ``"stiefel"``
        runs the optimiser, forms ``Gamma'`` and optionally rotates (Algorithms 3, 4).
        """
        if self.solver == "eig":
            seed = rng.randint(np.iinfo(np.int32).max)
            values, V = top_eigenpairs(A, s, solver=self.eigen_solver, check_rank=True, random_state=seed)
            self.history_, self.n_iter_ = None, None
            return V, np.diag(values), values

        if A is not None:
            fun, grad = stiefel.trace_objective(A)
            dim = A.shape[0]
        else:
            fun, grad = stiefel.factored_trace_objective(Phi_c)
            dim = Phi_c.shape[1]
        V0 = rng.standard_normal((dim, s))
        if self.optimizer == "cayley_adam":
            result = stiefel.cayley_adam(fun, grad, V0, learning_rate=self.learning_rate, max_iter=self.max_iter,
                                         tol=self.tol, progress=bool(self.verbose))
        else:
            result = stiefel.projected_gradient(fun, grad, V0, max_iter=self.max_iter, tol=self.tol,
                                                progress=bool(self.verbose))
        if not result.converged:
            warnings.warn(
                f"MultiViewKPCA: the Stiefel optimiser did not converge in {result.n_iter} iterations "
                f"({result.message}); increase max_iter, loosen tol, or use solver='eig'.",
                ConvergenceWarning,
                stacklevel=3,
            )
        self.history_, self.n_iter_ = result.history, result.n_iter
        V_prime = result.X
        AV = A @ V_prime if A is not None else Phi_c.T @ (Phi_c @ V_prime)
        Gamma_prime = V_prime.T @ AV  # Gamma' (eq-mv-gamma-primal / eq-mv-gamma-dual)
        Gamma_prime = 0.5 * (Gamma_prime + Gamma_prime.T)
        values, O = np.linalg.eigh(Gamma_prime)  # s x s only: O(s^3)
        values, O = values[::-1].copy(), O[:, ::-1]
        n_rank = dim if A is not None else min(Phi_c.shape)
        check_leading_eigenvalues(values, n_rank, self.n_components, "the problem (eigenvalues of Gamma')")
        self.Gamma_prime_ = Gamma_prime
        if self.rotate:  # eq-mv-rotation: V = V' O, Gamma = Lambda
            return V_prime @ O, np.diag(values), values
        return V_prime, Gamma_prime, values

    # ------------------------------------------------------------------------------------------
    # inference
    # ------------------------------------------------------------------------------------------
    def _check_views_in(self, Xs, *, target=None):
        """Validate views for inference; ``Xs[target]`` may be None (it is not used)."""
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
        for v, X in enumerate(Xs):
            if v == target:
                out.append(None)
                continue
            if X is None:
                raise ValueError(f"Xs[{v}] is None, but only the target view may be missing.")
            X = check_array(X, f"Xs[{v}]")
            check_n_features(X, self.n_features_in_[v], f"Xs[{v}]", estimator_name=self)
            if n is not None and X.shape[0] != n:
                raise ValueError(
                    f"Xs[{v}] has {X.shape[0]} samples but an earlier view has {n}; all views must have "
                    "the same number of samples."
                )
            n = X.shape[0]
            out.append(X)
        return out

    def _score_sum(self, views, exclude=None):
        """``sum_{w != exclude} U_w^T phi_{w,c}(x)`` (primal) or ``H^T sum_w k_{w,c}(x)`` (dual), (m, s)."""
        total = None
        for v, (view, X) in enumerate(zip(self._views, views)):
            if v == exclude:
                continue
            if view.kind == "features":  # U_v^T phi_c(x) = H^T k_c(x) when U_v = Phi_c^T H
                part = view.centred_features(X) @ view.U
            else:
                part = view.centred_kernel_rows(X) @ self.H_
            total = part if total is None else total + part
        return total

    def transform(self, Xs):
        """Hidden features of new samples with all views given, :eq:`eq-mv-latent`.

        ``h(x) = Gamma^{-1} sum_v U_v^T phi_{v,c}(x_v)`` (primal) ``= Gamma^{-1} H^T sum_v
        k_{v,c}(x_v)`` (dual), with test features / kernel rows centred by training statistics.
        For the training samples it returns ``H_``.

        Parameters
        ----------
        Xs : list of array-like, one per view

        Returns
        -------
        H_new : ndarray of shape (n_samples_new, n_components)
        """
        check_is_fitted(self, "H_")
        views = self._check_views_in(Xs)
        return self._gamma_solver.solve(self._score_sum(views).T).T

    def fit_transform(self, Xs, y=None):
        """Fit and return ``H_`` (a copy)."""
        return self.fit(Xs).H_.copy()

    def predict_view(self, Xs, target, *, return_latent=False):
        """Impute view ``target`` of new samples from the other views, :eq:`eq-mv-impute-primal` / :eq:`eq-mv-impute-dual`.

        Solving the stationarity conditions for ``h`` and ``phi_target`` with the other views fixed:

        * primal: ``h = (Gamma - U_v^T U_v)^{-1} sum_{w != v} U_w^T phi_{w,c}(x_w)``,
          ``phi_{v,c} = U_v h``;
        * dual: ``h = (Gamma - H^T K_{v,c} H)^{-1} H^T sum_{w != v} k_{w,c}(x_w)``,
          ``k_{v,c} = K_{v,c} H h`` (the sum runs over the *other* views; the paper prints
          ``k_v`` inside it -- a typo, derived again in Chapter 5).

        The result is mapped back to the input space of the view: exactly (``phi_v = U_v h`` plus the
        training mean) when the view's feature map is the identity (linear kernel or
        :class:`~rkmlearn.features.IdentityFeatures`), otherwise by the kernel smoother
        :func:`rkmlearn.preimage.kernel_smoother` on the imputed centred kernel values.

        Parameters
        ----------
        Xs : list of length n_views_
            The views of the new samples; ``Xs[target]`` must be None (or is ignored).
        target : int
            Index of the view to impute, ``0 <= target < n_views_``.
        return_latent : bool, default=False
            Also return the hidden features ``h`` (n_samples_new, n_components).

        Returns
        -------
        X_target : ndarray of shape (n_samples_new, n_features_in_[target])
        H_new : ndarray, only if ``return_latent``
        """
        check_is_fitted(self, "H_")
        if self.n_views_ < 2:
            raise ValueError("predict_view needs a model fitted on at least 2 views (one to impute from).")
        if isinstance(target, (bool, np.bool_)) or not isinstance(target, Integral) or not 0 <= target < self.n_views_:
            raise ValueError(
                f"target={target!r} is not a view index; use an int in [0, {self.n_views_ - 1}]."
            )
        target = int(target)
        views = self._check_views_in(Xs, target=target)
        scores = self._score_sum(views, exclude=target)
        # (Gamma - U_v^T U_v)^{-1}, i.e. (Gamma - H^T K_{v,c} H)^{-1}: factored once in fit
        h = self._impute_solvers[target].solve(scores.T).T
        X_target = self._preimage(target, h)
        return (X_target, h) if return_latent else X_target

    def _preimage(self, v, h):
        """Map imputed hidden features ``h`` to the input space of view ``v``."""
        view = self._views[v]
        if view.identity:  # phi_v = U_v h (+ mean): exact
            if self.setting == "primal":
                return h @ self.U_[v].T + view.feature_mean
            # dual, linear kernel / identity features: phi_{v,c} = Phi_{v,c}^T H h (eq-mv-stationarity)
            return (h @ self.H_.T) @ (view.X - view.input_mean) + view.input_mean
        from .preimage import kernel_smoother  # shared with Part II

        # Centred kernel values of the imputed point with the training points, and mu^T phi_c, the
        # part of its uncentred kernel values that centring removed (see kernel_smoother).
        k_c = h @ view.KH.T
        if self.setting == "primal":
            mean_term = h @ (self.U_[v].T @ view.feature_mean)
        else:
            r, g = view.centerer.row_means_, view.centerer.grand_mean_
            mean_term = (h @ self.H_.T) @ (r - g)  # phi_c = Phi_c^T alpha, alpha = H h
        return kernel_smoother(k_c, view.X, view.centerer, mean_term=mean_term, top_k=self.preimage_top_k)


# ----------------------------------------------------------------------------------------------
# forecasting
# ----------------------------------------------------------------------------------------------
def _check_series(series, name="series"):
    series = check_array(series, name, ensure_2d=False)
    if series.ndim != 1:
        if series.shape[1] != 1:
            raise ValueError(f"{name} must be a 1-D series; got shape {series.shape}.")
        series = series[:, 0]
    return series


class NARForecaster(BaseEstimator):
    """Nonlinear autoregressive forecasting with a two-view model, :eq:`eq-mv-nar` (Chapter 5).

    The series is standardised with the mean and standard deviation of the *training* series,
    then cut into windows. With lag ``p`` the model is ``x_{l+1} = f(x_l, x_{l-1}, ..., x_{l-p})``,
    as in the paper: view 0 holds the window ``(x_{l-p}, ..., x_l)`` -- exactly ``p + 1`` inputs,
    oldest first -- and view 1 the next value ``x_{l+1}``. A series of length ``T`` gives
    ``T - p - 1`` training pairs (the paper's ``l = p + 1, ..., T - 1``). The paper's public code
    builds the same ``p + 1``-value windows. So ``lag=40`` on the sum of sines gives 41 inputs and
    ``d_f = 41 + 1 = 42`` linear features.

    Forecasting is recursive: ``model.predict_view([window, None], target=1)`` predicts the next
    value, which is appended to the window for the following step.

    Parameters
    ----------
    model : MultiViewKPCA
        Unfitted template (cloned); it must work with two views.
    lag : int
        The lag ``p >= 0``; windows have ``p + 1`` values.

    Attributes
    ----------
    model_ : MultiViewKPCA
        The fitted clone.
    mean_, scale_ : float
        Training statistics used for standardisation.
    n_inputs_ : int
        ``lag + 1``, the number of values in a window.
    last_window_ : ndarray of shape (lag + 1,)
        The last ``lag + 1`` training values (original units): the default start of ``forecast``.
    """

    def __init__(self, model, lag):
        self.model = model
        self.lag = lag

    @staticmethod
    def windows(z, lag):
        """Windows ``(T - lag - 1, lag + 1)`` and next values ``(T - lag - 1,)`` of a 1-D array.

        Row ``i`` is ``(z_i, ..., z_{i+lag})`` and its target is ``z_{i+lag+1}``.
        """
        X = np.lib.stride_tricks.sliding_window_view(z, lag + 1)[:-1]
        return np.ascontiguousarray(X), z[lag + 1:].copy()

    def fit(self, series, y=None):
        """Fit on a 1-D training series (length ``T >= lag + 2``, at least one pair).

        Parameters
        ----------
        series : array-like of shape (T,)
        y : ignored

        Returns
        -------
        self
        """
        if not isinstance(self.model, MultiViewKPCA):
            raise ValueError(f"model must be a MultiViewKPCA, got {type(self.model).__name__}.")
        series = _check_series(series)
        T = series.shape[0]
        lag = check_scalar_range(self.lag, "lag", low=0, low_inclusive=True, integer=True)
        if lag >= T - 1:
            raise ValueError(
                f"lag={lag} is too large for the series length {T}: windows of lag + 1 = {lag + 1} values "
                f"leave no next value to predict. Use lag <= {T - 2} or a longer series."
            )
        self.mean_ = float(series.mean())
        self.scale_ = float(series.std())
        if self.scale_ == 0.0:
            raise ValueError("series is constant (standard deviation 0); nothing to forecast.")
        z = (series - self.mean_) / self.scale_
        X, y_next = self.windows(z, lag)
        self.model_ = clone(self.model).fit([X, y_next[:, None]])
        self.n_inputs_ = lag + 1
        self.last_window_ = series[-(lag + 1):].copy()
        return self

    def predict(self, windows):
        """One-step predictions for windows of past values (original units), shape (m, lag + 1) -> (m,)."""
        check_is_fitted(self, "model_")
        W = check_array(windows, "windows")
        if W.shape[1] != self.n_inputs_:
            raise ValueError(
                f"windows must have lag + 1 = {self.n_inputs_} columns (x_(l-lag), ..., x_l), got {W.shape[1]}."
            )
        z = self.model_.predict_view([(W - self.mean_) / self.scale_, None], target=1)[:, 0]
        return z * self.scale_ + self.mean_

    def forecast(self, steps, history=None):
        """Recursive multi-step forecast.

        Parameters
        ----------
        steps : int
            Number of future values.
        history : array-like of shape (>= lag + 1,), optional
            Past values to start from (the last ``lag + 1`` are used); default: the end of the
            training series.

        Returns
        -------
        forecast : ndarray of shape (steps,)
        """
        check_is_fitted(self, "model_")
        steps = check_scalar_range(steps, "steps", low=1, low_inclusive=True, integer=True)
        if history is None:
            window = self.last_window_.copy()
        else:
            history = _check_series(history, "history")
            if history.shape[0] < self.n_inputs_:
                raise ValueError(
                    f"history must have at least lag + 1 = {self.n_inputs_} values, got {history.shape[0]}."
                )
            window = history[-self.n_inputs_:].copy()
        z = (window - self.mean_) / self.scale_
        out = np.empty(steps)
        for t in range(steps):  # recursion over time steps (each step needs the previous one)
            out[t] = self.model_.predict_view([z[None, :], None], target=1)[0, 0]
            z = np.roll(z, -1)
            z[-1] = out[t]
        return out * self.scale_ + self.mean_


# ----------------------------------------------------------------------------------------------
# the flowchart (Figure 1)
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AlgorithmChoice:
    """Result of :func:`choose_algorithm`."""

    algorithm: int
    setting: str
    solver: str
    augmented_loss: bool
    reason: str

    def __str__(self):
        star = "*" if self.augmented_loss else ""
        return f"Algorithm {self.algorithm}{star} ({self.setting}, {self.solver}): {self.reason}"


def choose_algorithm(n, feature_dims=None, feature_map_known=True, parametric=False):
    """The training algorithm the duality paper's Figure 1 flowchart recommends.

    Decisions, in the flowchart's order:

    1. **Are the feature maps known explicitly** (or approximated, e.g. random Fourier features)?
       If not, only the dual setting exists (kernels): Algorithm 2, or Algorithm 4 with an
       augmented loss (*) when a parametric pre-image map must be trained.
    2. **Do they have trainable parameters** ``theta`` / ``eta``? Then an eigendecomposition per
       parameter update is too expensive: a Stiefel algorithm (3 or 4) with an augmented training
       objective (*, e.g. a reconstruction error).
    3. **Primal or dual?** By the size of the problem: the primal works with the ``d_f x d_f``
       cross-covariance (``d_f = sum_v d_{f,v}``), the dual with the ``n x n`` kernel matrix;
       pick the smaller (the primal when ``d_f < n``).

    Parameters
    ----------
    n : int
        Number of training samples.
    feature_dims : int, list of int or None
        Feature-space dimension of each view (or their sum ``d_f``); ``None`` when unknown or
        infinite (an implicit kernel).
    feature_map_known : bool, default=True
    parametric : bool, default=False

    Returns
    -------
    AlgorithmChoice
        ``algorithm`` (1-4), ``setting``, ``solver``, ``augmented_loss`` and the ``reason``.

    Examples
    --------
    >>> print(choose_algorithm(1000, [5000, 1]))
    Algorithm 2 (dual, eig): d_f = 5001 >= n = 1000: the n x n kernel matrix is the smaller problem.
    """
    n = check_scalar_range(n, "n", low=2, low_inclusive=True, integer=True)
    for value, name in ((feature_map_known, "feature_map_known"), (parametric, "parametric")):
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"{name} must be True or False, got {value!r}.")
    if feature_dims is None:
        d_f = None
    else:
        dims = [feature_dims] if np.isscalar(feature_dims) else list(feature_dims)
        dims = [check_scalar_range(d, "feature_dims", low=1, low_inclusive=True, integer=True) for d in dims]
        d_f = int(sum(dims))
    if not feature_map_known or d_f is None:
        if parametric:
            return AlgorithmChoice(4, "dual", "stiefel", True,
                                   "no explicit feature map: dual only; a parametric pre-image map is trained "
                                   "jointly, so Stiefel training with an augmented loss.")
        return AlgorithmChoice(2, "dual", "eig",
                               False, "no explicit feature map: only the dual (kernel) setting is available.")
    smaller = "primal" if d_f < n else "dual"
    size = (f"d_f = {d_f} < n = {n}: the d_f x d_f cross-covariance is the smaller problem."
            if smaller == "primal" else
            f"d_f = {d_f} >= n = {n}: the n x n kernel matrix is the smaller problem.")
    if parametric:
        algorithm = 3 if smaller == "primal" else 4
        return AlgorithmChoice(algorithm, smaller, "stiefel", True,
                               "trainable feature-map parameters: Stiefel training with an augmented loss; " + size)
    algorithm = 1 if smaller == "primal" else 2
    return AlgorithmChoice(algorithm, smaller, "eig", False, size)
