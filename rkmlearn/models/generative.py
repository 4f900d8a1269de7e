r"""Generative RKM (Gen-RKM; Pandey, Schreurs & Suykens, 2021): multi-view kernel PCA that generates (Part VI).

Training is multi-view kernel PCA (:class:`~rkmlearn.MultiViewKPCA`, the level of Part I): one
hidden feature ``h_i`` per sample shared by every view. Generation has three steps:

1. a density ``p(h)`` fitted to the training hidden features ``H`` (here a full-covariance
   Gaussian, ``density="gaussian"``, or a Gaussian mixture, ``density="gmm"``: scikit-learn's
   ``GaussianMixture``; the choice is ours: Gen-RKM's paper fits a density to ``H``, and this is
   the one this library documents and tests);
2. new hidden units ``h* ~ p(h)``;
3. every view from ``h*`` by its pre-image: ``phi_v(x*) = U_v h*`` (primal) or
   ``Phi_{v,c}^T H h*`` (dual), mapped to inputs exactly for identity views, else by the kernel
   smoother (:meth:`~rkmlearn.MultiViewKPCA.decode`).

Conditional generation fixes some views: their hidden units ``h0 = (Gamma - U_t^T U_t)^{-1}
sum_{w != t} U_w^T phi_{w,c}(x_w)`` are the imputation of view ``t`` (Part I's
:meth:`~rkmlearn.MultiViewKPCA.predict_view`); samples add to ``h0`` a Gaussian with the
covariance of the training residuals ``h_i - h0(x_i)``, so their spread is the spread that the
given views leave unexplained in the training data.
"""

from __future__ import annotations

import numpy as np
from sklearn.mixture import GaussianMixture
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._validation import check_option, check_scalar_range, check_two_samples, checked_by, validate
from ..base import LEVEL_DEFAULTS, estimator_init
from .multiview import MultiViewKPCA

__all__ = ["GenerativeRKM", "DENSITIES"]

DENSITIES = ("gaussian", "gmm")


