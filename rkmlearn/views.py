"""One view of an RKM: a kernel or an explicit feature map, with its training statistics.

A :class:`View` is what every model builds on: the dual setting needs its centred Gram matrix
``M_c K M_c`` (:eq:`eq-centering-train`), inference its centred kernel rows ``k_c(x)``
(:eq:`eq-centering-test`), the primal setting its centred features ``phi_c(x) = phi(x) - mu``.
Centring always uses the TRAINING statistics. Part III's LS-SVM classifiers use the uncentred
:meth:`View.gram` and :meth:`View.kernel_rows`.
"""

from __future__ import annotations

import copy

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import NotFittedError

from ._symmetric import rank_tolerance
from ._validation import (array, check_array, check_kernel_or_feature_map, check_n_features, is_dask,
                          primal_needs_features, user_code, validate)
from . import _blas
from .features import IdentityFeatures
from .kernels import GramCenterer, Linear, make_kernel
from .kernels.operator import kernel_diagonal

__all__ = ["View", "is_dask", "row_chunks", "STREAM_BYTES", "CHUNK_BYTES"]

#: An explicit view whose n x D training features would take more than this is STREAMED: its
#: features are computed a chunk of rows at a time and never stored; the primal level accumulates
#: ``Phi_c^T Phi_c`` over the chunks (memory ``D^2`` + one chunk). A Dask array is always streamed.
STREAM_BYTES = 2**28  # 256 MB
#: Features of one chunk of rows: about this many bytes.
CHUNK_BYTES = 2**26  # 64 MB


