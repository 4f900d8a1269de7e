"""Explorer for Chapter 3, *Rescaling*.

:class:`RescalingExplorer` compares the linear two-view NAR model trained with Algorithm 1 with
and without the rescaling ``U = U~ Lambda^{1/2}`` (:eq:`eq-mv-rescaling`): the recursive forecast
against the test series and the latent components ``H``, for ``s = 1..max_components``.
"""
from __future__ import annotations

import numpy as np

from .. import MultiViewKPCA, NARForecaster
from .._validation import check_scalar_range, check_series
from ..features import IdentityFeatures
from ._base import FrameExplorer, Ladder, format_bound

__all__ = ["RescalingExplorer"]

#: Forecast errors at or below this are printed as the bound (rounding level, machine-dependent).
_MSE_FLOOR = 1e-20

#: Training windows drawn in the latent panel: over all of them the fast components of the sum of
#: sines (period 5 windows) fill the panel as solid bands.
LATENT_WINDOWS = 60


class RescalingExplorer(FrameExplorer):
    """Forecasts and latent components with and without the rescaling ``U = U~ Lambda^{1/2}``.

    Illustrates :eq:`eq-mv-rescaling` (Chapter 3, *Rescaling*). A two-view NAR model
    (:class:`~rkmlearn.NARForecaster`, :eq:`eq-mv-nar`: view 0 the window of ``lag + 1`` past
    values ``x_{l-lag}, ..., x_l``, view 1 the next value, identity feature maps in both views)
    is trained with Algorithm 1, ``MultiViewKPCA(setting="primal")``, once with
    ``rescale=True`` and once with ``rescale=False`` for every number of components
    ``s = 1..max_components``: all ``2 * max_components`` fits, their forecasts and their hidden
    features are computed in the constructor, one frame each.

    Left panel: the recursive forecast of the test series. Right panel: the ``s`` latent
    components (columns of ``H_``) of the first :data:`LATENT_WINDOWS` training windows, with
    the legend beside the panel. Without rescaling the components
    are the rescaled ones times ``Lambda^{-1/2}`` and the forecast collapses towards the mean.
    Both settings share fixed axis limits, so that switching shows the change of scale.

    Parameters
    ----------
    series_train, series_test : array-like of shape (T_train,), (T_test,)
        The training series and the continuation the forecast is compared with.
    lag : int, default=40
        The lag ``p >= 0`` of the NAR model: windows of ``p + 1`` values, ``T_train - p - 1``
        training pairs.
    max_components : int, default=4
        Largest ``s``; at most the numerical rank of the lagged data.
    components : int or None, default=None
        The ``s`` shown first; ``None`` means ``max_components``.
    rescale : bool, default=True
        Whether the rescaled model is shown first.

    Attributes
    ----------
    ladders : tuple of Ladder
        ``rescale`` (buttons "U = U~ Λ^½" / "U = U~") and ``components`` (``1..max_components``).
    forecasts_ : ndarray of shape (2, max_components, T_test)
        ``forecasts_[r, s - 1]``: the forecast with ``rescale = bool(r)`` and ``s`` components.
    latents_ : list of two lists of ndarray
        ``latents_[r][s - 1]``: ``H_`` of that fit, shape ``(T_train - lag - 1, s)``.
    eigenvalues_ : ndarray of shape (max_components,)
        ``Lambda`` of the model with ``max_components`` components (the same with and without
        rescaling: rescaling changes ``U``, not the eigenproblem).
    mse_ : ndarray of shape (2, max_components)
        Forecast mean squared error of each fit.
    """

    figsize = (7.8, 3.3)

    def __init__(self, series_train, series_test, lag=40, max_components=4, *, components=None,
                 rescale=True):
        self.series_train = check_series(series_train, "series_train")
        self.series_test = check_series(series_test, "series_test")
        self.lag = check_scalar_range(lag, "lag", low=0, low_inclusive=True, integer=True)
        self.max_components = check_scalar_range(max_components, "max_components", low=1,
                                                 low_inclusive=True, integer=True)
        if not isinstance(rescale, (bool, np.bool_)):
            raise ValueError(f"rescale must be True or False, got {rescale!r}.")
        components = self.max_components if components is None else components
        self.ladders = (
            Ladder("rescale", "rescaling", (True, False),
                   (r"$U = \tilde U \Lambda^{1/2}$", r"$U = \tilde U$"),
                   style="buttons"),
            Ladder("components", "$s$", tuple(range(1, self.max_components + 1))),
        )
        self.initial = {"rescale": bool(rescale), "components": components}
        self.check_state()
        self._fit_all()

    # -- the expensive part, once -------------------------------------------------------------
    def _fit_all(self) -> None:
        steps = self.series_test.size
        self.forecasts_ = np.empty((2, self.max_components, steps))
        self.latents_ = [[], []]
        for r, rescale in enumerate((False, True)):
            for s in range(1, self.max_components + 1):
                model = MultiViewKPCA(s, setting="primal", rescale=rescale,
                                      feature_maps=[IdentityFeatures(), IdentityFeatures()])
                fitted = NARForecaster(model, self.lag).fit(self.series_train)
                self.forecasts_[r, s - 1] = fitted.forecast(steps)
                self.latents_[r].append(fitted.model_.H_)
                if rescale and s == self.max_components:
                    self.eigenvalues_ = fitted.model_.eigenvalues_
        self.mse_ = np.mean((self.forecasts_ - self.series_test) ** 2, axis=-1)
        # One fixed range for both settings: the scale of H is the message, so it must not be
        # autoscaled away.
        top = max(np.abs(H).max() for latents in self.latents_ for H in latents)
        self._latent_limits = (-1.1 * top, 1.1 * top)
        spread = np.abs(self.series_test - self.series_test.mean()).max()
        low = min(self.series_test.min(), self.forecasts_.min())
        high = max(self.series_test.max(), self.forecasts_.max())
        margin = 0.1 * max(spread, high - low)
        self._forecast_limits = (low - margin, high + margin)

    def draw(self, figure, *, rescale, components):
        r, s = int(rescale), components
        ax_forecast, ax_latent = figure.subplots(1, 2)
        steps = np.arange(self.series_test.size)
        ax_forecast.plot(steps, self.series_test, color="k", lw=1.5, label="test series")
        ax_forecast.plot(steps, self.forecasts_[r, s - 1], color="crimson", lw=1.5, ls="--",
                         label="forecast")
        ax_forecast.legend(loc="lower left")
        ax_forecast.set(xlabel="step ahead", xlim=(0, steps[-1]), ylim=self._forecast_limits)
        name = r"$U = \tilde{U}\Lambda^{1/2}$" if rescale else r"$U = \tilde{U}$ (no rescaling)"
        ax_forecast.set_title(f"{name}, s = {s}\nforecast MSE "
                              f"{format_bound(self.mse_[r, s - 1], _MSE_FLOOR)}")
        H = self.latents_[r][s - 1]
        shown = min(LATENT_WINDOWS, H.shape[0])
        for k in range(s):
            ax_latent.plot(H[:shown, k], color=f"C{k}", lw=1.2, label=f"$h_{{{k + 1}}}$")
        ax_latent.set(xlabel=f"training window i (first {shown})", xlim=(0, shown - 1),
                      ylim=self._latent_limits)
        ax_latent.set_title(f"latent components H\nmax |h| = {np.abs(H).max():.2e}")
        # beside the panel, not on the curves
        ax_latent.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=9)
