"""Explorer for Chapter 7, *Kernel sampling and pre-images*.

:class:`PPCAExplorer` shows, in the input space of a small two-dimensional data set, what the
dual probabilistic PCA of :class:`rkmlearn.ProbabilisticKPCA` does with ``q`` latent components
and a noise variance ``sigma^2``: the reconstruction of the training points (:eq:`eq-ppca-map`),
the kernel PCA reconstruction it tends to as ``sigma^2 -> 0``, and samples of the model
(:eq:`eq-ppca-kernel-sampling`), all brought back to the input space by the kernel smoother
(:eq:`eq-kernel-smoother`).
"""
from __future__ import annotations

import numpy as np

from .. import ProbabilisticKPCA
from .._validation import check_array, check_scalar_range, check_seed
from ._base import FrameExplorer, Ladder

__all__ = ["PPCAExplorer"]

#: sigma^2 of the kernel PCA reference, as a fraction of the bound lambda_q / N: the limit
#: sigma^2 -> 0 of the model, to about nine digits.
_KPCA_LIMIT = 1e-9


class PPCAExplorer(FrameExplorer):
    r"""Reconstructions and samples of dual probabilistic PCA, one frame per ``(q, sigma^2)``.

    Illustrates :eq:`eq-ppca-map`, :eq:`eq-ppca-kernel-sampling` and :eq:`eq-kernel-smoother`
    (Chapter 7, *Kernel sampling and pre-images*). Every state is a fit of
    :class:`rkmlearn.ProbabilisticKPCA` (RBF kernel) and what the frame shows comes from its
    public methods, nothing re-derived:

    * the blue diamonds are ``reconstruct(X, space="input")``: the training points reduced to
      ``q`` latent coordinates and mapped back by the kernel smoother;
    * the red squares are the same for ``sigma^2 = 10^-9 lambda_q / N``, the ``sigma^2 -> 0``
      limit, which is kernel PCA's reconstruction;
    * the grey dots are ``sample(n_draws, space="input", random_state=random_state)``: draws of
      the model. For one ``q`` every ``sigma^2`` uses the same standard-normal draws, so the
      noise part grows in place as ``sigma^2`` does.

    Ladders: ``q`` in ``components`` and ``sigma^2`` either its maximum-likelihood value
    (:eq:`eq-ppca-sigma2-ml`, ``sigma2="ml"``) or a fraction ``0.01, 0.5, 1`` of the bound
    ``lambda_q / N`` of Prop. 3/6 (at the bound the ``q``-th component is switched off). The
    lower panel places the current ``sigma^2`` and the ML value on the scale of that bound.

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)
        Two-dimensional training points.
    sigma : float, default=2.0
        RBF bandwidth, ``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))``.
    components : sequence of int, default=(1, 2, 3, 5, 10)
        The ladder of ``q``; each needs ``q < rank(K_c)``.
    n_draws : int, default=60
        Number of generated samples shown.
    initial_components : int, default=3
        The ``q`` shown first (on the ladder).
    random_state : int, RandomState, Generator or None, default=0
        Seed of the draws.

    Attributes
    ----------
    ladders : tuple of Ladder
        ``components`` and ``sigma2`` (``"ml"``, 0.01, 0.5, 1.0).
    models_ : dict
        ``(q, sigma2)`` to the fitted :class:`~rkmlearn.ProbabilisticKPCA` of that state.
    """

    #: 4.6 in (460 px): on a phone's 342 px column the frame is shown at 74 % of its size, legible
    #: without scrolling sideways (one picture, no panels to stack)
    figsize = (4.6, 5.4)
    #: the sigma^2 ladder: "ml" or a fraction of lambda_q / N
    NOISE_LEVELS = ("ml", 0.01, 0.5, 1.0)

    def __init__(self, X, sigma=2.0, components=(1, 2, 3, 5, 10), *, n_draws=60,
                 initial_components=3, random_state=0):
        X = check_array(X, "X")
        if X.shape[1] != 2:
            raise ValueError(
                f"X must have 2 columns (the explorer plots the input plane), got shape {X.shape}; "
                "pass two-dimensional points."
            )
        self.X = X
        self.sigma = check_scalar_range(sigma, "sigma", low=0.0)
        self.n_draws = check_scalar_range(n_draws, "n_draws", low=1, low_inclusive=True,
                                          integer=True)
        # one int seed, kept: every frame of one q draws the same standard normals (a Generator or a
        # RandomState given is drawn from once, here)
        self.random_state = check_seed(random_state, integer=True)
        components = tuple(
            check_scalar_range(q, "components", low=1, low_inclusive=True, integer=True)
            for q in components)
        if not components or list(components) != sorted(set(components)):
            raise ValueError(f"components must be increasing integers, got {components!r}.")
        self.ladders = (
            Ladder("components", "$q$", components),
            Ladder("sigma2", r"$\sigma^2$ ($\times \lambda_q/N$)", self.NOISE_LEVELS,
                   ("ML", "0.01", "0.5", "1"), style="buttons"),
        )
        self.initial = {"components": initial_components, "sigma2": "ml"}
        self.check_state()
        self.models_, self._kpca = {}, {}
        for q in components:
            ml = self._fit(q, "ml")
            self.models_[q, "ml"] = ml
            bound = ml.eigenvalues_[-1] / X.shape[0]
            for fraction in self.NOISE_LEVELS[1:]:
                self.models_[q, fraction] = self._fit(q, fraction * bound)
            self._kpca[q] = self._fit(q, _KPCA_LIMIT * bound).reconstruct(X, space="input")

    def _fit(self, q, sigma2):
        return ProbabilisticKPCA(q, kernel_params={"sigma": self.sigma}, sigma2=sigma2,
                                 random_state=0).fit(self.X)

    def state_data(self, components, sigma2):
        """What the frame of a state shows.

        Returns
        -------
        dict
            ``model`` (the fit), ``sigma2`` (its noise variance), ``bound``
            (``lambda_q / N``), ``ml`` (the ML noise variance for this ``q``),
            ``reconstructions``, ``kpca`` (the ``sigma^2 -> 0`` reconstructions) and
            ``samples``, the last three in input space.
        """
        state = self.check_state(components=components, sigma2=sigma2)
        q = state["components"]
        model = self.models_[q, state["sigma2"]]
        ml = self.models_[q, "ml"]
        return {
            "model": model,
            "sigma2": model.sigma2_,
            "bound": ml.eigenvalues_[-1] / self.X.shape[0],
            "ml": ml.sigma2_,
            "reconstructions": model.reconstruct(self.X, space="input"),
            "kpca": self._kpca[q],
            "samples": model.sample(self.n_draws, space="input", random_state=self.random_state),
        }

    def draw(self, figure, *, components, sigma2):
        data = self.state_data(components, sigma2)
        ax, ax_bar = figure.subplots(2, 1, height_ratios=[7, 1])
        samples, rec, kpca = data["samples"], data["reconstructions"], data["kpca"]
        ax.plot(self.X[:, 0], self.X[:, 1], "o", color="k", ms=5, label="data")
        ax.plot(samples[:, 0], samples[:, 1], "o", color="0.55", ms=4, alpha=0.75,
                label="samples")
        ax.plot(kpca[:, 0], kpca[:, 1], "s", mfc="none", color="crimson", ms=8,
                label="KPCA reconstruction")
        ax.plot(rec[:, 0], rec[:, 1], "D", color="tab:blue", ms=4.5,
                label="PPCA reconstruction")
        span = np.ptp(self.X, axis=0).max()
        centre = 0.5 * (self.X.max(axis=0) + self.X.min(axis=0))
        half = 0.6 * span
        # a band above the data holds the legend, so that it covers no point
        top = self.X[:, 1].max() + 0.3 * half
        ax.set(xlim=(centre[0] - half, centre[0] + half), ylim=(centre[1] - half, top),
               aspect="equal")
        ax.legend(loc="upper center", ncol=2, fontsize=9, framealpha=0.9)
        model = data["model"]
        explained = 100 * model.explained_variance_ratio_.sum()
        ax.set_title(f"$q = {components}$: explained variance {explained:.1f} %\n"
                     rf"$\sigma^2$ = {data['sigma2']:.3e}  "
                     rf"($\sigma^2_{{\mathrm{{ML}}}}$ = {data['ml']:.3e})")
        fraction, ml_fraction = data["sigma2"] / data["bound"], data["ml"] / data["bound"]
        ax_bar.set(xlim=(-0.02, 1.02), ylim=(-1.0, 1.0), yticks=[])
        ax_bar.axhline(0.0, color="0.7", lw=2)
        ax_bar.plot([ml_fraction, ml_fraction], [-0.8, 0.8], color="k", lw=2)
        ax_bar.plot([fraction], [0.0], "o", color="tab:blue", ms=9)
        ax_bar.set_xlabel(r"$\sigma^2 / (\lambda_q / N)$    "
                          r"(black bar: $\sigma^2_{\mathrm{ML}}$)")
