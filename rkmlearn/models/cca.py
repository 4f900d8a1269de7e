r"""Kernel canonical correlation analysis in its LS-SVM / RKM form (Suykens et al., 2002; Part VI).

Two views of the same samples, centred features ``Phi_1``, ``Phi_2``. The LS-SVM primal
(Suykens et al. 2002, kernel CCA) maximises ``gamma e^T r - nu/2 (e^T e + r^T r) - 1/2 (w^T w + v^T v)``
over ``e = Phi_1 w``, ``r = Phi_2 v``. Its conditions, with ``rho = gamma / nu`` and the
regularisation ``kappa = 1 / nu``, are

primal: ``C_12 v = rho (C_11 + kappa I) w``, ``C_21 w = rho (C_22 + kappa I) v`` (``C_uv = Phi_u^T Phi_v``),

dual:   ``Omega_2 beta = rho (Omega_1 + kappa I) alpha``, ``Omega_1 alpha = rho (Omega_2 + kappa I) beta``
(``Omega_v`` the centred Gram matrices, ``w = Phi_1^T alpha``, ``v = Phi_2^T beta``).

The primal is the symmetric-definite pencil ``[[0, C_12], [C_21, 0]] x = rho blockdiag(C_11 + kappa I,
C_22 + kappa I) x``; its metric is block diagonal, so the Cholesky reduction of
:func:`~rkmlearn.solvers.generalized.generalized_eigenpairs` is one off-diagonal block ``M``,
whose singular values are ``rho`` (``_canonical_pairs``: a quarter of the work of reducing the
whole pencil).
The dual is not symmetric, but it is the primal of any factors ``Omega_v = F_v F_v^T``: with the
pivoted Cholesky factors (:func:`~rkmlearn.solvers.linear.pivoted_cholesky`, exact to the rank
tolerance) the pencil has the size of the two ranks, and the dual coefficients follow from the
first dual equation, ``alpha = (F_2 v - rho F_1 w) / (rho kappa)`` (``beta`` likewise), which
gives back ``F_1^T alpha = w``. ``tests/test_cca.py`` checks it against a dense solve of the dual.
As ``kappa -> 0`` with linear kernels ``rho`` tends to the classical canonical correlations.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import array, check_n_components, check_option, check_scalar_range, check_two_samples, validate
from ..base import estimator_init
from ..solvers.eigen import flip_signs, rank_tolerance, top_eigenpairs
from ..solvers.linear import pivoted_cholesky
from .latent import make_views

__all__ = ["KernelCCA"]


class KernelCCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    r"""Regularised kernel CCA of two views, dual (kernels) or primal (feature maps) (Part VI).

    Implements :eq:`eq-kcca-primal` and its conditions :eq:`eq-kcca-conditions` (Chapter 12,
    *Kernel canonical correlation analysis*).

    ``fit(X, Y)`` as scikit-learn's ``CCA``: ``X`` is the first view, ``Y`` the second.

    Parameters
    ----------
    n_components : int, default=2
        Number of canonical pairs.
    kernels : list of two kernel specifications, or None, default=None
        One per view (``make_kernel`` specifications: ``"rbf"``, a ``Kernel`` such as
        ``RBF(sigma=2.0)``, a callable, or None for the linear kernel). None: the RBF kernel with
        ``sigma = 1`` in both views.
    feature_maps : list of two transformers or None, default=None
        Explicit feature maps (a view takes a kernel or a feature map); needed for ``setting="primal"``.
    regularization : float, default=1e-3
        ``kappa > 0``, in the units of the Gram matrices' eigenvalues (``Omega_v`` is not divided
        by n). Keeps ``C_vv + kappa I`` definite: without it every direction of a rich kernel has
        correlation 1.
    setting : {"dual", "primal"}, default="dual"

    Attributes
    ----------
    correlations_ : ndarray of shape (n_components,)
        ``rho``, descending (regularised canonical correlations).
    x_scores_, y_scores_ : ndarray of shape (n_samples, n_components)
        ``e = Omega_1 alpha`` and ``r = Omega_2 beta`` of the training samples.
    dual_coef_ : tuple of two ndarrays of shape (n_samples, n_components)
        ``(alpha, beta)``.
    x_weights_, y_weights_ : ndarray of shape (n_features_out, n_components) or None
        ``w`` and ``v`` in the feature space of explicit views (primal); None for kernels.
    views_ : list of two View
    n_features_in_ : int
        Columns of ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(100, 1))
    >>> X = np.hstack([z, rng.normal(size=(100, 2))])
    >>> Y = np.hstack([rng.normal(size=(100, 1)), -z + 0.1 * rng.normal(size=(100, 1))])
    >>> model = KernelCCA(1, kernels=[None, None], regularization=1e-6).fit(X, Y)
    >>> round(float(model.correlations_[0]), 2)
    0.99
    """

    __init__ = estimator_init({"n_components": 2}, {"kernels": None, "feature_maps": None,
                                                    "regularization": 1e-3, "setting": "dual"})

    def _views(self):
        setting = check_option(self.setting, "setting", ("dual", "primal"))
        kernels = self.kernels
        if kernels is None and self.feature_maps is None:
            kernels = ["rbf", "rbf"]
        if kernels is None and self.feature_maps is not None:
            kernels = [None, None]
        return make_views(kernels, self.feature_maps, 2, setting)

    @validate(X=array(), Y=lambda Y, name, arguments: _second_view(Y))
    def fit(self, X, Y=None):
        """Fit the canonical pairs of ``X`` (n, d_1) and ``Y`` (n, d_2) or (n,); returns self."""
        Y = Y.reshape(len(Y), -1)
        if len(Y) != len(X):
            raise ValueError(f"X and Y must have the same number of samples (rows); got {len(X)} and {len(Y)}.")
        check_two_samples(len(X), "X", "KernelCCA")
        kappa = check_scalar_range(self.regularization, "regularization", low=0.0)
        s = check_n_components(self.n_components, len(X), "n_components")
        views = self._views()
        if self.setting == "primal":
            for view, Z, name in zip(views, (X, Y), ("X", "Y")):
                view.fit(Z, name=name)
            factors = [view.centred_features() for view in views]
        else:
            factors = [_factor(view.fit_centred_gram(Z, name=name)) for view, Z, name in zip(views, (X, Y), ("X", "Y"))]
        F1, F2 = factors
        r1, r2 = F1.shape[1], F2.shape[1]
        if s > min(r1, r2):
            raise ValueError(f"n_components={s} is larger than the number of canonical pairs the views allow "
                             f"(min of their ranks: {r1} and {r2}); pass n_components <= {min(r1, r2)}.")
        rho, w, v = _canonical_pairs(F1, F2, kappa, s)
        if rho[-1] <= rank_tolerance(r1 + r2) * max(rho[0], 1.0):
            raise ValueError(f"only {int((rho > rank_tolerance(r1 + r2)).sum())} canonical correlations are nonzero; "
                             f"pass a smaller n_components (got {s}).")
        e, signs = flip_signs(F1 @ w, return_signs=True)  # signs from the variates, whatever the factors
        w, v = w * signs, v * signs
        r = F2 @ v
        self.correlations_, self.x_scores_, self.y_scores_ = rho, e, r
        self.dual_coef_ = ((r - rho * e) / (rho * kappa), (e - rho * r) / (rho * kappa))
        explicit = self.setting == "primal"
        self.x_weights_, self.y_weights_ = (w, v) if explicit else (None, None)
        self.views_ = views
        self.n_features_in_ = X.shape[1]
        self._n_features_out = s
        return self

    def _check_input(self, X, view, name):
        return self.views_[view].check_input(X, name, estimator=self)

    @validate(X=array(), Y=array(ensure_2d=False, optional=True))
    def transform(self, X, Y=None):
        """Canonical variates of new samples: ``e(x) = k_c(x)^T alpha`` (and ``r(y)`` if ``Y`` is given)."""
        check_is_fitted(self, "correlations_")
        X = self._check_input(X, 0, "X")
        scores = self._scores(0, X)
        if Y is None:
            return scores
        return scores, self._scores(1, self._check_input(Y.reshape(len(Y), -1), 1, "Y"))

    def _scores(self, v, Z):
        if self.x_weights_ is not None:
            return self.views_[v].centred_features(Z) @ (self.x_weights_, self.y_weights_)[v]
        return self.views_[v].centred_kernel_rows(Z) @ self.dual_coef_[v]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags


def _canonical_pairs(F1, F2, kappa, s):
    """The top ``s`` pairs of the pencil ``[[0, C12], [C21, 0]] x = rho blockdiag(B1, B2) x``, ``B_v = F_v^T F_v + kappa I``.

    ``B`` is block diagonal, so the reduction ``L^-1 A L^-T`` of the generalised solver is the
    off-diagonal block ``M = L1^-1 F1^T F2 L2^-T`` alone (``B_v = L_v L_v^T``): its singular values
    are ``rho`` (the pencil's eigenvalues are ``+-rho``) and its singular vectors ``u``, ``v`` give
    ``x = [L1^-T u; L2^-T v] / sqrt(2)`` with ``x^T B x = 1``. The top pairs come from the smaller
    Gram matrix of ``M`` by the symmetric eigensolver. Returns ``rho`` (s,), ``w`` (r1, s), ``v`` (r2, s).
    """
    factors = []
    for F in (F1, F2):
        B = F.T @ F
        B[np.diag_indices_from(B)] += kappa
        factors.append(scipy.linalg.cholesky(B, lower=True, check_finite=False))
    L1, L2 = factors
    M = scipy.linalg.solve_triangular(L1, F1.T @ F2, lower=True, check_finite=False)
    M = scipy.linalg.solve_triangular(L2, M.T, lower=True, check_finite=False).T
    wide = M.shape[0] <= M.shape[1]
    values, vectors = top_eigenpairs(M @ M.T if wide else M.T @ M, s, check_rank=False)
    rho = np.sqrt(np.clip(values, 0.0, None))
    other = (M.T @ vectors if wide else M @ vectors) / np.where(rho > 0, rho, 1.0)
    u, v = (vectors, other) if wide else (other, vectors)
    w = scipy.linalg.solve_triangular(L1, u, lower=True, trans="T", check_finite=False) / np.sqrt(2.0)
    v = scipy.linalg.solve_triangular(L2, v, lower=True, trans="T", check_finite=False) / np.sqrt(2.0)
    return rho, w, v


def _second_view(Y):
    """Rule of ``fit``'s ``Y``: the second view is required (scikit-learn's words for a missing target)."""
    if Y is None:
        raise ValueError("KernelCCA requires y to be passed, but the target y is None: pass the second view as Y.")
    return array(ensure_2d=False)(Y, "Y", {})


def _factor(K_c):
    """Pivoted Cholesky factor of a centred Gram matrix (its largest eigenvalue bounded by the trace)."""
    F, _, rank = pivoted_cholesky(K_c, max(float(np.trace(K_c)), np.finfo(np.float64).tiny))
    return F
