r"""The recurrent RKM estimator, :class:`RecurrentRKM` (Part V); its pure pieces are in
:mod:`rkmlearn.models.recurrent.latent_dynamics`."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..._validation import check_array, check_option, check_scalar_range, series, validate
from ...base import LEVEL_DEFAULTS, LEVEL_OPTIONS, check_parameters, estimator_init
from ...forecasting import RecursiveForecaster
from ...kernels import RBF, squared_euclidean_distances
from ...level import solve_level
from ...preimage import kernel_smoother
from ...views import View
from .latent_dynamics import (
    LAG_FAMILIES,
    banded_lag_matrix,
    is_psd,
    krr_fit,
    krr_predict,
    lag_matrix,
    lag_weights,
    latent_step,
    recursion_roots,
    standardise,
)

__all__ = ["RecurrentRKM", "PREIMAGES", "PSD_CHECKS", "UnstableRecursionWarning"]

#: Pre-image methods of :eq:`eq-rrkm-feature`: the kernel smoother, or kernel ridge regression from
#: latent to input space (:eq:`eq-rrkm-krr`).
PREIMAGES = ("smoother", "krr")
#: What :meth:`RecurrentRKM.fit` does when ``K + A`` is indefinite.
PSD_CHECKS = ("ignore", "warn", "raise")
#: The recursion divides by ``a_p``: a weight ``<= A_P_RTOL * max|a|`` counts as zero.
A_P_RTOL = 1e-8
#: A root of the recursion's characteristic polynomial with ``|z| > 1 + GROWTH_RTOL`` makes it
#: grow (roots on the unit circle come out of the companion eigensolver off by up to ~1e-8).
GROWTH_RTOL = 1e-6
#: The most steps one call of :meth:`RecurrentRKM.forecast` runs (one step at a time, each ``O(T)``).
MAX_STEPS = 10_000_000


class UnstableRecursionWarning(UserWarning):
    """The latent recursion of a fitted :class:`RecurrentRKM` grows: a root off the unit circle."""


class RecurrentRKM(RecursiveForecaster):
    r"""Recurrent Restricted Kernel Machine for time-series forecasting (Part V, Chapter 10).

    **Training** (:eq:`eq-rrkm-eig`): the series ``x_1, ..., x_T`` (standardised with its training
    mean and standard deviation) is one view of ``T`` samples; ``H`` (T, s) holds the ``s``
    leading eigenvectors of ``K + A``, ``K`` the centred kernel matrix and ``A_{t,t'} =
    a_{|t - t'|}`` (``|t - t'| <= p``) built from the lag weights of :eq:`eq-rrkm-objective`.

    **Forecasting**: the latent recursion :eq:`eq-rrkm-recursion` gives ``h_{T+m}`` from the
    ``2p`` latents before it (``O(p s + s^2)`` per step), then :eq:`eq-rrkm-feature` gives
    ``phi(x_{T+m}) = sum_t phi(x_t) h_t^T h_{T+m}`` and a pre-image maps it to the input space:
    the kernel smoother (:func:`rkmlearn.preimage.kernel_smoother`, ``O(T d)`` per step) or
    kernel ridge regression from latent to input space (:eq:`eq-rrkm-krr`, trained once on the
    pairs ``(h_t, x_t)``: ``O(T^3)`` at fit, ``O(T (s + d))`` per step). :meth:`forecast` (the loop
    of :class:`~rkmlearn.forecasting.RecursiveForecaster`) takes ``1 <= steps <= MAX_STEPS`` (10**7)
    and no ``history``: the state is the last ``2p`` training latents.

    **Positive semi-definiteness.** The eigenvalues of ``K + A`` are real (both matrices are
    symmetric) and non-negative when ``K + A`` is PSD, which holds when ``A`` is: the Gaussian
    weights make ``A`` a Gram matrix of the Gaussian kernel on the time indices when ``p >= T - 1``
    (no truncation); truncated (``p < T - 1``), or with the indicator weights (``a_0 = 0``, so
    ``trace(A) = 0`` and ``A`` is indefinite), ``K + A`` may be indefinite. ``psd`` says what
    :meth:`fit` does then; the leading eigenpairs are computed either way.

    Parameters
    ----------
    n_components : int, default=2
        ``s``, the latent dimension, ``1 <= s <= T - 1``.
    kernel : str, Kernel or callable, default="rbf"
        Kernel on the (standardised) time steps; ``kernel_params`` e.g. ``{"sigma": 1.0}``
        (``sigma_x``).
    kernel_params : dict or None, default=None
    lag_weights : {"gaussian", "indicator"} or array-like of shape (p + 1,), default="gaussian"
        The family of :eq:`eq-rrkm-objective`, or the weights ``a_0, ..., a_p`` themselves.
    p : int, default=1
        The lag, ``p >= 1`` (ignored for explicit weights: their length is ``p + 1``).
        The recursion divides by ``a_p``, which must not be 0.
    sigma_t : float, default=1.0
        Time bandwidth of the Gaussian weights, ``> 0``.
    window : int, default=1
        Delay embedding, ``>= 1``: the time step ``x_t`` that the kernel sees is the window
        ``(y_{t-window+1}, ..., y_t)`` of the (standardised) series ``y``; the pre-image of a latent
        is such a window, whose last value is the forecast. ``window=1`` is the paper's model
        (one value per time step).
    preimage : {"smoother", "krr"}, default="smoother"
    preimage_sigma : float or None, default=None
        Bandwidth of the RBF kernel on the latents for ``preimage="krr"``; None: the median
        distance between training latents.
    preimage_alpha : float, default=1e-3
        Ridge of the kernel ridge regression pre-image, ``> 0``.
    preimage_top_k : int or None, default=None
        For ``preimage="smoother"``: keep only the ``top_k`` largest kernel values (the most similar
        training steps, ``1 <= top_k <= T``) in the smoother's weighted mean; None keeps all. The
        multi-view RKM code of the paper's authors keeps about 10.
    psd : {"ignore", "warn", "raise"}, default="ignore"
        ``"warn"`` / ``"raise"``: test ``K + A`` for positive semi-definiteness
        (:func:`~rkmlearn.models.recurrent.latent_dynamics.is_psd`, a Cholesky factorisation) and warn /
        raise a ``ValueError`` when it is indefinite. ``"ignore"`` skips the test (``psd_`` is None).
    eigen_solver : {"auto", "dense", "arpack", "block"}, default="auto"
    random_state : int, RandomState, Generator or None, default=None
        Seeds ARPACK's start vector or the block solver's starting block.

    Attributes
    ----------
    view_ : View
        The fitted view of the standardised training steps (``view_.X_``, ``view_.centerer_``).
    level_ : Level
        The solved level: ``level_.H`` = ``H_``, ``level_.scores[0]`` = ``K H``.
    H_ : ndarray of shape (T, s)
        Training latents ``h_t`` (rows), ``H^T H = I``.
    eigenvalues_ : ndarray of shape (s,)
        The ``s`` largest eigenvalues of ``K + A`` (the diagonal of ``Lambda``).
    a_ : ndarray of shape (p + 1,)
        Lag weights.
    A_ : ndarray of shape (T, T)
        The coupling matrix (built on access from ``a_``: the fit keeps only its band).
    M_ : ndarray of shape (s, s)
        ``H^T A H``, the matrix of the recursion.
    psd_ : bool or None
        Whether ``K + A`` is PSD (None when ``psd="ignore"``).
    mean_, scale_ : ndarray of shape (d,)
        Training statistics of the standardisation.
    last_latents_ : ndarray of shape (2p, s)
        ``h_{T-2p+1}, ..., h_T``: the start of the recursion.
    growth_rate_ : float
        The largest ``|z|`` over the roots of the recursion's characteristic polynomials
        (:func:`~rkmlearn.models.recurrent.latent_dynamics.recursion_roots`): forecast latents grow like
        ``growth_rate_ ** m``. 1 for ``p = 1``; above 1, :meth:`fit` warns
        (:class:`UnstableRecursionWarning`).

    Examples
    --------
    >>> import numpy as np
    >>> from rkmlearn.models import RecurrentRKM
    >>> x = np.sin(2 * np.pi * np.arange(120) / 20)
    >>> model = RecurrentRKM(2, kernel_params={"sigma": 1.0}, lag_weights="indicator", p=1).fit(x)
    >>> model.forecast(5).shape
    (5,)
    """

    __init__ = estimator_init(
        {"n_components": 2},
        {"kernel": "rbf", "kernel_params": None, "lag_weights": "gaussian", "p": 1, "sigma_t": 1.0,
         "window": 1, "preimage": "smoother", "preimage_sigma": None, "preimage_alpha": 1e-3,
         "preimage_top_k": None, "psd": "ignore",
         "eigen_solver": LEVEL_DEFAULTS["eigen_solver"], "random_state": None},
    )
    _fitted = "H_"

    def _weights(self):
        if isinstance(self.lag_weights, str):
            check_option(self.lag_weights, "lag_weights", LAG_FAMILIES)
            a = lag_weights(self.lag_weights, self.p, self.sigma_t)
        else:
            a = check_array(self.lag_weights, "lag_weights", ensure_2d=False)
            if a.ndim != 1 or a.shape[0] < 2:
                raise ValueError(
                    f"lag_weights must be 'gaussian', 'indicator' or a 1-D array a_0, ..., a_p with p >= 1; "
                    f"got shape {a.shape}."
                )
        if not abs(a[-1]) > A_P_RTOL * np.abs(a).max():
            raise ValueError(
                f"the last lag weight a_p = {a[-1]:.3g} is zero (<= {A_P_RTOL:g} max|a|): the recursion (eq-rrkm-recursion) divides "
                "by a_p. Increase sigma_t or decrease p (Gaussian weights), or pass weights with a_p != 0."
            )
        return a

    @validate(series=series(multivariate=True))  # the view and the level trust it
    def fit(self, series, y=None):
        """Fit on a training series (:eq:`eq-rrkm-eig`).

        Parameters
        ----------
        series : array-like of shape (T,) or (T, d)
            Finite values, at least ``2p`` (and ``s + 1``) time steps.
        y : ignored

        Returns
        -------
        self
        """
        X = series
        a = self._weights()
        p = a.shape[0] - 1
        q = check_scalar_range(self.window, "window", low=1, low_inclusive=True, integer=True)
        T = X.shape[0] - q + 1  # time steps (windows) the model sees
        if T < max(2 * p, 2):
            raise ValueError(
                f"series has {X.shape[0]} values, {T} time steps of window={q}, but the recursion starts "
                f"from the last 2p = {2 * p} latents. Pass at least {max(2 * p, 2) + q - 1} values or "
                "decrease p (or window)."
            )
        s = self.n_components
        if q > 1 and isinstance(s, (int, np.integer)) and not isinstance(s, bool) and T <= s <= X.shape[0] - 1:
            raise ValueError(
                f"window={q} leaves T = {T} time steps of the {X.shape[0]} values, too few for "
                f"n_components={s} (it needs T >= n_components + 1). Decrease window to at most "
                f"{X.shape[0] - s} or decrease n_components."
            )
        preimage = check_option(self.preimage, "preimage", PREIMAGES)
        psd = check_option(self.psd, "psd", PSD_CHECKS)
        opts = check_parameters({"eigen_solver": self.eigen_solver}, LEVEL_OPTIONS)
        # the pre-image's parameters too, before the T x T eigenproblem (checked for either pre-image:
        # set_params may switch to the smoother)
        if self.preimage_top_k is not None:
            check_scalar_range(self.preimage_top_k, "preimage_top_k", low=1, high=T,
                               low_inclusive=True, high_inclusive=True, integer=True)
        if preimage == "krr":
            alpha = check_scalar_range(self.preimage_alpha, "preimage_alpha", low=0.0)
            sigma = None if self.preimage_sigma is None else check_scalar_range(self.preimage_sigma, "preimage_sigma",
                                                                                low=0.0)
        self.mean_, self.scale_, Z = standardise(X)
        if q > 1:  # rows (z_{t-q+1}, ..., z_t), flattened oldest first
            Z = np.lib.stride_tricks.sliding_window_view(Z, q, axis=0).transpose(0, 2, 1).reshape(T, -1)
        self.view_ = View(kernel=self.kernel, kernel_params=self.kernel_params)  # fitted on Z by the level
        self.a_ = a
        A = banded_lag_matrix(a, T)  # O(T p) memory: added to K in place, no second T x T array
        self.level_ = solve_level([self.view_], self.n_components, Xs=[Z], coupling=A, keep_matrix=psd != "ignore",
                                  random_state=self.random_state, name=type(self).__name__, **opts)
        self.H_ = self.level_.H
        self.eigenvalues_ = self.level_.eigenvalues
        self.M_ = self.H_.T @ (A @ self.H_)
        self.M_ = 0.5 * (self.M_ + self.M_.T)
        self.psd_ = None
        if psd != "ignore":
            self.psd_ = is_psd(self.level_.matrix)
            if not self.psd_:
                message = (
                    "K + A is indefinite (psd check): its eigenvalues are real but some are negative. Use "
                    "lag_weights='gaussian' with p >= T - 1 (A is then PSD), a smaller sigma_t, or psd='ignore'."
                )
                if psd == "raise":
                    raise ValueError(message)
                warnings.warn(message, UserWarning, stacklevel=3)  # fit's caller (fit is @validate-wrapped)
        self.last_latents_ = self.H_[T - 2 * p:].copy()
        self._check_growth(p)
        self._E = self.level_.scores[0]
        self._mean_row = self.view_.preimage_mean_term(self.H_.T)  # mu^T phi_c = h @ _mean_row for phi_c = Phi_c^T H h
        if preimage == "krr":
            if sigma is None:
                D = squared_euclidean_distances(self.H_)
                sigma = float(np.sqrt(np.median(D[np.triu_indices(T, 1)])))
            self.preimage_kernel_ = RBF(sigma)
            self.preimage_weights_ = krr_fit(self.H_, Z, self.preimage_kernel_, alpha)
            self._krr_fitted_with = (self.preimage_alpha, self.preimage_sigma)
        elif hasattr(self, "preimage_weights_"):  # a refit with the smoother: no KRR weights of an older fit
            del self.preimage_weights_, self.preimage_kernel_
        self.n_features_in_ = X.shape[1]
        return self

    def _check_growth(self, p):
        """Warn when a root of the recursion's characteristic polynomial lies off the unit circle."""
        mu = np.linalg.eigvalsh(self.M_)
        self.growth_rate_ = float(np.abs(recursion_roots(self.a_, mu)).max())
        if self.growth_rate_ > 1.0 + GROWTH_RTOL:
            warnings.warn(
                f"the latent recursion with p={p} is unstable: a root of its characteristic polynomial has "
                f"|z| = {self.growth_rate_:.3g} > 1, so the forecast latents grow like {self.growth_rate_:.3g}**m "
                f"(x {self.growth_rate_ ** 20:.2g} after 20 steps) and the forecast leaves the training "
                "latents. Use p=1 (every root on the unit circle) or check growth_rate_.",
                UnstableRecursionWarning, stacklevel=4,  # fit's caller (fit is @validate-wrapped)
            )

    def _check_steps(self, steps):
        """The rule of ``steps``: a fitted model, ``1 <= steps <= MAX_STEPS``."""
        check_is_fitted(self, "H_")
        steps = check_scalar_range(steps, "steps", low=1, low_inclusive=True, integer=True)
        if steps > MAX_STEPS:
            gib = steps * max(self.n_features_in_, self.H_.shape[1]) * 8 / 2 ** 30
            raise ValueError(
                f"steps={steps} is more than the {MAX_STEPS:_} steps one forecast runs (one step at a time; "
                f"the output alone would take {gib:.3g} GiB). Pass steps <= {MAX_STEPS:_}."
            )
        return steps

    def _overflow(self, step=None):
        """The error for latents that left the floating-point range: the recursion grew too far."""
        p = self.a_.shape[0] - 1
        where = "" if step is None else f" at step {step}"
        horizon = ""
        if self.growth_rate_ > 1.0:
            # steps until |h| max|K H| T passes the largest float: the pre-image's kernel values overflow
            room = np.log(np.finfo(np.float64).max) - np.log(
                max(float(np.abs(self.last_latents_).max()), np.finfo(np.float64).tiny)
                * max(float(np.abs(self._E).max()), 1.0) * self._E.shape[0])
            horizon = f" Pass steps <= {max(int(room / np.log(self.growth_rate_)), 1)} (before they overflow),"
        return ValueError(
            f"the latent recursion with p={p} overflowed{where}: the forecast latents grow like "
            f"{self.growth_rate_:.3g}**m (growth_rate_).{horizon} or use p=1, whose recursion does not grow."
        )

    @property
    def A_(self):
        """The coupling matrix ``A`` (T, T), dense, built on access (the fit uses its band only)."""
        check_is_fitted(self, "H_")
        return lag_matrix(self.a_, self.H_.shape[0])

    def _check_preimage(self):
        """The pre-image options now are the fitted ones: the KRR pre-image's weights are learned by fit,
        so ``set_params(preimage="krr")`` (or another ``preimage_alpha`` / ``preimage_sigma``) after a
        fit needs a refit. The smoother needs nothing from fit beyond the latents: it may be switched to."""
        preimage = check_option(self.preimage, "preimage", PREIMAGES)
        if preimage != "krr":
            return
        fitted = getattr(self, "_krr_fitted_with", None) if hasattr(self, "preimage_weights_") else None
        if fitted is None:
            raise ValueError(
                "preimage='krr' was set after fit, but this model was fitted with the kernel smoother: the KRR "
                "pre-image's weights are learned by fit. Refit (model.fit(series)) after set_params, or set "
                "preimage back to 'smoother'."
            )
        if fitted != (self.preimage_alpha, self.preimage_sigma):
            raise ValueError(
                f"preimage_alpha / preimage_sigma are {(self.preimage_alpha, self.preimage_sigma)} but the KRR "
                f"pre-image was fitted with {fitted}: refit (model.fit(series)) after set_params, or set them back."
            )

    def _preimage_standardised(self, h):
        if self.preimage == "krr":
            return krr_predict(h, self.H_, self.preimage_weights_, self.preimage_kernel_)
        return self._smooth(h @ self._E.T, h)

    def _smooth(self, k_centred, h):
        """The kernel smoother of :eq:`eq-rrkm-feature`, given the centred kernel values ``K H h``."""
        return kernel_smoother(k_centred, self.view_.X_, self.view_.centerer_, mean_term=h @ self._mean_row,
                               top_k=self.preimage_top_k)

    def preimage_of(self, latents):
        """Input-space values (m, d) of ``latents`` (m, s): the pre-image of :eq:`eq-rrkm-feature`, in the
        original units; the last time step of each pre-image window (the whole pre-image when ``window=1``)."""
        check_is_fitted(self, "H_")
        self._check_preimage()
        latents = check_array(latents, "latents")
        if latents.shape[1] != self.H_.shape[1]:
            raise ValueError(f"latents must have n_components = {self.H_.shape[1]} columns; got {latents.shape[1]}.")
        d = self.mean_.shape[0]
        return self._preimage_standardised(latents)[:, -d:] * self.scale_ + self.mean_

    def forecast_latents(self, steps):
        """The latents ``h_{T+1}, ..., h_{T+steps}`` of the recursion :eq:`eq-rrkm-recursion`, shape (steps, s)."""
        steps = self._check_steps(steps)  # a fitted model too
        window = self.last_latents_.copy()
        out = np.empty((steps, window.shape[1]))
        with np.errstate(over="ignore", invalid="ignore"):  # overflow is reported below, by step
            for m in range(steps):  # recursion over time: each latent needs the previous 2p
                out[m], window = self._advance(window)
        bad = ~np.isfinite(out).all(axis=1)
        if bad.any():
            raise self._overflow(int(np.argmax(bad)) + 1)
        return out

    def _advance(self, window):
        """The next latent of :eq:`eq-rrkm-recursion` and the window moved on by one step."""
        h = latent_step(window, self.M_, self.a_)
        return h, np.vstack([window[1:], h])

    def _check_history(self, history):
        """The rule of ``history`` in :meth:`forecast`: None (the state is the last ``2p`` training latents);
        and the pre-image options are the fitted ones (:meth:`_check_preimage`), before any step."""
        self._check_preimage()
        if history is not None:
            raise ValueError(
                "history must be None: a recurrent RKM forecasts from the end of its training series "
                "(its state is the last 2p training latents). Fit on the longer series instead."
            )
        return None

    def _start(self, history):
        return self.last_latents_.copy()

    def _step(self, window):
        with np.errstate(over="ignore", invalid="ignore"):
            h, window = self._advance(window)
            k_centred = h[None, :] @ self._E.T if self.preimage == "smoother" else None
        if not np.isfinite(h).all() or (k_centred is not None and not np.isfinite(k_centred).all()):
            raise self._overflow()
        if k_centred is None:
            x = self._preimage_standardised(h[None, :])[0, -self.mean_.shape[0]:]
        else:
            x = self._smooth(k_centred, h[None, :])[0, -self.mean_.shape[0]:]
        value = float(x[0]) if x.shape[0] == 1 else x
        return value, window

    def _finish(self, values):
        if values.ndim == 1:
            return values * self.scale_[0] + self.mean_[0]
        return values * self.scale_ + self.mean_
