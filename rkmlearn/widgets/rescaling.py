"""Explorer for Chapter 3, *Rescaling*.

:class:`RescalingExplorer` compares the linear two-view NAR model trained with Algorithm 1 with
and without the rescaling ``U = U~ Lambda^{1/2}`` (:eq:`eq-mv-rescaling`): the recursive forecast
against the test series and the latent components ``H``, for ``s = 1..max_components``.
"""
from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .._validation import check_array, check_scalar_range
from ..forecasting import NARForecaster
from ..models.multiview import MultiViewKPCA
from ..features import IdentityFeatures
from ._base import BaseExplorer

__all__ = ["RescalingExplorer"]

#: Colours of the latent components (one per component, cycled).
_COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown",
            "tab:pink", "tab:olive")


def _series(values, name):
    values = check_array(values, name, ensure_2d=False)
    if values.ndim != 1:
        raise ValueError(f"{name} must be a 1-D series, got shape {values.shape}; pass a flat array.")
    return values


class RescalingExplorer(BaseExplorer):
    """Forecasts and latent components with and without the rescaling ``U = U~ Lambda^{1/2}``.

    Illustrates :eq:`eq-mv-rescaling` (Chapter 3, *Rescaling*). A two-view NAR model
    (:class:`~rkmlearn.NARForecaster`, :eq:`eq-mv-nar`: view 0 the window of ``lag + 1`` past
    values ``x_{l-lag}, ..., x_l``, view 1 the next value, identity feature maps in both views) is trained with Algorithm 1, ``MultiViewKPCA(setting=
    "primal")``, once with ``rescale=True`` and once with ``rescale=False`` for every number of
    components ``s = 1..max_components``: all ``2 * max_components`` fits, their forecasts and
    their hidden features are computed in the constructor, and moving a control only picks one
    of them (fit once, update by cheap slicing).

    Left panel: the recursive forecast of the test series. Right panel: the ``s`` latent
    components (columns of ``H_``) of the training windows. Without rescaling the components are
    the rescaled ones times ``Lambda^{-1/2}`` and the forecast collapses towards the mean.
    Both settings share fixed y-limits, so that toggling shows the change of scale (and the
    limits, hence the tick labels, never change: every update is a fast, blitted one).

    Parameters
    ----------
    series_train, series_test : array-like of shape (T_train,), (T_test,)
        The training series and the continuation the forecast is compared with.
    lag : int, default=40
        The lag ``p >= 0`` of the NAR model: windows of ``p + 1`` values, ``T_train - p - 1``
        training pairs.
    max_components : int, default=4
        Largest ``s`` on the slider; at most the numerical rank of the lagged data.
    components : int or None, default=None
        Initial ``s``; ``None`` means ``max_components``.
    rescale : bool, default=True
        Initial state of the rescaling toggle.

    Attributes
    ----------
    controls : dict
        ``{"rescale": rescale_toggle, "components": components_slider}``; the names accepted by
        :meth:`update`.
    rescale_toggle : ipywidgets.ToggleButtons
        Options ``True`` / ``False`` (labels "U = U~ Λ^½" / "U = U~").
    components_slider : ipywidgets.IntSlider
    forecasts_ : ndarray of shape (2, max_components, T_test)
        ``forecasts_[r, s - 1]``: the forecast with ``rescale = bool(r)`` and ``s`` components.
    latents_ : list of two lists of ndarray
        ``latents_[r][s - 1]``: ``H_`` of that fit, shape ``(T_train - lag - 1, s)``.
    eigenvalues_ : ndarray of shape (max_components,)
        ``Lambda`` of the model with ``max_components`` components (the same with and without
        rescaling: rescaling changes ``U``, not the eigenproblem).
    mse_ : ndarray of shape (2, max_components)
        Forecast mean squared error of each fit.
    forecast_line, test_line : matplotlib.lines.Line2D
    latent_lines : list of matplotlib.lines.Line2D
        One per component; lines beyond the current ``s`` are empty.
    figure : matplotlib.figure.Figure
    png_ : bytes
    """

    def __init__(self, series_train, series_test, lag=40, max_components=4, *, components=None,
                 rescale=True):
        super().__init__()
        self.series_train = _series(series_train, "series_train")
        self.series_test = _series(series_test, "series_test")
        self.lag = check_scalar_range(lag, "lag", low=0, low_inclusive=True, integer=True)
        self.max_components = check_scalar_range(max_components, "max_components", low=1,
                                                 low_inclusive=True, integer=True)
        if components is None:
            components = self.max_components
        components = check_scalar_range(components, "components", low=1,
                                        high=self.max_components, low_inclusive=True,
                                        integer=True)
        if not isinstance(rescale, (bool, np.bool_)):
            raise ValueError(f"rescale must be True or False, got {rescale!r}.")
        self._fit_all()
        self.rescale_toggle = widgets.ToggleButtons(
            options=[("U = U~ Λ^½", True), ("U = U~", False)], value=bool(rescale),
            description="rescale",
        )
        self.components_slider = widgets.IntSlider(
            value=int(components), min=1, max=self.max_components, step=1,
            description="s", continuous_update=False,
        )
        self.controls = {"rescale": self.rescale_toggle, "components": self.components_slider}
        self._build_figure()
        self._finish_init()

    def __repr__(self) -> str:
        return (f"RescalingExplorer(n_train={self.series_train.size}, n_test={self.series_test.size}, "
                f"lag={self.lag}, max_components={self.max_components})")

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

    # -- figure -------------------------------------------------------------------------------
    def _build_figure(self) -> None:
        self.figure = self._new_figure((11.0, 3.8))
        ax_forecast, ax_latent = self.figure.subplots(1, 2)
        steps = np.arange(self.series_test.size)
        self.test_line, = ax_forecast.plot(steps, self.series_test, color="k", lw=1.5,
                                           label="test series")
        self.forecast_line, = ax_forecast.plot(steps, self.forecasts_[1, -1], color="crimson",
                                               lw=1.5, ls="--", label="forecast", zorder=5)
        ax_forecast.legend(loc="lower left", fontsize=8)
        ax_forecast.set_xlabel("step ahead")
        spread = np.abs(self.series_test - self.series_test.mean()).max()
        low = min(self.series_test.min(), self.forecasts_.min())
        high = max(self.series_test.max(), self.forecasts_.max())
        margin = 0.1 * max(spread, high - low)
        ax_forecast.set_ylim(low - margin, high + margin)
        ax_forecast.set_xlim(0, steps[-1])
        self.latent_lines = [
            ax_latent.plot([], [], color=_COLOURS[k % len(_COLOURS)], lw=1.2,
                           label=f"$h_{{{k + 1}}}$", zorder=5)[0]
            for k in range(self.max_components)
        ]
        ax_latent.set_xlabel("training window i")
        ax_latent.set_xlim(0, self.latents_[0][0].shape[0] - 1)
        ax_latent.set_ylim(*self._latent_limits)
        self.ax_forecast, self.ax_latent = ax_forecast, ax_latent
        self._mark_dynamic(self.forecast_line, ax_forecast.title, ax_latent.title, *self.latent_lines)

    def _redraw(self) -> None:
        r = int(bool(self.rescale_toggle.value))
        s = int(self.components_slider.value)
        self.forecast_line.set_ydata(self.forecasts_[r, s - 1])
        H = self.latents_[r][s - 1]
        index = np.arange(H.shape[0])
        for k, line in enumerate(self.latent_lines):
            if k < s:
                line.set_data(index, H[:, k])
            else:
                line.set_data([], [])
        name = "U = U~ Λ^½" if r else "U = U~ (no rescaling)"
        self.ax_forecast.set_title(f"{name}, s = {s}: forecast MSE {self.mse_[r, s - 1]:.2e}",
                                   fontsize=10)
        self.ax_latent.set_title(f"latent components H, max |h| = {np.abs(H).max():.2e}",
                                 fontsize=10)
