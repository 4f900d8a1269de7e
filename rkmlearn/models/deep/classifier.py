r"""The deep RKM classifier (Part IV, paper 003): dual KPCA levels, a primal classifier level.

:class:`DeepRKMClassifier` composes the shared core: a :class:`~rkmlearn.views.View` per level
(level 1 on ``X``, level ``j`` on ``H_{j-1}``), its training steps (:mod:`.training`: the deep KPCA
initialisation by :func:`~rkmlearn.level.solve_level`, the joint training by
:func:`~rkmlearn.solvers.optimisers.projected_gradient` over the product of the levels' Stiefel
manifolds and the classifier's Euclidean weights), and :func:`~rkmlearn.preimage.kernel_smoother`
for out-of-sample points. The objective and its gradients are the pure functions of :mod:`.objective`.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.exceptions import ConvergenceWarning, NotFittedError

from ..._validation import (array, check_array, check_class_labels, check_n_features, check_option,
                            check_random_state, check_scalar_range, checked_by, validate)
from ...base import estimator_init
from ...kernels import make_kernel, squared_euclidean_distances
from ...level import check_centred_gram
from ...preimage import kernel_smoother
from ...solvers.optimisers import Adam
from ...views import View
from .objective import DIFFERENTIABLE_KERNELS, deep_objective, mlp_forward
from .training import (check_levels, distance_unit, initial_classifier, initial_levels, joint_dkpca, median_distance,
                       train)

__all__ = ["DeepRKMClassifier", "SMOOTHER_FRACTION"]

#: Default smoother bandwidth as a fraction of the median distance between two training points. On
#: MNIST a validation split picks 0.6 for 50 training images, 0.25 to 0.6 for 100 and 0.15 to 0.25
#: for 250 to 1000 (``benchmarks/experiment_table2_mnist.py``, Chapter 9): 0.25 is in the middle.
SMOOTHER_FRACTION = 0.25


class DeepRKMClassifier(ClassifierMixin, TransformerMixin, BaseEstimator):
    r"""Deep RKM classifier: ``L`` KPCA levels in the dual, one classifier level in the primal (Chapter 9).

    Minimises :eq:`eq-deep-lssvm` (``classifier="lssvm"``; one level is the shallow model
    :eq:`eq-deep-shallow`) or :eq:`eq-deep-mlp` (``classifier="mlp"``) over the hidden features
    ``H_1, ..., H_L`` (each on its Stiefel manifold, ``H_j^T H_j = I``) and the classifier's weights,
    by projected gradient descent (:eq:`eq-deep-pgd`: compact-SVD projection of each ``H_j``,
    weights unprojected, Armijo backtracking). The LS-SVM weights share the line search, so that
    objective decreases monotonically; the MLP weights are trained by Adam, as the paper, so that
    objective need not (the ``H_j`` keep their line search). Level 1
    uses the centred kernel matrix of ``X``, level ``j`` that of ``H_{j-1}``. New points get the
    last level's hidden features by the kernel smoother :eq:`eq-deep-smoother`, then the primal
    classifier :eq:`eq-deep-predict`.

    Parameters
    ----------
    n_components : "auto", int or sequence of int, default="auto"
        ``s_j`` per level; its length is the number of levels ``L`` (an int: one level).
        ``1 <= s_j <= n_samples - 1``. ``"auto"``: two levels of ``min(max(3, p - 1), n_samples - 1)``
        components for ``p`` classes, the book's ``(3, 3)`` for a binary problem of at least 4 samples
        (``(1, 1)`` for 2 samples; stored in ``n_components_``).
    kernels : str, Kernel, list or None, default=None
        Kernel of each level (one for all, or one per level). Levels ``j >= 2`` need a kernel
        whose gradient is coded: ``"rbf"`` or ``"linear"``. None: the book's choice (Chapter 9),
        ``"rbf"`` for level 1 and ``"linear"`` for the deeper levels, which need no bandwidth
        (``"rbf"`` for a deeper level whose ``kernel_params`` give a ``sigma``).
    kernel_params : dict, None or list, default=None
        Kernel hyperparameters, one dict for all levels or one per level (e.g.
        ``[{"sigma": 3.0}, {"sigma": 0.1}]``; the rows of ``H_j`` have norms about
        ``sqrt(s_j / N)``, so level ``j >= 2`` bandwidths are small). None (or None for level 1)
        with an RBF level 1: ``sigma`` is the median distance between two training points (the
        paper's rule; stored in ``level_sigma_``).
    etas : float or sequence of float, default=1.0
        ``eta_j > 0`` of each KPCA level (the paper uses 1).
    lam : float, default=0.5
        ``lambda > 0`` of the classifier level (the paper's 0.5).
    eta : float, default=1.0
        ``eta > 0``, the weight-decay of the classifier level.
    classifier : {"lssvm", "mlp"}, default="lssvm"
        Linear LS-SVM level (one-vs-all ``{-1, +1}`` outputs for more than two classes) or a
        one-hidden-layer ReLU MLP with softmax cross-entropy. The ``p`` LS-SVM outputs share the
        last level's ``H``; with ``s_L < p - 1`` they cannot all be fitted (Chapter 9, Table 2). The
        paper's one-vs-all trains ``p`` binary DRKMs, each with its own levels:
        ``sklearn.multiclass.OneVsRestClassifier(DeepRKMClassifier(...))``.
    n_hidden : int, default=10
        Hidden units of the MLP level (the paper's 10).
    init : {"random", "dkpca", "dkpca-greedy"} or list of ndarray, default="random"
        ``"random"``: standard normal ``H_j`` projected onto the Stiefel manifold (end-to-end
        training); ``"dkpca"``: the paper's deep KPCA, the minimiser of the joint unsupervised
        objective of all levels (:eq:`eq-deep-dkpca`, the classifier term off), by projected
        gradients started from the greedy levels; ``"dkpca-greedy"``: the levels one after the
        other with :func:`~rkmlearn.level.solve_level` (level ``j`` the KPCA of ``H_{j-1}``; a linear
        level with ``s_j < s_{j-1}`` is a tie, every ``s_j``-dimensional subspace of ``span(H_{j-1})``
        being optimal, since its matrix ``H_{j-1} H_{j-1}^T`` has all nonzero eigenvalues 1: it takes
        the leading ``s_j`` columns of ``H_{j-1}``, so the choice does not depend on rounding, on the
        order of the samples or on the scale of ``X``).
        With linear deeper levels both are optimal (Chapter 9); an RBF deeper level makes the
        joint objective lower. A list of ``L`` arrays ``(n_samples, s_j)``: these levels (projected
        onto the Stiefel manifolds), e.g. the ``H_`` of one unsupervised fit shared by the ``p``
        binary models of a one-vs-all scheme.
    dkpca_max_iter : int, default=1000
        Projected-gradient iterations of the joint deep KPCA (``init="dkpca"``); it stops earlier
        when the Riemannian gradient norm is ``<= tol * max(1, |J|)``.
    fine_tune : bool, default=True
        False: keep the initial ``H_j`` and train the classifier weights only (the paper's
        "DKPCA initialisation, no fine-tuning").
    smoother_sigma : float or None, default=None
        ``sigma~ > 0``, bandwidth of the Gaussian kernel smoother :eq:`eq-deep-smoother` (input
        units). None: ``SMOOTHER_FRACTION`` (0.25) times the median distance between two training
        points (stored in ``smoother_sigma_``); validation on MNIST picks 0.15 to 0.6, larger for
        fewer training points (Chapter 9). It acts at prediction only: ``set_params`` after fit
        changes it without refitting.
    learning_rate : float, default=0.03
        ``> 0``, Adam's step size for the MLP weights (Adam, as the paper; unused by the LS-SVM).
        Adam's usual 1e-3 barely moves the weights in 100 iterations (digits, ``N = 500``: about 20%
        training accuracy); 0.03 fits them (100% with fine-tuning), its objective not rising in those
        runs; 0.3 can diverge.
    max_iter : int, default=100
        Projected-gradient iterations (the paper trains for at most 100). A run that stops there
        before ``tol`` warns (:class:`~sklearn.exceptions.ConvergenceWarning`); the paper's fixed
        budget does not converge, which is expected.
    tol : float, default=1e-8
        Stop when the Riemannian gradient norm is ``<= tol * max(1, |J|)``.
    random_state : int, RandomState, Generator or None, default=None

    Notes
    -----
    **Defaults.** The defaults are the book's settings: for one binary problem ``(3, 3)``
    components, RBF level 1 at the median distance, a linear level 2, the paper's ``lambda = 0.5``,
    ``eta_j = eta = 1``, 100 iterations. For ``p > 2`` classes, ``p`` one-vs-all outputs share the
    last level's ``s_L`` features and cannot all be fitted when ``s_L < p - 1`` (Chapter 9: on
    digits three shared features score 57 %), so ``"auto"`` gives both levels ``p - 1``: on
    scikit-learn's digits (1000 training, 500 test) ``(9, 9)`` scores 97.4 % in 0.3 s, as
    ``MLPClassifier()`` (``benchmarks/bench_deep.py``). The paper's one-vs-all trains ``p``
    binary models instead, ``OneVsRestClassifier(DeepRKMClassifier())``. The MLP level
    (``classifier="mlp"``) needs a smaller ``lam`` and ``eta`` than the paper's (e.g. 0.01 and
    1e-4): its cross-entropy is weighted by ``1 / (2 lam N)``, which the weight decay and the
    KPCA terms swamp at ``lam = 0.5`` (a warning says so when it predicts one class).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_components_ : tuple of int
        ``s_j`` per level (``n_components`` resolved).
    H_ : list of ndarray of shape (n_samples, s_j)
        Hidden features of every level (``H_j^T H_j = I``).
    coef_ : ndarray of shape (s_L, n_outputs)
        LS-SVM weights ``W`` (``classifier="lssvm"``).
    intercept_ : ndarray of shape (n_outputs,)
    mlp_params_ : tuple of two ndarrays or None
        ``([W1; b1^T], [W2; b2^T])`` of the MLP level.
    history_ : dict
        Per iterate: ``objective`` (monotone for the LS-SVM), ``constraint_violation``, ``grad_norm``.
    n_iter_ : int
    converged_ : bool
    objective_ : float
        Final value of :eq:`eq-deep-lssvm` / :eq:`eq-deep-mlp`.
    init_objective_ : float or None
        Deep KPCA objective :eq:`eq-deep-dkpca` of the levels training starts from (``init="dkpca"``:
        the joint minimiser; ``"dkpca-greedy"``: the greedy levels); None for ``init="random"``.
    dkpca_n_iter_ : int or None
        Iterations of the joint deep KPCA (``init="dkpca"``).
    level_sigma_ : float or None
        Level 1's RBF bandwidth (the median distance when not given).
    smoother_sigma_ : float
        The smoother bandwidth used by :meth:`transform`.
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> X, y = make_moons(80, noise=0.1, random_state=0)
    >>> model = DeepRKMClassifier(n_components=(4, 2), kernels="rbf",
    ...                           kernel_params=[{"sigma": 0.5}, {"sigma": 0.2}],
    ...                           smoother_sigma=0.2, random_state=0).fit(X, y)
    >>> [round(float(np.abs(H.T @ H - np.eye(H.shape[1])).max()), 12) for H in model.H_]
    [0.0, 0.0]
    >>> bool(model.score(X, y) > 0.8)
    True
    """

    __init__ = estimator_init(
        {"n_components": "auto"},
        {
            "kernels": None,
            "kernel_params": None,
            "etas": 1.0,
            "lam": 0.5,
            "eta": 1.0,
            "classifier": "lssvm",
            "n_hidden": 10,
            "init": "random",
            "dkpca_max_iter": 1000,
            "fine_tune": True,
            "smoother_sigma": None,
            "learning_rate": 0.03,
            "max_iter": 100,
            "tol": 1e-8,
            "random_state": None,
        },
    )

    # -- parameters ------------------------------------------------------------------------
    def _check_smoother(self):
        """``smoother_sigma`` as a float, or None; checked at fit and again at prediction (set_params)."""
        if self.smoother_sigma is None:
            return None
        sigma = check_scalar_range(self.smoother_sigma, "smoother_sigma", low=0.0)
        if not 1e-150 <= sigma <= 1e150:  # the smoother divides by 2 sigma~^2
            raise ValueError(
                f"smoother_sigma must lie in [1e-150, 1e150] (2 sigma~^2 must be a finite, nonzero "
                f"float64); got {sigma!r}. Use a bandwidth on the scale of the distances between "
                "samples, or None (a fraction of the median distance)."
            )
        return float(sigma)

    def _check_parameters(self):
        check_scalar_range(self.lam, "lam", low=0.0)
        check_scalar_range(self.eta, "eta", low=0.0)
        self._check_smoother()
        check_scalar_range(self.learning_rate, "learning_rate", low=0.0)
        check_option(self.classifier, "classifier", ("lssvm", "mlp"))
        if isinstance(self.init, str) or not isinstance(self.init, (list, tuple)):
            check_option(self.init, "init", ("random", "dkpca", "dkpca-greedy"))
        check_scalar_range(self.dkpca_max_iter, "dkpca_max_iter", low=0, low_inclusive=True, integer=True)
        check_scalar_range(self.n_hidden, "n_hidden", low=1, low_inclusive=True, integer=True)
        check_scalar_range(self.max_iter, "max_iter", low=0, low_inclusive=True, integer=True)
        check_scalar_range(self.tol, "tol", low=0.0, low_inclusive=True)
        if not isinstance(self.fine_tune, (bool, np.bool_)):
            raise ValueError(f"fine_tune must be True or False; got {self.fine_tune!r}.")

    # -- training --------------------------------------------------------------------------
    @validate(X=array())
    def fit(self, X, y):
        """Train the levels and the classifier jointly (:eq:`eq-deep-pgd`); returns ``self``."""
        self.classes_, labels = check_class_labels(y, X.shape[0], type(self).__name__)
        self._check_parameters()
        n = X.shape[0]
        s, kernel_names, kernel_params, etas = check_levels(self, n, len(self.classes_))
        self.n_components_ = tuple(s)
        rng = check_random_state(self.random_state)

        level1_params = kernel_params[0]
        auto_sigma = kernel_names[0] == "rbf" and (level1_params is None or "sigma" not in level1_params)
        median = median_distance(X) if auto_sigma or self.smoother_sigma is None else None
        if auto_sigma:
            level1_params = {**(level1_params or {}), "sigma": median}  # the paper's rule
        view = View(kernel=kernel_names[0], kernel_params=level1_params)
        K0_c = view.fit_centred_gram(X)
        check_centred_gram(K0_c, view.scale_, f"X: the centred kernel matrix of level 1 ({view.description})")
        self.level_sigma_ = getattr(view.kernel_, "sigma", None)
        self.smoother_sigma_ = (SMOOTHER_FRACTION * median if self.smoother_sigma is None
                                else float(self.smoother_sigma))
        kernels = [make_kernel(k, **(p or {})) for k, p in zip(kernel_names[1:], kernel_params[1:])]
        for k in kernels:
            if not isinstance(k, DIFFERENTIABLE_KERNELS):
                raise ValueError(
                    f"kernels: levels j >= 2 need 'rbf' or 'linear' (the gradient with respect to H_(j-1) "
                    f"is coded for these); got {k!r}."
                )
        Hs = initial_levels(self.init, X, view, s, kernels, rng)
        self.init_objective_ = self.dkpca_n_iter_ = None
        if isinstance(self.init, str) and self.init == "dkpca":
            Hs, self.dkpca_n_iter_ = joint_dkpca(K0_c, kernels, etas, Hs, max_iter=self.dkpca_max_iter, tol=self.tol)
        if not (isinstance(self.init, str) and self.init == "random"):
            self.init_objective_ = float(deep_objective(K0_c, kernels, etas)[0](Hs))
        theta, head = initial_classifier(self.classifier, self.classes_.size, s[-1], labels, float(self.lam),
                                         float(self.eta), int(self.n_hidden), rng)
        adam = None if self.classifier == "lssvm" else Adam(float(self.learning_rate))  # MLP: Adam, as the paper
        Hs, theta, result = train(K0_c, kernels, etas, head, Hs, theta, adam=adam, fine_tune=self.fine_tune,
                                  max_iter=self.max_iter, tol=self.tol)

        self.H_ = [np.asarray(H) for H in Hs]
        self._set_classifier(theta)
        self.history_, self.n_iter_, self.converged_ = result.history, result.n_iter, result.converged
        self.objective_ = float(result.fun)
        if not self.converged_ and self.max_iter > 0:
            warnings.warn(
                f"DeepRKMClassifier stopped at max_iter={self.max_iter} before the gradient norm reached "
                f"tol={self.tol} (objective {self.objective_:.6g}). The paper's fixed budget is 100 "
                "iterations; raise max_iter to train to convergence.",
                ConvergenceWarning,
                stacklevel=3,  # fit's caller (fit is @validate-wrapped)
            )
        if np.unique(self._train_predictions()).size == 1:
            hint = (" The MLP level's cross-entropy is weighted by 1/(2 lam N): lower lam and eta (e.g. "
                    "lam=0.01, eta=1e-4)." if self.classifier == "mlp" else " Lower lam or eta.")
            warnings.warn(
                f"DeepRKMClassifier predicts one class for every training sample (lam={self.lam}, "
                f"eta={self.eta}): the classifier term is swamped by the weight decay.{hint}",
                ConvergenceWarning,
                stacklevel=3,  # fit's caller (fit is @validate-wrapped)
            )
        self.kernels_ = [view.kernel_] + kernels
        self.X_fit_, self.n_features_in_ = view.X_, X.shape[1]
        return self

    def _train_predictions(self):
        scores = self._scores(self.H_[-1])
        if scores.shape[1] == 1:
            return scores[:, 0] > 0
        return np.argmax(scores, axis=1)

    def _set_classifier(self, theta):
        if self.classifier == "lssvm":
            self.coef_, self.intercept_ = theta[0][:-1].copy(), theta[0][-1].copy()
            self.mlp_params_ = None
        else:
            self.coef_ = self.intercept_ = None
            self.mlp_params_ = (theta[0].copy(), theta[1].copy())

    # -- inference -------------------------------------------------------------------------
    def _check_fitted(self):
        if not hasattr(self, "H_"):
            raise NotFittedError(f"This {type(self).__name__} is not fitted yet; call fit(X, y) first.")

    def _check_input(self, X):
        """The rule of :meth:`transform`: a fitted model, ``X`` with the training columns."""
        self._check_fitted()
        X = check_array(X, "X")
        check_n_features(X, self.n_features_in_, "X", estimator_name=self)
        return X

    @validate(X=checked_by("_check_input"))
    def transform(self, X):
        r"""Last level's hidden features of new points by the kernel smoother :eq:`eq-deep-smoother`.

        ``h* = sum_i k~(x_i, x) h_i / sum_i k~(x_i, x)`` with the Gaussian ``k~`` of bandwidth
        ``smoother_sigma`` (``smoother_sigma_`` when it is None). Each row's weights are computed from
        the squared distances minus their
        smallest value (a factor per row, which the normalisation cancels), so far-away points do not
        underflow to zero weights.
        """
        # the smoother acts at prediction only: a bandwidth set after fit (set_params) is used as is
        sigma = self._check_smoother() or self.smoother_sigma_
        unit = distance_unit(X, self.X_fit_)  # 1.0, or a power of two for X of extreme magnitude
        if unit == 1.0:
            D = squared_euclidean_distances(X, self.X_fit_)
        else:  # distances and bandwidth in the unit: their squares stay in float64's range
            D, sigma = squared_euclidean_distances(X / unit, self.X_fit_ / unit), sigma / unit
        D -= D.min(axis=1, keepdims=True)
        weights = np.exp(-D / (2.0 * sigma**2))
        return kernel_smoother(weights, self.H_[-1], None)  # uncentred weights, used as given

    def _scores(self, H):
        if self.classifier == "lssvm":
            return H @ self.coef_ + self.intercept_
        return mlp_forward(H, *self.mlp_params_)[0]

    def decision_function(self, X):
        """Classifier outputs :eq:`eq-deep-predict` on the smoothed hidden features (binary: one column)."""
        scores = self._scores(self.transform(X))
        if self.classes_.size == 2:
            return scores[:, 0] if scores.shape[1] == 1 else scores[:, 1] - scores[:, 0]
        return scores

    def predict(self, X):
        """Class labels: the sign (binary) or the largest output (one-vs-all / softmax)."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]
