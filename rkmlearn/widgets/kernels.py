"""Explorer for Chapter 1, section *Explicit vs implicit feature maps*.

:class:`RFFConvergenceExplorer` shows how the random Fourier feature Gram matrix ``Z_D Z_D^T``
approaches the exact RBF Gram matrix as the number of features ``D`` grows.
"""
from __future__ import annotations

import numpy as np

from .._validation import check_array, check_scalar_range
from ..features import RandomFourierFeatures
from ..kernels import RBF
from ._base import FrameExplorer, Ladder

__all__ = ["RFFConvergenceExplorer"]


def _relative_frobenius_error(approx: np.ndarray, exact: np.ndarray) -> float:
    """``||approx - exact||_F / ||exact||_F``."""
    return float(np.linalg.norm(approx - exact) / np.linalg.norm(exact))


class RFFConvergenceExplorer(FrameExplorer):
    r"""Random Fourier features converging to the RBF kernel, one frame per ``D``.

    Illustrates :eq:`eq-rff` (Chapter 1, *Kernels, feature maps and conjugate feature
    duality*): with ``D`` random features ``z(x) = sqrt(2/D) cos(Omega^T x + b)``, the Gram
    matrix ``Z_D Z_D^T`` is an unbiased estimate of the RBF Gram matrix of :eq:`eq-kernel-zoo`,
    with an error that decays like ``O(D^{-1/2})``.

    The constructor draws ``max_features`` random features once (one
    :class:`rkmlearn.features.RandomFourierFeatures` fit) and computes the exact Gram matrix once.
    The approximation with ``D`` features uses the first ``D`` columns of that draw, rescaled
    from ``sqrt(2/max_features)`` to ``sqrt(2/D)``: ``Z_D = sqrt(max_features / D) Z[:, :D]``.
    Successive values of ``D`` therefore show *nested* approximations from the same draw, as a
    student adding features would see. The ladder of ``D`` is the powers of 4 up to
    ``max_features`` (and ``max_features`` itself): each step should halve the error.

    Frame: the exact Gram matrix, the approximation, and the error against ``D`` (log-log) for
    every power of two, with the ``D^{-1/2}`` reference line and the current ``D`` marked.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data points (a few hundred: the heat maps show one cell per pair).
    sigma : float
        Bandwidth of the RBF kernel ``exp(-||x - y||^2 / (2 sigma^2))``; must be positive.
    max_features : int, default=4096
        Size of the one random feature draw, the last rung of the ladder.
    n_features : int, default=16
        The ``D`` shown first; must be on the ladder.
    random_state : int, RandomState instance or None, default=0
        Seed of the one random feature draw.

    Attributes
    ----------
    ladders : tuple of Ladder
        One control, ``n_features`` (``D``).
    exact_gram_ : ndarray of shape (n_samples, n_samples)
        The exact RBF Gram matrix.
    features_ : ndarray of shape (n_samples, max_features)
        The one random Fourier feature draw ``Z``.
    curve_features_, curve_errors_ : ndarray
        Every power of two up to ``max_features`` (and ``max_features``), and its error: the
        convergence curve of the frames.

    Examples
    --------
    >>> import numpy as np
    >>> from rkmlearn.widgets import RFFConvergenceExplorer
    >>> X = np.random.default_rng(0).normal(size=(50, 2))
    >>> explorer = RFFConvergenceExplorer(X, sigma=1.0, max_features=256, random_state=0)
    >>> [ladder.values for ladder in explorer.ladders]
    [(1, 4, 16, 64, 256)]
    >>> bool(explorer.error(256) < 0.2)
    True
    """

    figsize = (7.8, 2.9)

    def __init__(self, X, sigma, *, max_features=4096, n_features=16, random_state=0):
        X = check_array(X, "X")
        self.sigma = check_scalar_range(sigma, "sigma", low=0)
        self.max_features = check_scalar_range(
            max_features, "max_features", low=1, low_inclusive=True, integer=True)
        self.random_state = random_state
        self.n_samples = X.shape[0]
        rff = RandomFourierFeatures(sigma=self.sigma, n_features=self.max_features,
                                    random_state=random_state)
        self.features_ = rff.fit_transform(X)
        self.exact_gram_ = RBF(sigma=self.sigma)(X)
        ladder = sorted({4**k for k in range(32) if 4**k <= self.max_features}
                        | {self.max_features})
        self.ladders = (Ladder("n_features", "$D$ (features)", tuple(ladder)),)
        self.initial = {"n_features": n_features}
        self.check_state()  # n_features must be on the ladder
        curve = sorted({2**k for k in range(32) if 2**k <= self.max_features}
                       | {self.max_features})
        self.curve_features_ = np.array(curve)
        self.curve_errors_ = np.array([self.error(d) for d in curve])

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
        block = self.features_[:, :n_features]
        # Columns carry sqrt(2/max_features); rescale the product to sqrt(2/D)^2 = 2/D.
        return (block @ block.T) * (self.max_features / n_features)

    def error(self, n_features: int) -> float:
        """Relative Frobenius error ``||Z_D Z_D^T - K||_F / ||K||_F`` of ``D = n_features``."""
        return _relative_frobenius_error(self.approx_gram(n_features), self.exact_gram_)

    def draw(self, figure, *, n_features):
        ax_exact, ax_approx, ax_error = figure.subplots(1, 3, width_ratios=(1, 1, 1.25))
        style = dict(vmin=0.0, vmax=1.0, cmap="viridis")
        ax_exact.imshow(self.exact_gram_, **style)
        ax_exact.set_title("exact RBF Gram K")
        image = ax_approx.imshow(self.approx_gram(n_features), **style)
        ax_approx.set_title(f"RFF Gram, D = {n_features}")
        for ax in (ax_exact, ax_approx):
            ax.set_xticks([])
            ax.set_yticks([])
        figure.colorbar(image, ax=[ax_exact, ax_approx], shrink=0.85, pad=0.02)
        d, errors = self.curve_features_, self.curve_errors_
        ax_error.loglog(d, errors, "o-", ms=3, lw=1.2, label="relative error")
        anchor = errors[-1] * np.sqrt(d[-1])
        ax_error.loglog(d, anchor / np.sqrt(d), "k--", lw=1, label=r"$\propto D^{-1/2}$")
        current = self.error(n_features)
        ax_error.loglog([n_features], [current], "o", color="crimson", ms=8, label="current D")
        ax_error.set_xlabel("number of features D")
        ax_error.set_title(f"error {current:.3f}")
        ax_error.legend(loc="lower left")
