"""Explorer for Chapter 1, section *The Fenchel–Young inequality that creates the hidden features*.

:class:`FenchelYoungExplorer` plots both sides of the scalar Fenchel–Young inequality
``e h <= e^2 / (2 lambda) + (lambda / 2) h^2`` as functions of the hidden feature ``h`` and
marks the point where it is tight, ``h = e / lambda``.
"""
from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.ticker import MaxNLocator

from .._validation import check_scalar_range
from ._base import BaseExplorer

__all__ = ["FenchelYoungExplorer", "fenchel_young_sides"]

#: Axis limits are snapped up to m * 10**k for these mantissas m: the data always fill more than
#: 3/5 of the range, and the limits stay put while a slider moves within one step of the ladder.
_NICE_MANTISSAS = (1.0, 1.5, 2.0, 3.0, 5.0, 7.5, 10.0)
#: Space left around the data, as a fraction of its range (matplotlib's default autoscale margin).
_MARGIN = 0.05


def _nice_ceil(value: float) -> float:
    """Smallest ``m * 10**k >= value`` with ``m`` in :data:`_NICE_MANTISSAS` (``value > 0``)."""
    scale = 10.0 ** np.floor(np.log10(value))
    # The tolerance keeps a value that is already on the ladder (3.0, 0.3) from moving up one
    # step because of rounding in log10 or in the product.
    return next(m * scale for m in _NICE_MANTISSAS if m * scale >= value * (1 - 1e-9))


def _nice_limits(low: float, high: float) -> tuple[float, float]:
    """Axis limits around ``[low, high]`` (``low <= 0 <= high``, ``high > 0``) from a coarse ladder.

    Autoscaling would move the limits, and with them every tick label, on each slider step,
    which forces a full redraw of the figure (tens of milliseconds of text rendering); limits
    from a ladder change only when the data cross one of its steps, so most updates only redraw
    the curves. The data keep a margin of ``_MARGIN`` times their range on both sides.
    """
    margin = _MARGIN * (high - low)
    top = _nice_ceil(high + margin)
    # The bottom lies at least a twentieth of the top below zero, so that it does not step
    # through the ladder's dense small values while ``low`` sweeps through zero.
    bottom = -_nice_ceil(max(margin - low, _MARGIN * top))
    return bottom, top


def fenchel_young_sides(e, h, lam):
    """Both sides of the Fenchel–Young inequality and the gap between them.

    Implements :eq:`eq-fenchel-young` (Chapter 1, *Kernels, feature maps and conjugate
    feature duality*) for vectors stored along the last axis (scalars allowed):

    ``e^T h <= 1/(2 lambda) e^T e + (lambda/2) h^T h``,

    with gap ``(1/2) ||e / sqrt(lambda) - sqrt(lambda) h||^2 >= 0``, zero exactly at
    ``h = e / lambda``.

    Parameters
    ----------
    e, h : array-like
        Score variables and hidden features; broadcast against each other, the last axis is the
        vector dimension (a scalar is a vector of length one).
    lam : float
        The regularisation constant ``lambda``; must be positive.

    Returns
    -------
    product : ndarray
        ``e^T h``.
    bound : ndarray
        ``1/(2 lambda) e^T e + (lambda/2) h^T h``.
    gap : ndarray
        ``bound - product``, computed from the square so that it is ``>= 0`` to the last bit.
    """
    lam = check_scalar_range(lam, "lam", low=0)
    e = np.atleast_1d(np.asarray(e, dtype=np.float64))
    h = np.atleast_1d(np.asarray(h, dtype=np.float64))
    if not (np.all(np.isfinite(e)) and np.all(np.isfinite(h))):
        raise ValueError("e and h must be finite; remove NaN or infinite entries.")
    e, h = np.broadcast_arrays(e, h)
    product = np.sum(e * h, axis=-1)
    bound = np.sum(e * e, axis=-1) / (2.0 * lam) + 0.5 * lam * np.sum(h * h, axis=-1)
    residual = e / np.sqrt(lam) - np.sqrt(lam) * h
    gap = 0.5 * np.sum(residual * residual, axis=-1)
    return product, bound, gap


