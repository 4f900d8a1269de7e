"""Explorer for Chapter 10, *Recurrent RKMs for time-series forecasting*.

:class:`RecurrentAblationExplorer` is the paper's Fig. 3 as a ladder: the recurrent RKM
(:class:`~rkmlearn.RecurrentRKM`, :eq:`eq-rrkm-eig` and :eq:`eq-rrkm-recursion`) fitted for every
combination of the kernel bandwidth ``sigma_x``, the time bandwidth ``sigma_t`` of the Gaussian
lag weights (:eq:`eq-rrkm-lag-weights`) and the latent dimension ``s``; each frame shows the
recursive forecast against the test series and the first latent coordinates over time.
"""
from __future__ import annotations

import numpy as np

from .. import RecurrentRKM
from .._validation import check_scalar_range, check_series
from ._base import FrameExplorer, Ladder

__all__ = ["RecurrentAblationExplorer"]


def _ladder_values(values, name, *, integer=False):
    values = tuple(values) if np.ndim(values) else (values,)
    if not values:
        raise ValueError(f"{name} must hold at least one value.")
    low = 1 if integer else 0.0
    return tuple(check_scalar_range(v, name, low=low, low_inclusive=integer, integer=integer) for v in values)


def _digits(x):
    """Three significant digits, no exponent for numbers >= 100 (e.g. ``2250``)."""
    return f"{float(f'{x:.3g}'):.0f}" if abs(x) >= 100 else f"{x:.3g}"


class RecurrentAblationExplorer(FrameExplorer):
    """Forecasts of the recurrent RKM over a ladder of ``sigma_x``, ``sigma_t`` and ``s``.

    Illustrates :eq:`eq-rrkm-recursion` and the paper's ablation (Fig. 3; Chapter 10). Every
    combination of the ladders is fitted once in the constructor with
    ``RecurrentRKM(s, kernel_params={"sigma": sigma_x}, lag_weights="gaussian", p=p,
    sigma_t=sigma_t, preimage=preimage)`` on ``series_train``, and forecasts
    ``len(series_test)`` values. Left panel: the forecast and the test series; right panel: the
    first two latent coordinates of the last training steps and of the forecast.

    Parameters
    ----------
    series_train, series_test : array-like of shape (T_train,), (T_test,)
    sigma_x : sequence of float, default=(0.5, 1.0, 2.0)
        RBF bandwidths (on the standardised values), ``> 0``.
    sigma_t : sequence of float, default=(0.5, 1.0, 2.0)
        Time bandwidths, ``> 0``.
    components : sequence of int, default=(3, 12)
        Latent dimensions ``s``.
    p : int, default=1
        The lag of the Gaussian weights.
    preimage : {"smoother", "krr"}, default="smoother"

    Attributes
    ----------
    forecasts_ : dict
        ``(sigma_x, sigma_t, s) -> ndarray (T_test,)``.
    latents_ : dict
        ``(sigma_x, sigma_t, s) -> ndarray (T_test, s)``: the forecast latents.
    mse_ : dict
        ``(sigma_x, sigma_t, s) -> float``: the forecast MSE.
    """

    figsize = (7.8, 3.3)

    def __init__(self, series_train, series_test, *, sigma_x=(0.5, 1.0, 2.0), sigma_t=(0.5, 1.0, 2.0),
                 components=(3, 12), p=1, preimage="smoother"):
        self.series_train = check_series(series_train, "series_train")
        self.series_test = check_series(series_test, "series_test")
        sx = _ladder_values(sigma_x, "sigma_x")
        st = _ladder_values(sigma_t, "sigma_t")
        ss = _ladder_values(components, "components", integer=True)
        self.p = check_scalar_range(p, "p", low=1, low_inclusive=True, integer=True)
        self.preimage = preimage
        self.ladders = (Ladder("sigma_x", r"$\sigma_x$", sx), Ladder("sigma_t", r"$\sigma_t$", st),
                        Ladder("s", "$s$", ss))  # labels in typeset maths (issue 18)
        self.initial = {"sigma_x": sx[len(sx) // 2], "sigma_t": st[len(st) // 2], "s": ss[0]}
        self.check_state()
        self._fit_all()

    def model(self, sigma_x, sigma_t, s):
        """The unfitted model of a state."""
        return RecurrentRKM(s, kernel_params={"sigma": sigma_x}, lag_weights="gaussian", p=self.p,
                            sigma_t=sigma_t, preimage=self.preimage)

    def _fit_all(self):
        steps = self.series_test.size
        self.forecasts_, self.latents_, self.mse_, self._train_latents = {}, {}, {}, {}
        for state in self.states():
            key = (state["sigma_x"], state["sigma_t"], state["s"])
            fitted = self.model(*key).fit(self.series_train)
            self.forecasts_[key] = fitted.forecast(steps)
            self.latents_[key] = fitted.forecast_latents(steps)
            self._train_latents[key] = fitted.H_[-steps:]
            self.mse_[key] = float(np.mean((self.forecasts_[key] - self.series_test) ** 2))
        values = np.concatenate([self.series_test, *self.forecasts_.values()])
        finite = values[np.isfinite(values)]
        margin = 0.05 * (finite.max() - finite.min())
        self._limits = (finite.min() - margin, finite.max() + margin)

    def state_data(self, sigma_x, sigma_t, s):
        """What a frame shows: ``forecast``, ``latents`` (forecast), ``mse``."""
        key = tuple(self.check_state(sigma_x=sigma_x, sigma_t=sigma_t, s=s).values())
        return {"forecast": self.forecasts_[key], "latents": self.latents_[key], "mse": self.mse_[key]}

    def draw(self, figure, *, sigma_x, sigma_t, s):
        key = (sigma_x, sigma_t, s)
        ax_f, ax_h = figure.subplots(1, 2, gridspec_kw={"width_ratios": (3, 2)})
        steps = np.arange(1, self.series_test.size + 1)
        ax_f.plot(steps, self.series_test, color="k", lw=1.2, label="test")
        ax_f.plot(steps, self.forecasts_[key], color="crimson", lw=1.2, label="RRKM")
        ax_f.set(xlabel="step ahead", ylabel="value", ylim=self._limits)
        ax_f.set_title(f"σx = {sigma_x:g}, σt = {sigma_t:g}, s = {s}: MSE {_digits(self.mse_[key])}")
        ax_f.legend(loc="upper left", ncols=2)
        H_train, H_new = self._train_latents[key], self.latents_[key]
        n = H_train.shape[0]
        for k, colour in zip(range(min(2, s)), ("tab:blue", "tab:orange")):
            ax_h.plot(np.arange(-n + 1, 1), H_train[:, k], color=colour, lw=1.0, label=f"$h_{{t,{k + 1}}}$")
            ax_h.plot(steps, H_new[:, k], color=colour, lw=1.0, ls="--")
        ax_h.axvline(0.5, color="0.5", lw=0.8)
        ax_h.set(xlabel="time step (0 = end of training)")
        ax_h.set_title("latents: training | forecast")
        ax_h.legend(loc="lower left", ncols=2)