class GenerativeRKM(MultiViewKPCA):
    r"""Generative multi-view RKM: multi-view kernel PCA, a density on its hidden units, pre-images (Part VI).

    Implements :eq:`eq-genrkm-preimage` (Chapter 13, *Generative RKMs*).

    Parameters
    ----------
    n_components, kernels, feature_maps, setting, solver, rescale, rotate, eigen_solver, optimizer,
    learning_rate, max_iter, tol, preimage_top_k, random_state, verbose :
        As in :class:`~rkmlearn.MultiViewKPCA`.
    view_sizes : tuple of int or None, default=None
        The views given as ONE array ``X = np.hstack(Xs)`` (scikit-learn's form): the columns of
        each view, in order; one entry may be ``-1`` (the columns the others leave); ``None``: one
        array is one view. :meth:`transform`, :meth:`predict_view` and :meth:`sample_given` take
        either form (one array: the columns of fit; those of the target view are not read and may
        be NaN). Fitted on one array, ``n_features_in_`` is an int and :meth:`sample` returns one
        array, the views side by side; :meth:`decode`, :meth:`predict_view` and
        :meth:`sample_given` return the target view's block of columns. As in
        :class:`~rkmlearn.MultiViewKPCA`.
    density : {"gaussian", "gmm"}, default="gaussian"
        The density fitted to the rows of ``H_``.
    n_mixture_components : int, default=10
        Components of the Gaussian mixture (``density="gmm"``), ``<= n_samples``.

    Attributes
    ----------
    density_ : dict or GaussianMixture
        ``{"mean": (s,), "cov": (s, s)}`` for the Gaussian, else the fitted mixture.
    residual_cov_ : list of ndarray of shape (n_components, n_components)
        Per target view ``t``, the covariance of ``H_ - h0``, ``h0`` the hidden units imputed from
        the other views (:meth:`sample_given`); None where they cannot determine every hidden unit;
        empty for one view.
    Others as :class:`~rkmlearn.MultiViewKPCA`.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(200, 2))
    >>> Xs = [z @ rng.normal(size=(2, 5)), z @ rng.normal(size=(2, 3))]
    >>> model = GenerativeRKM(n_components=2, random_state=0).fit(Xs)
    >>> [X.shape for X in model.sample(4, random_state=0)]
    [(4, 5), (4, 3)]
    >>> joint = GenerativeRKM(n_components=2, view_sizes=(5, -1), random_state=0).fit(np.hstack(Xs))
    >>> joint.sample(4, random_state=0).shape, bool(np.allclose(joint.H_, model.H_))
    ((4, 8), True)
    """

    __init__ = estimator_init({"n_components": 2}, {"kernels": None, "feature_maps": None, **LEVEL_DEFAULTS,
                                                    "preimage_top_k": None, "random_state": None,
                                                    "density": "gaussian", "n_mixture_components": 10,
                                                    "view_sizes": None})

    @validate(Xs=checked_by("_checked_form"))
    def fit(self, Xs, y=None):
        """Fit multi-view kernel PCA to ``Xs``, then the density of its hidden units; returns self.

        ``Xs``: a list of views, or one array of them side by side (``view_sizes``), as
        :meth:`MultiViewKPCA.fit <rkmlearn.MultiViewKPCA.fit>`.
        """
        parsed = self._parsed(Xs)
        Xs = parsed.views
        density = check_option(self.density, "density", DENSITIES)
        if density == "gmm":  # a mixture of at most n components: n >= 2 first (its own message)
            check_two_samples(Xs[0].shape[0], "X" if parsed.single else "Xs[0]", type(self).__name__)
            check_scalar_range(self.n_mixture_components, "n_mixture_components", low=1, high=Xs[0].shape[0],
                               low_inclusive=True, integer=True)
        super().fit(parsed)
        if density == "gaussian":
            self.density_ = {"mean": self.H_.mean(axis=0), "cov": np.atleast_2d(np.cov(self.H_, rowvar=False))}
        else:
            self.density_ = GaussianMixture(self.n_mixture_components, covariance_type="full",
                                            random_state=check_random_state(self.random_state).randint(2**31 - 1))
            self.density_.fit(self.H_)
        self.residual_cov_ = []
        if self.n_views_ >= 2:
            for t in range(self.n_views_):
                if self._impute_solvers[t].singular:  # the other views cannot fix every hidden unit
                    self.residual_cov_.append(None)
                    continue
                given = [None if v == t else X for v, X in enumerate(Xs)]
                _, h0 = self.predict_view(given, t, return_latent=True)
                self.residual_cov_.append(np.atleast_2d(np.cov(self.H_ - h0, rowvar=False)))
        return self

    def sample_latent(self, n_samples=1, *, random_state=None):
        """``n_samples`` hidden units drawn from the fitted density, (n_samples, n_components)."""
        check_is_fitted(self, "density_")
        n_samples = check_scalar_range(n_samples, "n_samples", low=1, low_inclusive=True, integer=True)
        rng = check_random_state(random_state)
        if isinstance(self.density_, dict):
            return _gaussian(rng, self.density_["mean"], self.density_["cov"], n_samples)
        mixture = self.density_
        counts = rng.multinomial(n_samples, mixture.weights_)
        return np.vstack([_gaussian(rng, mean, cov, c) for mean, cov, c in zip(mixture.means_, mixture.covariances_, counts)])

    def sample(self, n_samples=1, *, random_state=None, return_latent=False):
        """Generate ``n_samples`` new samples of EVERY view from ``h* ~ p(h)``.

        Returns
        -------
        Xs : list of ndarray or ndarray
            One (n_samples, view_sizes_[v]) per view; fitted on one array, one ndarray of shape
            (n_samples, n_features_in_), the views side by side.
        H : ndarray of shape (n_samples, n_components), only if ``return_latent``
        """
        H = self.sample_latent(n_samples, random_state=random_state)
        Xs = [self.decode(H, v) for v in range(self.n_views_)]
        if self._one_array:
            Xs = np.hstack(Xs)
        return (Xs, H) if return_latent else Xs

    def sample_given(self, Xs, target, n_samples=1, *, random_state=None, return_latent=False):
        """Generate view ``target`` given the others: ``n_samples`` draws per given row.

        ``h = h0 + eps``, ``h0`` imputed from the given views (:meth:`predict_view`'s hidden
        units), ``eps ~ N(0, residual_cov_[target])``; ``n_samples=1`` with no noise is
        :meth:`predict_view`. Rows of the output: the draws of given row 0, then of row 1, ...

        Parameters
        ----------
        Xs : list of length n_views_, or array-like of shape (m, n_features)
            The given views, None at ``target``; or one array of all the views side by side whose
            columns of view ``target`` are ignored (they may be NaN), as :meth:`predict_view`.
        target : int
            The view to generate, ``0 <= target < n_views_``.
        n_samples : int >= 1, default=1
            Draws per given row.
        random_state : int, RandomState, Generator or None, default=None
        return_latent : bool, default=False

        Returns
        -------
        X_target : ndarray of shape (m * n_samples, view_sizes_[target])
            View ``target`` (its block of columns, when the views come as one array).
        H : ndarray of shape (m * n_samples, n_components), only if ``return_latent``
        """
        check_is_fitted(self, "density_")
        n_samples = check_scalar_range(n_samples, "n_samples", low=1, low_inclusive=True, integer=True)
        if self.n_views_ >= 2 and isinstance(target, (int, np.integer)) and 0 <= target < self.n_views_ \
                and self.residual_cov_[int(target)] is None:
            raise ValueError(f"the views other than target={target} cannot determine all {self.H_.shape[1]} hidden "
                             "units (Gamma - U_t^T U_t is singular): fit with fewer n_components to generate view "
                             f"{target} from the others.")
        _, h0 = self.predict_view(Xs, target, return_latent=True)
        rng = check_random_state(random_state)
        noise = _gaussian(rng, np.zeros(h0.shape[1]), self.residual_cov_[int(target)], h0.shape[0] * n_samples)
        H = np.repeat(h0, n_samples, axis=0) + noise
        X_target = self.decode(H, target)
        return (X_target, H) if return_latent else X_target


def _gaussian(rng, mean, cov, n):
    """``n`` draws of N(mean, cov) by the symmetric square root of ``cov`` (PSD, possibly singular).

    The symmetric root ``V sqrt(Lambda) V^T`` does not depend on the signs of the eigenvectors (which
    rounding may flip), so equal covariances give equal draws (primal and dual agree)."""
    values, vectors = np.linalg.eigh(cov)
    root = (vectors * np.sqrt(np.clip(values, 0.0, None))) @ vectors.T
    return mean + rng.standard_normal((n, len(mean))) @ root
