"""Explorer for Chapter 1, section *Explicit vs implicit feature maps*.

:class:`RFFConvergenceExplorer` shows how the random Fourier feature Gram matrix ``Z_D Z_D^T``
approaches the exact RBF Gram matrix as the number of features ``D`` grows.
"""
from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .._validation import check_array, check_scalar_range
from ..features import RandomFourierFeatures
from ..kernels import RBF
from ._base import BaseExplorer

__all__ = ["RFFConvergenceExplorer"]


#: Memory allowed for the stored prefix Gram matrices of one explorer.
_PREFIX_GRAM_BYTES = 32 * 2**20
#: Fewest features between two stored prefix Gram matrices: one product with fewer columns
#: costs a millisecond or two for a few hundred points, so finer steps would save little.
_MIN_CHECKPOINT_STEP = 256


def _relative_frobenius_error(approx: np.ndarray, exact: np.ndarray) -> float:
    """``||approx - exact||_F / ||exact||_F``."""
    return float(np.linalg.norm(approx - exact) / np.linalg.norm(exact))


def _prefix_grams(features: np.ndarray) -> tuple[int, np.ndarray]:
    """Gram matrices of the first ``s, 2s, 3s, ...`` columns of ``features``, and the step ``s``.

    ``Z[:, :D] Z[:, :D]^T`` then costs one product with fewer than ``s`` columns added to a
    stored matrix, instead of a product with ``D`` columns: for 300 points and ``D = 4096``
    the update's recomputation drops from tens of milliseconds to about one. The step is the
    smallest power of two (at least :data:`_MIN_CHECKPOINT_STEP`) whose matrices fit in
    :data:`_PREFIX_GRAM_BYTES`; with too many points for even one, ``s`` exceeds the number of
    columns, nothing is stored and every product is computed directly.

    Why at least 256, and a power of two: for ``D <= s`` nothing is added, so the result is
    bit for bit the one product of the first ``D`` columns computed without checkpoints
    (Chapter 1 prints its difference to a by-hand computation for ``D = 16`` and ``256``);
    beyond ``s`` the sum of two products differs from one product by rounding only.
    """
    n_samples, n_columns = features.shape
    n_fit = _PREFIX_GRAM_BYTES // (8 * n_samples**2)
    # Checkpoints s, 2s, ..., floor(n_columns / s) * s: at most n_fit of them.
    fewest = n_columns // n_fit + 1 if n_fit else n_columns + 1
    step = max(_MIN_CHECKPOINT_STEP, 1 << (fewest - 1).bit_length())
    grams = np.empty((n_columns // step, n_samples, n_samples))
    previous = 0.0
    for k in range(len(grams)):  # one product of step columns per checkpoint
        block = features[:, k * step:(k + 1) * step]
        previous = np.add(previous, block @ block.T, out=grams[k])
    return int(step), grams


class RFFConvergenceExplorer(BaseExplorer):
    r"""Interactive view of random Fourier features converging to the RBF kernel.

    Illustrates :eq:`eq-rff` (Chapter 1, *Kernels, feature maps and conjugate feature
    duality*): with ``D`` random features
    ``z(x) = sqrt(2/D) cos(Omega^T x + b)``, the Gram matrix ``Z_D Z_D^T`` is an unbiased
    estimate of the RBF Gram matrix of :eq:`eq-kernel-zoo`, with an error that decays like
    ``O(D^{-1/2})``.

    *Fit once, update by cheap slicing.* The constructor draws ``max_features`` random features
    once (one :class:`rkmlearn.features.RandomFourierFeatures` fit) and computes the exact Gram
    matrix once. The approximation with ``D <= max_features`` features uses the first ``D``
    columns of that one draw, rescaled from ``sqrt(2/max_features)`` to ``sqrt(2/D)``:

    ``Z_D = sqrt(max_features / D) * Z[:, :D]``,

    so moving the slider costs no new random numbers. The products are not recomputed from
    scratch either: the constructor stores ``Z[:, :D] Z[:, :D]^T`` for ``D`` on a grid (every
    256 features, at most 32 MiB), and an update adds the product of the few columns between
    the grid point below ``D`` and ``D``.
    Successive values of ``D`` therefore show *nested* approximations from the same draw, as
    a student adding features one at a time would see.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data points. Keep ``n_samples`` at a few hundred so an update stays interactive.
    sigma : float
        Bandwidth of the RBF kernel ``exp(-||x - y||^2 / (2 sigma^2))``; must be positive.
    max_features : int, default=2048
        Largest number of random features the slider offers (one draw of this size is made).
    n_features : int, default=16
        Initial value of the slider, in ``[1, max_features]``.
    random_state : int, RandomState instance or None, default=0
        Seed of the one random feature draw.

    Attributes
    ----------
    controls : dict
        ``{"n_features": n_features_slider}``; the names accepted by :meth:`update`.
    n_features_slider : ipywidgets.IntSlider
        The control for ``D``.
    widget : ipywidgets.VBox
        The container to display: the slider above an :class:`ipywidgets.Output` with the
        figure.
    exact_gram_ : ndarray of shape (n_samples, n_samples)
        The exact RBF Gram matrix.
    features_ : ndarray of shape (n_samples, max_features)
        The one random Fourier feature draw ``Z``.
    approx_gram_ : ndarray of shape (n_samples, n_samples)
        ``Z_D Z_D^T`` for the current slider value (the array last plotted).
    error_ : float
        Relative Frobenius error ``||Z_D Z_D^T - K||_F / ||K||_F`` for the current ``D``.
    grid_features_, grid_errors_ : ndarray
        A geometric grid of ``D`` values and their errors, drawn as the convergence curve.
    figure : matplotlib.figure.Figure
        The figure: exact Gram matrix, approximation, error versus ``D`` (log-log) with the
        ``D^{-1/2}`` reference line.
    exact_image, approx_image : matplotlib.image.AxesImage
        The two heat maps; ``approx_image.get_array()`` is the plotted approximation.
    error_marker : matplotlib.lines.Line2D
        The point ``(D, error_)`` on the convergence curve.
    png_ : bytes
        The PNG last shown in the widget.

    Examples
    --------
    >>> import numpy as np
    >>> from rkmlearn.widgets import RFFConvergenceExplorer
    >>> X = np.random.default_rng(0).normal(size=(50, 2))
    >>> explorer = RFFConvergenceExplorer(X, sigma=1.0, max_features=256, random_state=0)
    >>> explorer.update(n_features=256)
    >>> bool(explorer.error_ < 0.2)
    True
    """

    def __init__(self, X, sigma, *, max_features=2048, n_features=16, random_state=0):
        super().__init__()
        X = check_array(X, "X")
        self.sigma = check_scalar_range(sigma, "sigma", low=0)
        self.max_features = check_scalar_range(
            max_features, "max_features", low=1, low_inclusive=True, integer=True)
        n_features = check_scalar_range(
            n_features, "n_features", low=1, high=self.max_features, low_inclusive=True,
            integer=True)
        self.random_state = random_state
        self.n_samples = X.shape[0]
        rff = RandomFourierFeatures(
            sigma=self.sigma, n_features=self.max_features, random_state=random_state
        )
        self.features_ = rff.fit_transform(X)
        self.exact_gram_ = RBF(sigma=self.sigma)(X)
        self._checkpoint_step, self._prefix_grams = _prefix_grams(self.features_)

        grid = np.unique(np.geomspace(1, self.max_features, num=14).round().astype(int))
        self.grid_features_ = grid
        self.grid_errors_ = np.array(
            [_relative_frobenius_error(self.approx_gram(d), self.exact_gram_) for d in grid]
        )

        self.n_features_slider = widgets.IntSlider(
            value=int(n_features), min=1, max=self.max_features, step=1,
            description="D", continuous_update=False,
            layout=widgets.Layout(width="420px"),
        )
        self.controls = {"n_features": self.n_features_slider}
        self._build_figure()
        self._finish_init()

    def __repr__(self) -> str:
        return (
            f"RFFConvergenceExplorer(n_samples={self.n_samples}, sigma={self.sigma!r}, "
            f"max_features={self.max_features})"
        )

    def approx_gram(self, n_features: int) -> np.ndarray:
        """Gram matrix ``Z_D Z_D^T`` of the first ``n_features`` columns of the draw.

        Parameters
        ----------
        n_features : int
            ``D``, in ``[1, max_features]``.

        Returns
        -------
        ndarray of shape (n_samples, n_samples)
        """
        n_features = check_scalar_range(
            n_features, "n_features", low=1, high=self.max_features, low_inclusive=True,
            integer=True)
        checkpoint = n_features // self._checkpoint_step
        block = self.features_[:, checkpoint * self._checkpoint_step:n_features]
        gram = block @ block.T
        if checkpoint:
            gram += self._prefix_grams[checkpoint - 1]
        # Columns carry sqrt(2/max_features); rescale the product to sqrt(2/D)^2 = 2/D.
        gram *= self.max_features / n_features
        return gram

    def _build_figure(self) -> None:
        self.figure = self._new_figure((11.0, 3.5))
        ax_exact, ax_approx, ax_error = self.figure.subplots(1, 3)
        style = dict(vmin=0.0, vmax=1.0, cmap="viridis", interpolation="nearest")
        self.exact_image = ax_exact.imshow(self.exact_gram_, **style)
        ax_exact.set_title("exact RBF Gram matrix K")
        self.approx_image = ax_approx.imshow(self.exact_gram_, **style)
        for ax in (ax_exact, ax_approx):
            ax.set_xticks([])
            ax.set_yticks([])
        self.figure.colorbar(self.approx_image, ax=[ax_exact, ax_approx], shrink=0.8)
        self.ax_approx = ax_approx

        ax_error.loglog(self.grid_features_, self.grid_errors_, "o-", ms=3,
                        label="relative error")
        # Reference slope D^{-1/2}, anchored at the last grid point.
        anchor = self.grid_errors_[-1] * np.sqrt(self.grid_features_[-1])
        self.reference_line, = ax_error.loglog(
            self.grid_features_, anchor / np.sqrt(self.grid_features_), "k--", lw=1,
            label=r"$\propto D^{-1/2}$",
        )
        self.error_marker, = ax_error.loglog([1], [1.0], "o", color="crimson", ms=8,
                                             label="current D")
        ax_error.set_xlabel("number of random features D")
        ax_error.set_ylabel(r"$\|Z_D Z_D^\top - K\|_F / \|K\|_F$")
        legend = ax_error.legend(loc="lower left", fontsize=8)
        self.ax_error = ax_error
        # A fast update redraws every artist drawn after the first dynamic one of its Axes. With
        # the marker and the title above the legend, the legend (its text is costly to draw)
        # stays in the cached background; the marker is drawn on top of it, as it should be.
        for artist in (self.error_marker, ax_error.title):
            artist.set_zorder(legend.get_zorder() + 1)
        self._mark_dynamic(self.approx_image, ax_approx.title, self.error_marker, ax_error.title)

    def _redraw(self) -> None:
        d = int(self.n_features_slider.value)
        self.approx_gram_ = self.approx_gram(d)
        self.error_ = _relative_frobenius_error(self.approx_gram_, self.exact_gram_)
        self.approx_image.set_data(self.approx_gram_)
        self.ax_approx.set_title(f"RFF Gram matrix, D = {d}")
        self.error_marker.set_data([d], [self.error_])
        self.ax_error.set_title(f"error at D = {d}: {self.error_:.3f}")
