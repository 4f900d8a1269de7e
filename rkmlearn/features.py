"""Explicit feature maps ``phi(x)`` whose inner products are (approximately) a kernel.

The primal side of the conjugate feature duality works with explicit features ``phi(x)``; the dual
side with the kernel ``k(x, y) = <phi(x), phi(y)>`` (:eq:`eq-kernel-trick`, Chapter 1, *Kernels,
feature maps and conjugate feature duality*). These transformers produce ``Z = phi(X)`` such that
``Z Z^T`` equals (identity, Nystroem with all samples as landmarks) or approximates (random
Fourier features) the Gram matrix of a :class:`~rkmlearn.kernels.Kernel`.

Each transformer follows scikit-learn's conventions (``fit``/``transform``/``fit_transform``,
``n_features_in_``, ``n_features_out_``, ``NotFittedError`` before ``fit``) and has a method
:meth:`get_kernel` returning the kernel its Gram matrix equals or approximates.
(:class:`IdentityFeatures` and :class:`RandomFourierFeatures` also offer it as ``kernel()``;
:class:`NystroemFeatures` cannot, because its constructor parameter is called ``kernel``.)
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ._validation import (
    array,
    check_array,
    check_kernel_params,
    check_n_components,
    check_n_features,
    check_random_state,
    check_scalar_range,
    validate,
)
from .kernels import RBF, Linear, make_kernel

__all__ = ["IdentityFeatures", "RandomFourierFeatures", "NystroemFeatures"]


def _fitted_input(X, param, arguments):
    """Rule of ``transform``: a fitted map, ``X`` with the columns seen in ``fit``."""
    feature_map = arguments["self"]
    check_is_fitted(feature_map, "n_features_in_")
    X = check_array(X, "X")
    check_n_features(X, feature_map.n_features_in_, "X", estimator_name=feature_map)
    return X


#: The checks of ``fit`` and ``transform`` (once, at the door: a view's calls inside a fit trust them).
fit_input, transform_input = validate(X=array()), validate(X=_fitted_input)


class _FeatureMap(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Shared plumbing: the scikit-learn attributes."""

    def _record_input(self, X):
        self.n_features_in_ = X.shape[1]
        return X

    @property
    def _n_features_out(self):
        """Used by ``get_feature_names_out`` (names ``<classname>0``, ``<classname>1``...)."""
        return self.n_features_out_

    def get_kernel(self):  # pragma: no cover - overridden
        """The :class:`~rkmlearn.kernels.Kernel` whose Gram matrix ``Z Z^T`` equals/approximates."""
        raise NotImplementedError


class IdentityFeatures(_FeatureMap):
    """The identity feature map ``phi(x) = x``, the feature map of the linear kernel.

    ``Z Z^T`` equals :class:`~rkmlearn.kernels.Linear` ``()(X)`` (:eq:`eq-kernel-trick` with
    ``k(x, y) = x^T y`` of :eq:`eq-kernel-zoo`, Chapter 1, *Kernels, feature maps and conjugate
    feature duality*).

    Attributes
    ----------
    n_features_in_ : int
        Number of input features.
    n_features_out_ : int
        Equal to ``n_features_in_``.

    Examples
    --------
    >>> IdentityFeatures().fit_transform([[1.0, 2.0]])
    array([[1., 2.]])
    """

    @fit_input
    def fit(self, X, y=None):
        """Record the number of features of ``X``; returns ``self``."""
        X = self._record_input(X)
        self.n_features_out_ = X.shape[1]
        return self

    @transform_input
    def transform(self, X):
        """Return a float64 copy of ``X`` (shape ``(n_samples, n_features_in_)``)."""
        return X.copy()

    def get_kernel(self):
        """The linear kernel, :class:`~rkmlearn.kernels.Linear`."""
        return Linear()

    def kernel(self):
        """Alias of :meth:`get_kernel`."""
        return self.get_kernel()


class RandomFourierFeatures(_FeatureMap):
    """Random Fourier features approximating the RBF kernel (Rahimi & Recht, 2007).

    Implements :eq:`eq-rff` (Chapter 1, *Kernels, feature maps and conjugate feature duality*):

    ``z(x) = sqrt(2 / D) cos(Omega^T x + b)``, ``Omega_ij ~ N(0, 1 / sigma^2)``,
    ``b_j ~ U[0, 2 pi]``,

    so that ``z(x)^T z(y)`` is an unbiased estimate of ``exp(-||x - y||^2 / (2 sigma^2))`` with
    standard error ``O(1 / sqrt(D))``. The random draw is made once in :meth:`fit` and stored, so
    :meth:`transform` is deterministic.

    Parameters
    ----------
    sigma : float, default=1.0
        Bandwidth of the approximated :class:`~rkmlearn.kernels.RBF` kernel, ``sigma > 0``.
    n_features : int, default=100
        Number ``D >= 1`` of random features.
    random_state : int, RandomState instance or None, default=None
        Seed of the draw of ``Omega`` and ``b``.

    Attributes
    ----------
    omega_ : ndarray of shape (n_features_in_, n_features)
        Random frequencies ``Omega``.
    offset_ : ndarray of shape (n_features,)
        Random phases ``b``.
    n_features_in_ : int
    n_features_out_ : int
        Equal to ``n_features``.

    Examples
    --------
    >>> rff = RandomFourierFeatures(sigma=1.0, n_features=5, random_state=0)
    >>> rff.fit_transform([[0.0, 1.0], [1.0, 0.0]]).shape
    (2, 5)
    """

    def __init__(self, sigma=1.0, n_features=100, random_state=None):
        self.sigma = sigma
        self.n_features = n_features
        self.random_state = random_state

    @fit_input
    def fit(self, X, y=None):
        """Draw ``Omega`` (``n_features_in_ x D``) and ``b`` (``D``); returns ``self``."""
        sigma = check_scalar_range(self.sigma, "sigma", low=0.0)
        D = check_scalar_range(
            self.n_features, "n_features", low=1, low_inclusive=True, integer=True
        )
        X = self._record_input(X)
        rng = check_random_state(self.random_state)
        self.omega_ = rng.normal(0.0, 1.0 / sigma, size=(X.shape[1], D))
        self.offset_ = rng.uniform(0.0, 2.0 * np.pi, size=D)
        self.n_features_out_ = D
        return self

    @transform_input
    def transform(self, X):
        """Map ``X`` to ``Z = sqrt(2/D) cos(X Omega + b)``, shape ``(n_samples, D)``."""
        Z = X @ self.omega_
        Z += self.offset_
        np.cos(Z, out=Z)
        Z *= np.sqrt(2.0 / self.n_features_out_)
        return Z

    def get_kernel(self):
        """The approximated kernel, :class:`~rkmlearn.kernels.RBF` ``(sigma)``."""
        return RBF(sigma=self.sigma)

    def kernel(self):
        """Alias of :meth:`get_kernel`."""
        return self.get_kernel()


