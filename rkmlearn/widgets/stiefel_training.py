"""Explorer for Part I, Chapter 4, *Stiefel training and rotation*.

:class:`StiefelTrainingExplorer` replays one Cayley-Adam run on the dual Stiefel problem
(the paper's Algorithm 4): a slider moves through iterations of the run and shows the
non-diagonal ``Gamma' = H'^T K H'`` of that iterate, the objective gap with the iteration
marked, and the hidden features, unrotated (``H'``) or rotated to the eigenbasis (``H = H' O``).
"""
from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .._validation import check_array, check_n_components, check_random_state, check_scalar_range
from ..solvers import stiefel
from ..solvers.eigen import flip_signs, top_eigenpairs
from ._base import BaseExplorer

__all__ = ["StiefelTrainingExplorer", "snapshot_iterations"]


def snapshot_iterations(max_iter, n_snapshots):
    """About ``n_snapshots`` distinct, log-spaced iteration numbers in ``[0, max_iter]``.

    Early iterations change the iterate most, so a log grid shows the run evenly; 0 (the start
    point) is always included.

    Parameters
    ----------
    max_iter : int
        Largest iteration number.
    n_snapshots : int
        Requested number of snapshots (>= 2).

    Returns
    -------
    ndarray of int
        Sorted, unique iteration numbers, starting with 0.
    """
    max_iter = check_scalar_range(max_iter, "max_iter", low=1, low_inclusive=True, integer=True)
    n_snapshots = check_scalar_range(n_snapshots, "n_snapshots", low=2, low_inclusive=True, integer=True)
    grid = np.geomspace(1, max_iter, num=n_snapshots - 1).round().astype(int)
    return np.unique(np.concatenate([[0], grid]))