class FenchelYoungExplorer(BaseExplorer):
    r"""Interactive view of the Fenchel–Young inequality for one score ``e`` and feature ``h``.

    Illustrates :eq:`eq-fenchel-young` (Chapter 1, *Kernels, feature maps and conjugate
    feature duality*), the inequality that introduces the hidden features of a Restricted
    Kernel Machine in :eq:`eq-kpca-rkm-objective`. For fixed ``e`` and ``lambda``, the right
    side is a parabola in ``h`` that lies above the line ``e h`` and touches it at exactly one
    point, ``h* = e / lambda``, where both equal ``e^2 / lambda``. Minimising the bound over
    ``h`` therefore recovers ``-e^2 / (2 lambda)`` exactly: the quadratic term of the PCA
    objective is the lower envelope of a family of linear functions of ``e``.

    Left panel: the line ``e h`` and the parabola, the tight point marked. Right panel: the gap
    ``(lambda/2) (h - e/lambda)^2``. The axis limits come from a coarse ladder of round numbers
    (1, 1.5, 2, 3, 5, 7.5 times a power of ten) instead of autoscaling, so that they, and the
    tick labels, stay put for most slider steps and an update only redraws the curves.

    Parameters
    ----------
    lam : float, default=1.0
        Initial ``lambda``; the slider covers ``[0.1, 10]`` on a log scale.
    e : float, default=1.0
        Initial score ``e``; the slider covers ``[-2, 2]``.
    n_grid : int, default=401
        Number of ``h`` values on the plotted grid.

    Attributes
    ----------
    controls : dict
        ``{"lam": lambda_slider, "e": e_slider}``; the names accepted by :meth:`update`.
    lambda_slider : ipywidgets.FloatLogSlider
    e_slider : ipywidgets.FloatSlider
    widget : ipywidgets.VBox
        The container to display.
    h_grid_ : ndarray of shape (n_grid,)
        The ``h`` values last plotted; the grid always contains the tight point.
    tight_point_ : tuple of float
        ``(h*, e h*)`` for the current values.
    product_line, bound_line, gap_line, tight_marker : matplotlib.lines.Line2D
        The plotted artists; their ``get_ydata()`` is the data last drawn.
    figure : matplotlib.figure.Figure
    png_ : bytes
        The PNG last shown in the widget.
    """

    def __init__(self, lam=1.0, e=1.0, *, n_grid=401):
        super().__init__()
        self.n_grid = check_scalar_range(n_grid, "n_grid", low=3, low_inclusive=True,
                                         integer=True)
        lam = check_scalar_range(lam, "lam", low=0.1, high=10, low_inclusive=True)
        e = check_scalar_range(e, "e", low=-2, high=2, low_inclusive=True)
        self.lambda_slider = widgets.FloatLogSlider(
            value=float(lam), base=10, min=-1, max=1, step=0.05,
            description="λ", continuous_update=False, readout_format=".3g",
        )
        self.e_slider = widgets.FloatSlider(
            value=float(e), min=-2.0, max=2.0, step=0.05,
            description="e", continuous_update=False, readout_format=".2f",
        )
        self.controls = {"lam": self.lambda_slider, "e": self.e_slider}
        self._build_figure()
        self._finish_init()

    def __repr__(self) -> str:
        return f"FenchelYoungExplorer(n_grid={self.n_grid})"

    def _build_figure(self) -> None:
        self.figure = self._new_figure((10.0, 3.6))
        ax_sides, ax_gap = self.figure.subplots(1, 2)
        self.product_line, = ax_sides.plot([], [], lw=2, label=r"$e\,h$")
        self.bound_line, = ax_sides.plot(
            [], [], lw=2, label=r"$\frac{1}{2\lambda}e^2 + \frac{\lambda}{2}h^2$")
        self.tight_marker, = ax_sides.plot([], [], "o", color="crimson", ms=8,
                                           label=r"tight: $h = e/\lambda$")
        ax_sides.set_xlabel("hidden feature h")
        ax_sides.legend(loc="upper center", fontsize=8)
        self.gap_line, = ax_gap.plot([], [], color="tab:green", lw=2)
        self.gap_marker, = ax_gap.plot([], [], "o", color="crimson", ms=8)
        ax_gap.axhline(0.0, color="k", lw=0.8)
        ax_gap.set_xlabel("hidden feature h")
        ax_gap.set_title(r"gap $\frac{\lambda}{2}(h - e/\lambda)^2 \geq 0$")
        self.ax_sides, self.ax_gap = ax_sides, ax_gap
        # Tick labels are most of the cost of a full redraw (each is laid out and rasterised
        # glyph by glyph); four intervals per axis read as well and draw about a third faster.
        for ax in (ax_sides, ax_gap):
            ax.xaxis.set_major_locator(MaxNLocator(nbins=4))
            ax.yaxis.set_major_locator(MaxNLocator(nbins=4))
        self._mark_dynamic(self.product_line, self.bound_line, self.tight_marker, ax_sides.title,
                           self.gap_line, self.gap_marker)

    def _redraw(self) -> None:
        lam = float(self.lambda_slider.value)
        e = float(self.e_slider.value)
        h_star = e / lam
        half_width = _nice_ceil(max(3.0, 1.5 * abs(h_star)))
        grid = np.linspace(-half_width, half_width, self.n_grid)
        # Put the tight point on the grid, so the plotted gap really touches zero.
        grid = np.union1d(grid, [h_star])
        product, bound, gap = fenchel_young_sides(e, grid[:, None], lam)
        self.h_grid_ = grid
        self.tight_point_ = (h_star, e * h_star)
        self.product_line.set_data(grid, product)
        self.bound_line.set_data(grid, bound)
        self.tight_marker.set_data([h_star], [e * h_star])
        self.gap_line.set_data(grid, gap)
        self.gap_marker.set_data([h_star], [0.0])
        self.ax_sides.set_title(
            f"λ = {lam:.3g}, e = {e:.2f}: tight at h = {h_star:.3g}, value {e * h_star:.3g}")
        x_limits = (-(1 + _MARGIN) * half_width, (1 + _MARGIN) * half_width)
        self.ax_sides.set(xlim=x_limits, ylim=_nice_limits(min(product.min(), bound.min()),
                                                           max(product.max(), bound.max())))
        self.ax_gap.set(xlim=x_limits, ylim=_nice_limits(0.0, gap.max()))