class NystroemFeatures(_FeatureMap):
    """Nystroem features: the kernel restricted to ``m`` landmark points.

    Implements :eq:`eq-nystroem` (Chapter 1, *Kernels, feature maps and conjugate feature
    duality*): ``z(x) = K_mm^{-1/2} k_m(x)`` with ``k_m(x) = (k(x, x_l))_l`` over ``m`` landmarks
    sampled without replacement from the training data and ``K_mm`` their Gram matrix. Then
    ``z(x)^T z(y) = k_m(x)^T K_mm^+ k_m(y)``, which equals ``k(x, y)`` when the landmarks are all
    training points (``m = N``) and x, y are training points.

    ``K_mm^{-1/2}`` comes from an eigendecomposition ``K_mm = U Lambda U^T`` of the small
    ``m x m`` matrix. Eigenvalues ``<= m * eps * lambda_max`` are treated as zero: their
    directions are dropped instead of being amplified by ``1/sqrt(lambda)`` (a pseudo-inverse).
    The features are returned in the eigenbasis, ``z(x) = Lambda_r^{-1/2} U_r^T k_m(x)``: this is
    the symmetric ``K_mm^{-1/2} k_m(x) = U_r Lambda_r^{-1/2} U_r^T k_m(x)`` rotated by ``U_r^T``,
    which changes no inner product (so no kernel value) but skips one ``m x m`` product; with
    ``m = N`` the Gram matrix then matches the kernel's to about ``1e-12`` instead of ``1e-10``.
    Hence ``n_features_out_`` is the numerical rank ``r <= m`` of ``K_mm``.

    Parameters
    ----------
    kernel : str, Kernel or callable, default="rbf"
        Kernel to approximate (see :func:`~rkmlearn.kernels.make_kernel`).
    n_components : int, default=100
        Number ``m`` of landmarks, ``1 <= m <= n_samples``.
    kernel_params : dict, optional
        Hyperparameters of the kernel when given by name, e.g. ``{"sigma": 2.0}``.
    random_state : int, RandomState instance or None, default=None
        Seed of the landmark sample.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features_in_)
        The landmarks.
    component_indices_ : ndarray of shape (n_components,)
        Their row indices in the training data.
    normalization_ : ndarray of shape (n_components, n_features_out_)
        ``U_r Lambda_r^{-1/2}``; ``normalization_ @ U_r.T`` would be the symmetric
        ``K_mm^{-1/2}``.
    kernel_ : Kernel
        The kernel used.
    n_features_in_ : int
    n_features_out_ : int
        Numerical rank ``r`` of ``K_mm`` (``<= n_components``; equal for well-spread landmarks).
    """

    def __init__(self, kernel="rbf", n_components=100, kernel_params=None, random_state=None):
        self.kernel = kernel
        self.n_components = n_components
        self.kernel_params = kernel_params
        self.random_state = random_state

    def get_kernel(self):
        """The kernel ``make_kernel(kernel, **kernel_params)`` that the features approximate."""
        return make_kernel(self.kernel, **(check_kernel_params(self.kernel_params) or {}))

    @fit_input
    def fit(self, X, y=None):
        """Sample the landmarks and compute ``K_mm^{-1/2}``; returns ``self``."""
        kernel = self.get_kernel()
        X = self._record_input(X)
        n_samples = X.shape[0]
        m = check_n_components(self.n_components, n_samples, "n_components")
        rng = check_random_state(self.random_state)
        idx = rng.choice(n_samples, size=m, replace=False)
        landmarks = X[idx]
        K_mm = kernel(landmarks)
        # Full eigh of the SMALL m x m landmark matrix (all m eigenpairs are needed here).
        evals, evecs = np.linalg.eigh(K_mm)
        tol = m * np.finfo(np.float64).eps * max(evals[-1], 0.0)
        keep = evals > tol
        if not np.any(keep):
            raise ValueError(
                "kernel gives a landmark Gram matrix with no positive eigenvalue (all "
                f"<= {tol:.1e}); check the kernel and its kernel_params."
            )
        U = evecs[:, keep]
        self.normalization_ = U / np.sqrt(evals[keep])
        self.components_ = landmarks
        self.component_indices_ = idx
        self.kernel_ = kernel
        self.n_features_out_ = U.shape[1]
        return self

    @transform_input
    def transform(self, X):
        """Map ``X`` to ``Z = k_m(X) U_r Lambda_r^{-1/2}`` of shape (n_samples, n_features_out_)."""
        return self.kernel_(X, self.components_) @ self.normalization_
