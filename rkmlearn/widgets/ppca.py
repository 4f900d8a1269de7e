"""Explorer for Chapter 7, *Kernel sampling and pre-images*.

:class:`PPCAExplorer` shows, in the input space of a small two-dimensional data set, what the
dual probabilistic PCA of :class:`~rkmlearn.probabilistic.ProbabilisticKPCA` does with ``q``
latent components and a noise variance ``sigma^2``: the reconstruction of the training points
(:eq:`eq-ppca-map`), the kernel PCA reconstruction it tends to as ``sigma^2 -> 0``, and samples
of the model (:eq:`eq-ppca-kernel-sampling`), all brought back to the input space by the kernel
smoother (:eq:`eq-kernel-smoother`).
"""
from __future__ import annotations

import ipywidgets as widgets
import numpy as np
import scipy.linalg

from .._validation import check_array, check_random_state, check_scalar_range
from ..kernels import GramCenterer
from ..preimage import kernel_smoother
from ..models.probabilistic import ProbabilisticKPCA
from ..solvers.linear import pivoted_cholesky
from ._base import BaseExplorer

__all__ = ["PPCAExplorer"]


class PPCAExplorer(BaseExplorer):
    r"""Reconstructions and samples of dual probabilistic PCA, with sliders for ``q`` and ``sigma^2``.

    Illustrates :eq:`eq-ppca-map`, :eq:`eq-ppca-kernel-sampling` and :eq:`eq-kernel-smoother`
    (Chapter 7, *Kernel sampling and pre-images*). One model with ``max_components`` components
    is fitted in the constructor (RBF kernel); its leading eigenpairs ``(lambda_p, eps_p)`` serve
    every ``q <= max_components`` by slicing. For ``q`` and ``sigma^2`` the plotted quantities are
    closed forms in those eigenpairs:

    * reconstruction of training point ``i`` in kernel space,
      ``(k_c)_MAP = K_c A h_MAP = E_q diag(lambda_p - N sigma^2) E_q^T e_i``, and its
      coefficients ``alpha = A h_MAP = E_q diag(1 - N sigma^2 / lambda_p) E_q^T e_i`` (for the
      mean term of the kernel smoother, ``phi_c = Phi_c^T alpha``);
    * the kernel PCA reconstruction: the same with ``sigma^2 = 0``;
    * samples ``k_c = E_q diag(lambda_p / sqrt(N)) u_q + sigma P_perp F u'``
      (``F F^T = K_c`` a pivoted Cholesky factor, ``P_perp = I - E_q E_q^T``), exactly as
      :meth:`ProbabilisticKPCA.sample`. The draws ``u = (u_q, u')`` are made once, so moving a
      slider moves the same samples: ``q`` switches latent coordinates on, ``sigma^2`` scales
      the noise part.

    The noise slider is the fraction ``sigma^2 / (lambda_q / N)`` in ``[0, 1]`` of the bound of
    Prop. 3/6 for the current ``q``; the lower panel marks the maximum-likelihood value
    ``sigma^2_ML / (lambda_q / N)`` (:eq:`eq-ppca-sigma2-ml`). Fraction 0 is the kernel PCA limit.

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)
        Two-dimensional training points.
    sigma : float, default=2.0
        RBF bandwidth, ``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))``.
    max_components : int, default=10
        Largest ``q`` on the slider; needs ``max_components < rank(K_c)``.
    n_draws : int, default=60
        Number of generated samples shown.
    components : int, optional
        Initial ``q`` (default ``min(3, max_components)``).
    sigma2_fraction : float, optional
        Initial fraction; default: the maximum-likelihood fraction for the initial ``q``, rounded
        to the slider step.
    random_state : int, RandomState instance, Generator or None, default=0
        Seeds the draws ``u``.

    Attributes
    ----------
    controls : dict
        ``{"components": components_slider, "sigma2_fraction": fraction_slider}``.
    model_ : ProbabilisticKPCA
        The fit with ``max_components`` components (``sigma2="ml"``).
    eigenvalues_ : ndarray of shape (max_components,)
        ``lambda_p`` of ``K_c`` (not divided by N).
    sigma2_ml_ : ndarray of shape (max_components,)
        ``sigma^2_ML`` for ``q = 1..max_components``.
    explained_variance_ : ndarray of shape (max_components,)
        ``sum_{p<=q} lambda_p / trace(K_c)`` for each ``q``.
    U_latent_, U_noise_ : ndarray of shape (n_draws, max_components), (n_draws, rank)
        The fixed draws ``u_q`` (first ``q`` columns used) and ``u'``.
    sigma2_ : float
        Noise variance of the current state.
    ppca_points_, kpca_points_, sample_points_ : ndarray
        Pre-images last plotted (reconstructions, KPCA reconstructions, samples).
    data_line, ppca_line, kpca_line, sample_line : matplotlib.lines.Line2D
    ml_line, fraction_marker : matplotlib.lines.Line2D
        Lower panel: the ML fraction and the current fraction.
    figure : matplotlib.figure.Figure
    png_ : bytes
    """

    def __init__(self, X, sigma=2.0, max_components=10, *, n_draws=60, components=None,
                 sigma2_fraction=None, random_state=0):
        super().__init__()
        X = check_array(X, "X")
        if X.shape[1] != 2:
            raise ValueError(
                f"X must have 2 columns (the explorer plots the input plane), got shape {X.shape}; "
                "pass two-dimensional points."
            )
        self.X = X
        self.sigma = check_scalar_range(sigma, "sigma", low=0.0)
        self.max_components = check_scalar_range(max_components, "max_components", low=1,
                                                 low_inclusive=True, integer=True)
        self.n_draws = check_scalar_range(n_draws, "n_draws", low=1, low_inclusive=True,
                                          integer=True)
        if components is None:
            components = min(3, self.max_components)
        components = check_scalar_range(components, "components", low=1, high=self.max_components,
                                        low_inclusive=True, integer=True)
        self._fit(random_state)
        if sigma2_fraction is None:
            sigma2_fraction = round(float(self._ml_fraction(components)), 2)
        sigma2_fraction = check_scalar_range(sigma2_fraction, "sigma2_fraction", low=0.0, high=1.0,
                                             low_inclusive=True)
        self.components_slider = widgets.IntSlider(
            value=int(components), min=1, max=self.max_components, step=1, description="q",
            continuous_update=False,
        )
        self.fraction_slider = widgets.FloatSlider(
            value=float(sigma2_fraction), min=0.0, max=1.0, step=0.01,
            description="σ² / (λ_q/N)", continuous_update=False,
            style={"description_width": "initial"},
        )
        self.controls = {"components": self.components_slider,
                         "sigma2_fraction": self.fraction_slider}
        self._build_figure()
        self._finish_init()

    def __repr__(self) -> str:
        return (f"PPCAExplorer(n_samples={self.X.shape[0]}, sigma={self.sigma}, "
                f"max_components={self.max_components}, n_draws={self.n_draws})")

    # -- the expensive part, once -------------------------------------------------------------
    def _fit(self, random_state) -> None:
        N = self.X.shape[0]
        q_max = self.max_components
        model = ProbabilisticKPCA(q_max, kernel_params={"sigma": self.sigma},
                                  random_state=0).fit(self.X)
        self.model_ = model
        values, E = model.eigenvalues_, model.E_
        self.eigenvalues_ = values
        self._E = E
        # rebuilt exactly as the model builds it, so that the factor below is the model's
        K_c = GramCenterer().fit_transform(model.kernel_(self.X))
        trace = float(np.trace(K_c))
        # sum_{p>q} lambda_p for every q from the tail of the largest model (no cancellation
        # in the tail itself: sigma2_ of the fit was computed from a pivoted Cholesky factor)
        rank = model.rank_
        tail_max = model.sigma2_ * N * (rank - q_max)
        tails = tail_max + np.concatenate([np.cumsum(values[::-1])[::-1][1:], [0.0]])
        q = np.arange(1, q_max + 1)
        self.sigma2_ml_ = tails / (N * (rank - q))
        self.explained_variance_ = np.cumsum(values) / trace
        # noise factor F (K_c = F F^T) and the draws, as in ProbabilisticKPCA.sample
        F, piv, _ = pivoted_cholesky(K_c, values[0])
        F, piv = F[:, :rank], piv[:rank]
        rng = check_random_state(random_state)
        self.U_latent_ = rng.standard_normal((self.n_draws, q_max))
        self.U_noise_ = rng.standard_normal((self.n_draws, rank))
        self._noise = self.U_noise_ @ F.T                       # F u'
        self._noise_proj = self._noise @ E                      # eps_p^T F u'
        # K_c beta = F u' for beta = P [L11^{-T} u'; 0] (the library's construction)
        beta = np.zeros((self.n_draws, N))
        beta[:, piv] = scipy.linalg.solve_triangular(F[piv], self.U_noise_.T, lower=True,
                                                     trans="T").T
        self._beta, self._beta_proj = beta, beta @ E
        self._offsets = model.centerer_.row_means_ - model.centerer_.grand_mean_
        self._K_c = K_c

    def _ml_fraction(self, q: int) -> float:
        return self.sigma2_ml_[q - 1] / (self.eigenvalues_[q - 1] / self.X.shape[0])

    # -- closed forms for one state (used by _redraw and by tests) ----------------------------
    def reconstructions(self, q, sigma2):
        """Kernel-smoother pre-images of the training points' reconstructions for ``(q, sigma2)``.

        Implements :eq:`eq-ppca-map` with :eq:`eq-kernel-smoother`:
        ``(k_c)_MAP = E_q diag(lambda_p - N sigma2) E_q^T`` (rows: training points) and
        ``alpha = E_q diag(1 - N sigma2 / lambda_p) E_q^T``.

        Parameters
        ----------
        q : int
            Number of components, ``1 <= q <= max_components``.
        sigma2 : float
            Noise variance, ``0 <= sigma2 <= lambda_q / N`` (0: kernel PCA).

        Returns
        -------
        X_rec : ndarray of shape (n_samples, 2)
        """
        N = self.X.shape[0]
        E, lam = self._E[:, :q], self.eigenvalues_[:q]
        k_rec = (E * (lam - N * sigma2)) @ E.T
        alpha = (E * (1.0 - N * sigma2 / lam)) @ E.T
        return kernel_smoother(k_rec, self.X, self.model_.centerer_,
                               mean_term=alpha @ self._offsets)

    def samples(self, q, sigma2):
        """Kernel-smoother pre-images of the fixed draws for ``(q, sigma2)``.

        Implements :eq:`eq-ppca-kernel-sampling`: ``k_c = E_q diag(lambda_p / sqrt(N)) u_q +
        sigma P_perp F u'`` with ``phi_c = Phi_c^T alpha``,
        ``alpha = E_q u_q / sqrt(N) + sigma P_perp beta`` (``K_c beta = F u'``).

        Parameters
        ----------
        q : int
        sigma2 : float

        Returns
        -------
        X_samples : ndarray of shape (n_draws, 2)
        """
        N = self.X.shape[0]
        E, lam = self._E[:, :q], self.eigenvalues_[:q]
        U = self.U_latent_[:, :q]
        s = np.sqrt(sigma2)
        k_c = (U * (lam / np.sqrt(N))) @ E.T + s * (self._noise - self._noise_proj[:, :q] @ E.T)
        alpha = (U / np.sqrt(N)) @ E.T + s * (self._beta - self._beta_proj[:, :q] @ E.T)
        return kernel_smoother(k_c, self.X, self.model_.centerer_, mean_term=alpha @ self._offsets)

    # -- figure -------------------------------------------------------------------------------
    def _build_figure(self) -> None:
        self.figure = self._new_figure((7.0, 6.0))
        ax, ax_bar = self.figure.subplots(2, 1, height_ratios=[6, 1])
        self.sample_line, = ax.plot([], [], "o", color="0.6", ms=4, alpha=0.7,
                                    label="samples", zorder=3)
        self.data_line, = ax.plot(self.X[:, 0], self.X[:, 1], "o", color="k", ms=5,
                                  label="data", zorder=2)
        self.kpca_line, = ax.plot([], [], "s", mfc="none", color="crimson", ms=7,
                                  label="KPCA reconstruction", zorder=4)
        self.ppca_line, = ax.plot([], [], "D", color="tab:blue", ms=4,
                                  label="PPCA reconstruction", zorder=5)
        span = np.ptp(self.X, axis=0).max()
        centre = 0.5 * (self.X.max(axis=0) + self.X.min(axis=0))
        half = 0.55 * span
        ax.set_xlim(centre[0] - half, centre[0] + half)
        ax.set_ylim(centre[1] - half, centre[1] + half)
        ax.set_aspect("equal")
        ax.legend(loc="upper right", fontsize=8, framealpha=0.9)
        ax_bar.set_xlim(0.0, 1.0)
        ax_bar.set_ylim(-1.0, 1.0)
        ax_bar.set_yticks([])
        ax_bar.set_xlabel(r"$\sigma^2 / (\lambda_q / N)$   (| : maximum likelihood)")
        ax_bar.axhline(0.0, color="0.7", lw=2, zorder=1)
        self.ml_line, = ax_bar.plot([], [], color="k", lw=2, zorder=5)
        self.fraction_marker, = ax_bar.plot([], [], "o", color="tab:blue", ms=9, zorder=6)
        self.ax, self.ax_bar = ax, ax_bar
        # zorder above the legend (5): a fast update then redraws only these, not the legend
        for line in (self.sample_line, self.kpca_line, self.ppca_line):
            line.set_zorder(line.get_zorder() + 10)
        self._mark_dynamic(self.sample_line, self.kpca_line, self.ppca_line, ax.title,
                           self.ml_line, self.fraction_marker)

    def _redraw(self) -> None:
        q = int(self.components_slider.value)
        fraction = float(self.fraction_slider.value)
        N = self.X.shape[0]
        bound = self.eigenvalues_[q - 1] / N
        self.sigma2_ = fraction * bound
        self.ppca_points_ = self.reconstructions(q, self.sigma2_)
        self.kpca_points_ = self.reconstructions(q, 0.0)
        self.sample_points_ = self.samples(q, self.sigma2_)
        self.ppca_line.set_data(self.ppca_points_[:, 0], self.ppca_points_[:, 1])
        self.kpca_line.set_data(self.kpca_points_[:, 0], self.kpca_points_[:, 1])
        self.sample_line.set_data(self.sample_points_[:, 0], self.sample_points_[:, 1])
        ml = self._ml_fraction(q)
        self.ml_line.set_data([ml, ml], [-0.8, 0.8])
        self.fraction_marker.set_data([fraction], [0.0])
        self.ax.set_title(
            f"q = {q}: explained variance {100 * self.explained_variance_[q - 1]:.2f} %, "
            f"σ² = {100 * self.sigma2_:.2f} % (ML {100 * self.sigma2_ml_[q - 1]:.2f} %)",
            fontsize=10,
        )