class StiefelTrainingExplorer(BaseExplorer):
    r"""Interactive replay of Stiefel training (Algorithm 4) and of the rotation that ends it.

    Illustrates :eq:`eq-mv-rotation` (Part I, Chapter 4, *Stiefel training and rotation*):
    Cayley-Adam (:func:`rkmlearn.stiefel.cayley_adam`, the update :eq:`eq-cayley-update`)
    maximises ``tr(H^T K H)`` over the Stiefel manifold (:eq:`eq-stiefel-trace`). Its iterates
    ``H'_k`` approach an orthonormal basis of the top-``s`` eigenspace of ``K``, but in an
    arbitrary basis, so ``Gamma'_k = H'^T_k K H'_k`` keeps off-diagonal mass. Rotating by the
    eigenvectors ``O_k`` of ``Gamma'_k`` (``Gamma' = O Lambda O^T``, ``H = H' O``) diagonalises
    it; at convergence the rotated ``H`` equals the eigendecomposition's hidden features.

    *Fit once, update by cheap slicing.* The constructor runs the optimiser once and keeps
    ``n_snapshots`` iterates (log-spaced iteration numbers, recorded through the optimiser's
    ``callback``), then precomputes for each snapshot ``Gamma'_k``, the rotated basis and the
    objective. Moving the slider only indexes these arrays.

    Panels: (left) heat map of ``Gamma'_k`` on a fixed colour scale; (middle) objective gap
    ``f(H'_k) - f^*`` against the iteration (log-log), the current snapshot marked, where
    ``f^* = -1/2 sum_{j<=s} lambda_j`` comes from :func:`rkmlearn.linalg.top_eigenpairs`;
    (right) the ``s`` hidden features of snapshot ``k``, rotated or not (toggle), with the
    eigendecomposition's components dashed.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Symmetric positive semi-definite matrix, e.g. ``sum_v M_c K_v M_c`` of
        :eq:`eq-mv-dual-eig`. Keep ``n`` at a few hundred.
    n_components : int, default=4
        ``s``, the number of hidden features (``1 <= s <= n - 1``).
    n_snapshots : int, default=60
        Number of log-spaced iteration numbers at which iterates are kept (the final iterate
        is always added).
    learning_rate : float, default=0.3
        Cayley-Adam's step bound.
    max_iter : int, default=10000
        Iteration budget of the optimiser.
    tol : float, default=1e-10
        Stopping rule of the optimiser.
    random_state : int, RandomState instance or None, default=0
        Seeds the starting point.

    Attributes
    ----------
    controls : dict
        ``{"snapshot": snapshot_slider, "rotated": rotated_toggle}``; the names accepted by
        :meth:`update`.
    snapshot_slider : ipywidgets.IntSlider
        Index into :attr:`iterations_`.
    rotated_toggle : ipywidgets.Checkbox
        Show ``H = H' O`` (checked) or ``H'`` (unchecked).
    iterations_ : ndarray of int, shape (n_kept,)
        Iteration numbers of the kept snapshots (the last one is the final iterate).
    snapshots_ : ndarray of shape (n_kept, n, s)
        The iterates ``H'_k``.
    gamma_primes_ : ndarray of shape (n_kept, s, s)
        ``Gamma'_k = H'^T_k K H'_k`` (symmetrised).
    rotated_ : ndarray of shape (n_kept, n, s)
        ``H'_k O_k`` with the library's sign convention (:func:`rkmlearn.linalg.flip_signs`).
    objective_ : ndarray of shape (n_iter + 1,)
        The optimiser's objective history ``-1/2 tr(H'^T K H')``.
    optimum_ : float
        ``f^*``, the optimum from the eigendecomposition.
    eigenvalues_ : ndarray of shape (s,)
    eig_components_ : ndarray of shape (n, s)
        The eigendecomposition's hidden features (sign convention applied).
    result_ : rkmlearn.stiefel.StiefelResult
    shown_components_ : ndarray of shape (n, s)
        The components last plotted.
    gamma_image : matplotlib.image.AxesImage
    gap_marker : matplotlib.lines.Line2D
    component_lines : list of matplotlib.lines.Line2D
    figure : matplotlib.figure.Figure
    png_ : bytes
    """

    def __init__(self, K, n_components=4, *, n_snapshots=60, learning_rate=0.3, max_iter=10000,
                 tol=1e-10, random_state=0):
        super().__init__()
        K = check_array(K, "K")
        if K.shape[0] != K.shape[1]:
            raise ValueError(f"K must be a square (n, n) matrix, got shape {K.shape}.")
        if not np.allclose(K, K.T, rtol=1e-10, atol=1e-12 * max(np.abs(K).max(), 1.0)):
            raise ValueError("K must be symmetric; pass e.g. the summed centred kernel matrix (K + K.T) / 2.")
        K = 0.5 * (K + K.T)
        n = K.shape[0]
        s = check_n_components(n_components, n - 1, what="n_samples - 1")
        max_iter = check_scalar_range(max_iter, "max_iter", low=1, low_inclusive=True, integer=True)
        wanted = set(snapshot_iterations(max_iter, n_snapshots).tolist())
        self.n_samples, self.n_components = n, s

        kept = {}

        def keep(k, X):
            if k in wanted:
                kept[k] = X.copy()

        fun, grad = stiefel.trace_objective(K)
        H0 = check_random_state(random_state).standard_normal((n, s))
        result = stiefel.cayley_adam(fun, grad, H0, learning_rate=learning_rate, max_iter=max_iter,
                                     tol=tol, callback=keep)
        kept[result.n_iter] = result.X.copy()  # the final iterate, whatever its number
        self.result_ = result
        self.iterations_ = np.array(sorted(kept))
        self.snapshots_ = np.stack([kept[k] for k in self.iterations_])

        # Precompute everything the slider shows: Gamma'_k and the rotated basis (s x s work each).
        KH = np.einsum("ij,kjs->kis", K, self.snapshots_)
        gammas = np.einsum("kis,kit->kst", self.snapshots_, KH)
        self.gamma_primes_ = 0.5 * (gammas + np.transpose(gammas, (0, 2, 1)))
        _, O = np.linalg.eigh(self.gamma_primes_)  # batched s x s
        rotated = np.einsum("kis,kst->kit", self.snapshots_, O[:, :, ::-1])
        self.rotated_ = np.stack([flip_signs(R) for R in rotated])
        self.objective_ = np.asarray(result.history["objective"])
        values, vectors = top_eigenpairs(K, s, random_state=0)
        self.eigenvalues_, self.eig_components_ = values, vectors
        self.optimum_ = -0.5 * float(values.sum())
        # Gap floor: relative rounding level of the objective, so the log axis stays finite.
        self._gap_floor = 1e-15 * max(abs(self.optimum_), 1.0)
        self.gaps_ = np.maximum(self.objective_ - self.optimum_, self._gap_floor)

        self.snapshot_slider = widgets.IntSlider(
            value=len(self.iterations_) - 1, min=0, max=len(self.iterations_) - 1, step=1,
            description="snapshot", continuous_update=False, layout=widgets.Layout(width="360px"),
        )
        self.rotated_toggle = widgets.Checkbox(value=False, description="rotate (H = H'O)")
        self.controls = {"snapshot": self.snapshot_slider, "rotated": self.rotated_toggle}
        self._build_figure()
        self._finish_init()

    def __repr__(self) -> str:
        return (f"StiefelTrainingExplorer(n_samples={self.n_samples}, n_components={self.n_components}, "
                f"n_snapshots={len(self.iterations_)})")

    @property
    def iteration_(self) -> int:
        """Iteration number of the snapshot currently shown."""
        return int(self.iterations_[self.snapshot_slider.value])

    def _build_figure(self) -> None:
        s = self.n_components
        self.figure = self._new_figure((12.0, 3.6))
        ax_gamma, ax_gap, ax_comp = self.figure.subplots(1, 3, width_ratios=(1.0, 1.3, 1.6))
        vmax = float(np.abs(self.gamma_primes_).max())
        self.gamma_image = ax_gamma.imshow(self.gamma_primes_[-1], cmap="RdBu_r", vmin=-vmax, vmax=vmax,
                                           interpolation="nearest")
        ax_gamma.set_xticks(range(s))
        ax_gamma.set_yticks(range(s))
        self.figure.colorbar(self.gamma_image, ax=ax_gamma, shrink=0.8)

        steps = np.arange(len(self.gaps_))
        ax_gap.loglog(steps[1:], self.gaps_[1:], color="tab:blue", lw=1.2)
        self.gap_marker, = ax_gap.plot([], [], "o", color="crimson", ms=7, zorder=5)
        ax_gap.set_xlabel("iteration")
        ax_gap.set_title(r"objective gap $f(H'_k) - f^*$")

        colors = [f"C{j}" for j in range(s)]
        n = self.n_samples
        for j in range(s):
            ax_comp.plot(np.arange(n), self.eig_components_[:, j], ls="--", lw=0.8, color=colors[j], alpha=0.6)
        self.component_lines = [ax_comp.plot([], [], lw=1.2, color=colors[j], zorder=5, label=f"component {j + 1}")[0]
                                for j in range(s)]
        limit = 1.05 * max(np.abs(self.snapshots_).max(), np.abs(self.rotated_).max())
        ax_comp.set(xlim=(0, n - 1), ylim=(-limit, limit), xlabel="sample")
        self.ax_gamma, self.ax_gap, self.ax_comp = ax_gamma, ax_gap, ax_comp
        self._mark_dynamic(self.gamma_image, ax_gamma.title, self.gap_marker, *self.component_lines,
                           ax_comp.title)

    def _redraw(self) -> None:
        k = int(self.snapshot_slider.value)
        iteration = int(self.iterations_[k])
        gamma = self.gamma_primes_[k]
        self.gamma_image.set_data(gamma)
        off = np.linalg.norm(gamma - np.diag(np.diag(gamma))) / np.linalg.norm(gamma)
        self.ax_gamma.set_title(f"$\\Gamma'$ at iteration {iteration}\noff-diagonal share {off:.2f}")
        self.gap_marker.set_data([max(iteration, 1)], [self.gaps_[iteration]])
        rotated = bool(self.rotated_toggle.value)
        self.shown_components_ = self.rotated_[k] if rotated else self.snapshots_[k]
        for j, line in enumerate(self.component_lines):
            line.set_data(np.arange(self.n_samples), self.shown_components_[:, j])
        what = "rotated $H = H'O$" if rotated else "unrotated $H'$"
        self.ax_comp.set_title(f"{what} (dashed: eig)")