def row_chunks(n, width):
    """Row slices of about ``CHUNK_BYTES`` of float64 ``width``-wide rows each."""
    step = max(1, CHUNK_BYTES // (8 * max(width, 1)))
    return [slice(i, min(i + step, n)) for i in range(0, n, step)]


def _centred_scale(Phi, Phi_c):
    """The rounding level of a problem built from centred explicit features ``Phi_c = Phi - mu``, in the
    units of ``scale_`` (:func:`~rkmlearn.solvers.eigen.check_leading_eigenvalues` multiplies it by
    ``rank_tolerance(size)``, ``size >= min(n, D)``).

    ``phi_i - fl(mu)`` is exact up to one rounding relative to itself; the mean's rounding
    ``||fl(mu) - mu|| <= sqrt(D) (log2 n + 2) eps max|phi|`` moves every row by the same vector ``delta``,
    which moves the eigenvalues of ``Phi_c^T Phi_c`` by at most ``2 ||Phi_c|| ||1 delta^T|| + ||1 delta^T||^2``.
    Constant data (``Phi_c`` = rounding) stay below it; unit spread about 1e8 stays far above.
    """
    n, D = Phi.shape
    sq = np.einsum("ij,ij->i", Phi_c, Phi_c)
    shift = np.sqrt(n * D) * (n.bit_length() + 2) * np.finfo(np.float64).eps * float(np.abs(Phi).max(initial=0.0))
    noise = 2.0 * np.sqrt(sq.sum()) * shift + shift * shift
    return float(sq.max(initial=0.0)) + noise / rank_tolerance(min(n, D))


class View(BaseEstimator):
    """One view: a kernel (dual only) or an explicit feature map, fitted on training inputs.

    Parameters
    ----------
    kernel : str, Kernel, callable or None, default=None
        Resolved by :func:`rkmlearn.kernels.make_kernel`; None is the linear kernel. Must be None
        when ``feature_map`` is given (the kernel is then the linear kernel of the features).
    feature_map : transformer or None, default=None
        Explicit feature map (cloned and fitted), e.g.
        :class:`~rkmlearn.features.RandomFourierFeatures`.
    kernel_params : dict or None, default=None
        Hyperparameters of a named kernel, e.g. ``{"sigma": 2.0}``.

    Attributes
    ----------
    X_ : ndarray of shape (n_samples, n_features_in_)
        Training inputs (kernel rows, pre-images).
    kernel_ : Kernel
        The kernel used (``Linear()`` for explicit features).
    feature_map_ : transformer or None
        The fitted clone of ``feature_map``.
    feature_mean_ : ndarray of shape (n_features_out,) or None
        Mean training feature vector ``mu`` (explicit features).
    centerer_ : GramCenterer
        Training statistics for centring kernel rows (from the Gram matrix for a kernel view, from
        the features for an explicit one; a streamed view's come from the level's pass).
    scale_ : float
        Largest uncentred kernel value ``max_i k(x_i, x_i)`` (``= max|k(x_i, x_j)|`` for a PSD
        kernel): the magnitude centring cancels, so the rounding level of the centred problem. An explicit
        view centres its features before any product: the smaller of that and the centred features'
        level (their largest squared norm plus the mean's rounding, :func:`_centred_scale`).
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(5, 2))
    >>> view = View(kernel="rbf", kernel_params={"sigma": 1.0}).fit(X)
    >>> K_c = view.centred_gram()
    >>> bool(np.allclose(K_c.sum(axis=0), 0.0)), view.centred_kernel_rows(X[:2]).shape
    (True, (2, 5))
    """

    def __init__(self, kernel=None, feature_map=None, kernel_params=None):
        self.kernel = kernel
        self.feature_map = feature_map
        self.kernel_params = kernel_params

    @validate(X=array("{name}", dask=True, memmap=True))
    def fit(self, X, y=None, *, name="X", centre=True):
        """Fit everything the view will be asked: inputs, feature map, centring statistics, ``scale_``.

        A kernel view builds its training Gram matrix once for its statistics and keeps only them
        (O(n)); a level that needs the centred matrix calls :meth:`fit_centred_gram` instead (the
        kernel is evaluated once). ``centre=False``: a kernel view that is only asked UNcentred
        quantities (:meth:`gram`, :meth:`kernel_rows`: Part III's LS-SVM systems, whose bias rows
        take care of the offset) computes no statistics and no n x n matrix; its centred queries raise.
        """
        self._fit(X, name, None if centre else "uncentred")
        return self

    @validate(X=array("{name}", dask=True))
    def fit_centred_gram(self, X, *, name="X"):
        """:meth:`fit`, returning ``K_c = M_c K M_c`` (n, n) (:eq:`eq-centering-train`).

        A kernel view centres its Gram matrix in place: the one n x n array of a dual fit.
        """
        return self._fit(X, name, "centred")

    def fit_matrix_free(self, X, *, name="X"):
        """:meth:`fit` of a view whose Gram matrix is never formed (a matrix-free dual level,
        :mod:`rkmlearn.kernels.operator`): a kernel view keeps ``X`` (a Dask array too) and ``scale_``,
        and gets its centring statistics from the level's first tile pass (:meth:`set_gram_statistics`)."""
        self._fit(X, name, "matrix-free")
        return self

    def set_gram_statistics(self, row_means):
        """The training Gram matrix's row means ``r`` from a matrix-free pass; a Dask input is computed
        here (``n x d``: the training rows every kernel row of :meth:`centred_kernel_rows` needs)."""
        self.centerer_ = GramCenterer.from_statistics(row_means, float(row_means.mean()))
        self.X_ = np.asarray(self.X_) if is_dask(self.X_) else self.X_
        return self

    def _fit(self, X, name, gram):
        """Fit; return the centred Gram matrix if ``gram == "centred"`` (``"uncentred"``: no statistics;
        ``"matrix-free"``: a kernel view's statistics come later, from the level)."""
        dask = is_dask(X)
        if dask and self.feature_map is None and gram != "matrix-free":
            raise ValueError(f"{name} is a Dask array: only an explicit feature map (setting='primal') is streamed; "
                             "pass a feature_map, or a NumPy array.")
        check_kernel_or_feature_map(self.kernel, self.kernel_params, self.feature_map, "dual", default_kernel=None)
        streamed = self.feature_map is not None and (dask or X.shape[0] * self._n_out(X) * 8 > STREAM_BYTES)
        # copy: the caller may reuse its buffer; a streamed view keeps X itself (a memmap stays on disk)
        self.X_, self.n_features_in_ = (X if streamed else np.array(X, order="C")), X.shape[1]
        self.input_mean_ = np.asarray(X.mean(axis=0))
        self.centerer_, self._Phi_c, self.streamed_ = None, None, False
        if self.feature_map is None:
            # a private copy: changing the user's Kernel instance later must not change the model
            kernel = "linear" if self.kernel is None else self.kernel
            self.kernel_ = copy.deepcopy(make_kernel(kernel, **(self.kernel_params or {})))
            self.feature_map_, self.feature_mean_ = None, None
            if gram == "uncentred":
                self.scale_ = None
                return None
            if gram == "matrix-free":  # scale_ from the diagonal (O(n)), statistics from the level's pass
                self.scale_ = float(np.abs(kernel_diagonal(self.kernel_, self.X_)).max())
                return None
            K = self.kernel_(self.X_)  # a fresh array, exactly symmetric by construction
            with np.errstate(over="ignore", invalid="ignore"):  # an overflow is the level's error to report
                # max |k(x_i, x_j)| = max_i k(x_i, x_i) for a PSD kernel: O(n) instead of a pass over K
                self.scale_ = float(np.abs(np.diagonal(K)).max())
                self.centerer_ = GramCenterer().fit(K)  # inside this validated call: K is trusted, not scanned
            if gram == "centred":
                return self.centerer_.transform_train_inplace(K)  # one n x n array: the peak of a dual fit
            return None
        self.kernel_ = Linear()
        self.feature_map_ = clone(self.feature_map)
        if streamed:
            # streamed: the map is fitted (RFF / identity: on the shape only; Nystroem: its landmarks
            # from the first chunk of a Dask array), the statistics come from the level's one pass
            first = np.asarray(X[: row_chunks(X.shape[0], X.shape[1])[0].stop]) if dask else X
            self._run_map("fit", first)
            self.streamed_ = True
            self.feature_mean_ = self.scale_ = None
            if gram == "centred":
                raise ValueError(f"the features of this streamed view ({self.description}) are never stored: it has "
                                 "no Gram matrix; use setting='primal'.")
            return None
        Phi = self._features(self._run_map("fit_transform", X), X, "fit_transform")
        self.feature_mean_ = Phi.mean(axis=0)
        self._Phi_c = Phi - self.feature_mean_  # not in place: a transformer may return its input
        with np.errstate(over="ignore", invalid="ignore"):  # finite features can overflow when squared
            self.scale_ = float(np.einsum("ij,ij->i", Phi, Phi).max())  # max_i k(x_i, x_i) >= max|K|
            # the centred features are differences computed with relative error eps: only the mean's own
            # rounding is noise, so X + 1e8 with unit spread keeps its rank (min: never above the old level)
            self.scale_ = min(self.scale_, _centred_scale(Phi, self._Phi_c))
            self.centerer_ = GramCenterer().fit_features(self._Phi_c, self.feature_mean_)
        if not (np.isfinite(self.scale_) and np.isfinite(self.centerer_.row_means_).all()):
            raise ValueError(
                f"the inner products of the features of X ({self.description}) overflowed: X is too large. "
                "Rescale X (e.g. sklearn.preprocessing.StandardScaler)."
            )
        return self.centred_gram() if gram == "centred" else None

    def offset_swamps_spread(self):
        """For a linear-kernel view whose inputs sit far from the origin (``|mean|^2`` above 1e8 times their
        mean centred squared norm, which is above rounding: not constant data), why its centred Gram
        matrix lost its digits, and the fix; else None.

        ``M_c X X^T M_c`` is computed from entries of size ``|mean|^2``: centring cancels them, leaving
        rounding (X + 1e8 with unit spread: entries 4e16, rounding 8, centred values about 1)."""
        if self.feature_map is not None or not isinstance(self.kernel_, Linear) or is_dask(self.X_):
            return None
        offset = float(self.input_mean_ @ self.input_mean_)
        spread = float(np.mean(np.einsum("ij,ij->i", self.X_ - self.input_mean_, self.X_ - self.input_mean_)))
        # a real spread (above the inputs' own rounding, so not constant data) that the offset swamps
        if not (offset > 1e8 * spread and spread > (1e3 * np.finfo(np.float64).eps) ** 2 * offset):
            return None
        return (f"the inputs lie far from the origin (|mean|^2 = {offset:.3g}, {offset / max(spread, 1e-300):.3g} "
                "times their mean centred squared norm): the linear kernel's values are that large, and centring "
                "them cancels the digits that hold the data. Centre X first (X - X.mean(axis=0), or "
                "sklearn.preprocessing.StandardScaler), or use feature_map=IdentityFeatures(), whose features are "
                "centred before any product.")

    def _n_out(self, X):
        """The number of features ``D`` the (unfitted) map will produce, without computing them."""
        D = getattr(self.feature_map, "n_features", None)
        if isinstance(D, (int, np.integer)):
            return int(D)
        return X.shape[1]  # identity-like maps; others are computed in memory as before

    def chunk_features(self, X):
        """Uncentred features ``phi(x)`` of new inputs ``X`` (a chunk of rows in the streamed path)."""
        return self._features(self._run_map("transform", X), X, "transform")

    def _run_map(self, method, X):
        """``feature_map_.<method>(X)``. A map the library does not own runs as user code: its own
        calls into the library are checked, even inside a validated fit."""
        call = getattr(self.feature_map_, method)
        if type(self.feature_map_).__module__.split(".")[0] == "rkmlearn":
            return call(X)
        with user_code():
            return call(X)

    def set_streamed_statistics(self, mean, scale, row_means):
        """The training statistics a streamed pass computed (see :func:`rkmlearn.level.solve_level`)."""
        self.feature_mean_, self.scale_ = mean, scale
        self.centerer_ = GramCenterer.from_statistics(row_means, float(mean @ mean))
        return self

    @staticmethod
    def _features(Phi, X, method):
        Phi = check_array(Phi, f"feature_map.{method}(X)")
        if Phi.shape[0] != X.shape[0]:
            raise ValueError(
                f"feature_map.{method}(X) returned {Phi.shape[0]} rows for {X.shape[0]} samples; the "
                "feature map must return one row per sample."
            )
        return Phi

    def _check_fitted(self):
        # cheaper than sklearn's check_is_fitted: a forecast calls the view's methods every step
        if not hasattr(self, "X_"):
            raise NotFittedError("This View is not fitted yet; call fit(X) first.")

    # -- what the view is ------------------------------------------------------------------
    @property
    def explicit(self):
        """True for an explicit feature map (primal setting possible)."""
        return self.feature_map is not None

    @property
    def identity(self):
        """True when the feature map is the identity (linear kernel): the pre-image is exact."""
        self._check_fitted()
        if self.feature_map_ is not None:
            return isinstance(self.feature_map_, IdentityFeatures)
        return isinstance(self.kernel_, Linear)

    @property
    def description(self):
        """The resolved kernel or feature map, for messages (e.g. ``"kernel RBF(sigma=2.0)"``)."""
        self._check_fitted()
        if self.feature_map_ is not None:
            return f"feature map {type(self.feature_map_).__name__}"
        return f"kernel {self.kernel_!r}"

    def check_input(self, X, name="X", estimator=None):
        """Validate new inputs of this view: a 2-D finite array with the training columns.

        The rule of a model's inference methods (they are validated once, at the door; what they
        call inside trusts these inputs).
        """
        X = check_array(X, name)
        check_n_features(X, self.n_features_in_, name, estimator_name=estimator)
        return X

    # -- training quantities ---------------------------------------------------------------
    def gram(self):
        """Uncentred training Gram matrix ``K`` (n, n)."""
        self._check_fitted()
        if self.feature_map_ is None:
            return self.kernel_(self.X_)
        Phi = self.features()
        return Phi @ Phi.T

    def kernel_blocks(self, X=None):
        """``block(rows, cols)``: the block ``[rows, cols]`` of the uncentred kernel matrix of new
        inputs ``X`` with the training inputs (``X = None``: of the training Gram matrix), two slices
        of rows, to work with the matrix a tile at a time without forming it
        (:meth:`Kernel.blocks <rkmlearn.kernels.Kernel.blocks>`; explicit features:
        ``Phi(X)[rows] Phi[cols]^T``)."""
        self._check_fitted()
        if self.feature_map_ is None:
            return self.kernel_.blocks(self.X_) if X is None else self.kernel_.blocks(X, self.X_)
        Phi = self.features()
        left = Phi if X is None else self.chunk_features(X)
        return lambda rows, cols: _blas.product(left[rows], Phi[cols].T)

    def features(self):
        """Uncentred training features ``phi(x_i)`` (n, d) of an explicit view."""
        return self.centred_features() + self.feature_mean_

    def centred_gram(self):
        """Centred training Gram matrix ``K_c = M_c K M_c`` (n, n), computed afresh (the view is unchanged)."""
        self._check_fitted()
        if self.feature_map_ is not None:
            Phi_c = self.centred_features()
            return Phi_c @ Phi_c.T  # features already centred
        return self._statistics().transform_train_inplace(self.kernel_(self.X_))  # the Gram matrix of fit, again

    def centred_features(self, X=None):
        """Centred features ``phi(x) - mu`` (m, d) of ``X``, or of the training inputs (None)."""
        self._check_fitted()
        if self.feature_map_ is None:
            raise primal_needs_features(f"this view has an implicit {self.description} and no explicit features")
        if X is None:
            if self.streamed_:
                raise ValueError(
                    f"the training features of this streamed view ({self.description}) are never stored (they "
                    f"exceed {STREAM_BYTES / 2**20:.0f} MB or came as a Dask array); use centred_features(X) on a chunk."
                )
            if self._Phi_c is None:  # released after a primal fit: recompute
                self._Phi_c = self.centred_features(self.X_)
            return self._Phi_c
        return self.chunk_features(X) - self.feature_mean_

    def kernel_rows(self, X):
        """Uncentred kernel values ``k(x, x_i)`` (m, n) of new inputs with the training inputs."""
        self._check_fitted()
        if self.feature_map_ is None:
            return self.kernel_(X, self.X_)
        Phi = self.chunk_features(X)
        return Phi @ self.features().T

    def centred_kernel_rows(self, X):
        """``k_c(x)`` (m, n) of new inputs, centred with the training statistics (:eq:`eq-centering-test`)."""
        self._check_fitted()
        if self.feature_map_ is not None:
            return self.centred_features(X) @ self.centred_features().T
        return self._statistics().transform(self.kernel_(X, self.X_))

    def centred_kernel_rows_times(self, X, B):
        """``k_c(X) B`` (m, b): :meth:`centred_kernel_rows` times ``B`` (n, b), a chunk of rows of ``X``
        at a time when the m x n kernel rows would exceed :data:`STREAM_BYTES` (the transform of many
        new points against many training points; below that, the one product as before)."""
        m, n = X.shape[0], self.X_.shape[0]
        if m * n * 8 <= STREAM_BYTES:
            return self.centred_kernel_rows(X) @ B
        return np.vstack([self.centred_kernel_rows(X[rows]) @ B for rows in row_chunks(m, n)])

    def preimage_mean_term(self, alpha):
        r"""``mu^T phi_c`` of the feature-space points ``phi_c = Phi_c^T alpha``: ``alpha @ (r - g)``.

        What centring removed from the kernel values of such a point, the ``mean_term`` of
        :func:`rkmlearn.preimage.kernel_smoother` (:eq:`eq-kernel-smoother-uncentre`): ``r`` are the
        training Gram matrix's row means, ``g`` its grand mean (``r_i - g = mu^T phi_c(x_i)``).

        Parameters
        ----------
        alpha : ndarray of shape (..., n_samples)
            Dual coefficients of the points, one row each (e.g. ``h @ H.T``, or ``H.T`` itself for
            the ``s`` directions of a level).

        Returns
        -------
        ndarray of shape (...)
        """
        self._check_fitted()
        centerer = self._statistics()
        return alpha @ (centerer.row_means_ - centerer.grand_mean_)

    def _statistics(self):
        if self.centerer_ is None:
            raise ValueError(f"this view ({self.description}) was fitted with centre=False: it has no centring "
                             "statistics. Fit it with centre=True for centred Gram matrices and kernel rows.")
        return self.centerer_

    def release(self):
        """Drop the stored training features (d_f-wide; recomputed if ever needed again)."""
        self._Phi_c = None
        return self
