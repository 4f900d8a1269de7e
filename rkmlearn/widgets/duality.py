"""Explorer for Chapter 1, section *The Fenchel–Young inequality that creates the hidden features*.

:class:`FenchelYoungExplorer` plots both sides of the scalar Fenchel–Young inequality
``e h <= e^2 / (2 lambda) + (lambda / 2) h^2`` as functions of the hidden feature ``h`` and
marks the point where it is tight, ``h = e / lambda``.
"""
from __future__ import annotations

import numpy as np

from .._validation import check_scalar_range
from ._base import FrameExplorer, Ladder

__all__ = ["FenchelYoungExplorer", "fenchel_young_sides"]


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


class FenchelYoungExplorer(FrameExplorer):
    r"""The Fenchel–Young inequality for one score ``e`` and feature ``h``, one frame per ``(lambda, e)``.

    Illustrates :eq:`eq-fenchel-young` (Chapter 1, *Kernels, feature maps and conjugate
    feature duality*), the inequality that introduces the hidden features of a Restricted
    Kernel Machine in :eq:`eq-kpca-rkm-objective`. For fixed ``e`` and ``lambda``, the right
    side is a parabola in ``h`` that lies above the line ``e h`` and touches it at exactly one
    point, ``h* = e / lambda``, where both equal ``e^2 / lambda``. Minimising the bound over
    ``h`` therefore recovers ``-e^2 / (2 lambda)`` exactly: the quadratic term of the PCA
    objective is the lower envelope of a family of linear functions of ``e``.

    Left panel: the line ``e h`` and the parabola, the tight point marked. Right panel: the gap
    ``(lambda/2) (h - e/lambda)^2``. Both panels are computed by :func:`fenchel_young_sides`
    (:meth:`sides`) on a grid of ``h`` that contains the tight point.

    Parameters
    ----------
    lam : float, optional
        The ``lambda`` shown first, on ``lams``; default the value of ``lams`` closest to 1.
    e : float, optional
        The ``e`` shown first, on ``scores``; default the value of ``scores`` closest to 1.
    lams : sequence of float, default=(0.25, 0.5, 1, 2, 4)
        The ladder of ``lambda`` (positive).
    scores : sequence of float, default=(-2, -1, 0, 1, 2)
        The ladder of ``e``.
    n_grid : int, default=401
        Number of ``h`` values on the plotted grid (the tight point is added).

    Attributes
    ----------
    ladders : tuple of Ladder
        ``lam`` and ``e``.
    """

    figsize = (7.8, 3.2)

    def __init__(self, lam=None, e=None, *, lams=(0.25, 0.5, 1.0, 2.0, 4.0),
                 scores=(-2.0, -1.0, 0.0, 1.0, 2.0), n_grid=401):
        self.n_grid = check_scalar_range(n_grid, "n_grid", low=3, low_inclusive=True,
                                         integer=True)
        lams = tuple(float(check_scalar_range(v, "lams", low=0)) for v in lams)
        scores = tuple(float(check_scalar_range(v, "scores")) for v in scores)
        self.ladders = (
            Ladder("lam", r"$\lambda$", lams, tuple(f"{v:g}" for v in lams)),
            Ladder("e", "$e$", scores, tuple(f"{v:g}" for v in scores)),
        )
        closest_to_one = lambda values: min(values, key=lambda v: (abs(v - 1.0), v))  # noqa: E731
        self.initial = {"lam": closest_to_one(lams) if lam is None else lam,
                        "e": closest_to_one(scores) if e is None else e}
        self.check_state()

    def sides(self, lam, e):
        """What the frame of ``(lam, e)`` plots.

        Returns
        -------
        h : ndarray of shape (n_grid + 1,)
            The grid, symmetric about 0, containing ``h* = e / lam``.
        product, bound, gap : ndarray
            :func:`fenchel_young_sides` on that grid.
        """
        h_star = e / lam
        half_width = max(3.0, 1.5 * abs(h_star))
        h = np.union1d(np.linspace(-half_width, half_width, self.n_grid), [h_star])
        product, bound, gap = fenchel_young_sides(e, h[:, None], lam)
        return h, product, bound, gap

    def draw(self, figure, *, lam, e):
        h, product, bound, gap = self.sides(lam, e)
        h_star = e / lam
        ax_sides, ax_gap = figure.subplots(1, 2)
        ax_sides.plot(h, product, lw=2, label=r"$e\,h$")
        ax_sides.plot(h, bound, lw=2, label=r"$\frac{1}{2\lambda}e^2 + \frac{\lambda}{2}h^2$")
        ax_sides.plot([h_star], [e * h_star], "o", color="crimson", ms=8,
                      label=r"tight: $h = e/\lambda$")
        top = max(bound.max(), product.max())
        ax_sides.set_ylim(min(product.min(), 0.0) - 0.05 * top, 1.3 * top)
        ax_sides.set_xlabel("hidden feature h")
        ax_sides.set_title(f"λ = {lam:g}, e = {e:g}: tight at h = {h_star:g}")
        ax_sides.legend(loc="upper center", ncols=2, fontsize=8.5)
        ax_gap.plot(h, gap, color="tab:green", lw=2)
        ax_gap.plot([h_star], [0.0], "o", color="crimson", ms=8)
        ax_gap.axhline(0.0, color="k", lw=0.8)
        ax_gap.set_xlabel("hidden feature h")
        ax_gap.set_title(r"gap $\frac{\lambda}{2}(h - e/\lambda)^2 \geq 0$")
