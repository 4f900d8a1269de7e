"""Explorer for Part I, Chapter 4, *Stiefel training and rotation*.

:class:`StiefelTrainingExplorer` replays one Cayley-Adam run on the dual Stiefel problem (the
paper's Algorithm 4): one frame per kept iterate, unrotated (``H'``) or rotated to the eigenbasis
(``H = H' O``), with ``Gamma' = H'^T K H'`` and the objective gap of that iterate.
"""
from __future__ import annotations

import numpy as np

from .. import MultiViewKPCA
from ..solvers import objectives, optimisers, subspace
from .._validation import check_n_components, check_random_state, check_scalar_range, check_views
from ..kernels import GramCenterer, Linear
from ._base import FrameExplorer, Ladder
from .plotting import annotate_cells

__all__ = ["StiefelTrainingExplorer", "round_iterations"]

#: Relative objective gaps ``(f - f*) / |f*|`` are drawn down to this level. Below it the gap is
#: the difference of two numbers equal to 7 or more digits, whose last digits depend on the
#: machine's rounding; the curve stays at the floor ("converged") instead of drawing that noise.
GAP_FLOOR = 1e-7


def round_iterations(last):
    """The iteration numbers ``0, 1, 3, 10, 30, 100, ...`` below ``last``, then ``last``.

    Early iterations change the iterate most, so a ladder that is geometric in the iteration
    number shows the run evenly; round numbers read well on a slider.

    Parameters
    ----------
    last : int
        The final iteration number (>= 0).

    Returns
    -------
    ndarray of int
        Sorted, distinct, starting with 0 and ending with ``last``.
    """
    last = check_scalar_range(last, "last", low=0, low_inclusive=True, integer=True)
    ladder = [0] + [m * 10**k for k in range(12) for m in (1, 3)]
    return np.array(sorted({k for k in ladder if k < last} | {last}))


class StiefelTrainingExplorer(FrameExplorer):
    r"""Replay of Stiefel training (Algorithm 4) and of the rotation that ends it.

    Illustrates :eq:`eq-mv-rotation` (Part I, Chapter 4, *Stiefel training and rotation*).
    For views ``X_v`` with linear kernels, ``K = sum_v M_c X_v X_v^T M_c`` (:eq:`eq-mv-dual-eig`).
    Cayley-Adam (:func:`rkmlearn.solvers.optimisers.cayley_adam`, the update :eq:`eq-cayley-update`)
    maximises ``tr(H^T K H)`` over the Stiefel manifold (:eq:`eq-stiefel-trace`), started from
    the point :class:`rkmlearn.MultiViewKPCA` uses with ``solver="stiefel"`` and the same
    ``random_state``, so the run is the model's. Its iterates ``H'_k`` approach an orthonormal
    basis of the top-``s`` eigenspace of ``K`` in an arbitrary basis, so
    ``Gamma'_k = H'^T_k K H'_k`` keeps off-diagonal mass; rotating by the eigenvectors of
    ``Gamma'_k`` (:func:`rkmlearn.solvers.subspace.rotate_to_eigenbasis`) diagonalises it, and at
    convergence the rotated basis is the eigendecomposition's (``MultiViewKPCA`` with
    ``solver="eig"``, Algorithm 2).

    The constructor runs the optimiser once and keeps the iterates of
    :func:`round_iterations` (``0, 1, 3, 10, ...`` and the final one, through the optimiser's
    ``callback``). Controls: the iteration, and rotated or not. Frame: (top left) ``Gamma'_k``
    with its entries; (top right) the relative objective gap ``(f(H'_k) - f^*) / |f^*|`` against
    the iteration, log-log, with the current iteration marked, where
    ``f^* = -1/2 sum_{j<=s} lambda_j``;
    (bottom) the first four hidden features of iterate ``k``, rotated or not, one panel each over
    the first ``component_window`` samples, with the eigendecomposition's components dashed.

    Parameters
    ----------
    views : list of array-like, each of shape (n, d_v)
        The views (as for :meth:`rkmlearn.MultiViewKPCA.fit`); keep ``n`` at a few hundred.
    n_components : int, default=4
        ``s``, the number of hidden features (``1 <= s <= n - 1``).
    learning_rate : float, default=0.3
        Cayley-Adam's step bound (``MultiViewKPCA``'s default).
    max_iter : int, default=10000
        Iteration budget of the optimiser.
    tol : float, default=1e-10
        Stopping rule of the optimiser.
    random_state : int, default=0
        Seeds the starting point, as ``MultiViewKPCA(random_state=...)`` does.

    Attributes
    ----------
    ladders : tuple of Ladder
        ``iteration`` (the kept iteration numbers) and ``rotated`` (False, True).
    K_ : ndarray of shape (n, n)
        The summed centred linear kernel matrix.
    iterations_ : ndarray of int, shape (n_kept,)
        Iteration numbers of the kept iterates (the last one is the final iterate).
    snapshots_ : ndarray of shape (n_kept, n, s)
        The iterates ``H'_k``.
    gamma_primes_ : ndarray of shape (n_kept, s, s)
        ``Gamma'_k = H'^T_k K H'_k`` (symmetrised).
    rotated_ : ndarray of shape (n_kept, n, s)
        ``H'_k O_k`` from :func:`rkmlearn.solvers.subspace.rotate_to_eigenbasis`.
    objective_ : ndarray of shape (n_iter + 1,)
        The optimiser's objective history ``-1/2 tr(H'^T K H')``.
    optimum_ : float
        ``f^*``, from the eigendecomposition.
    reference_ : MultiViewKPCA
        The eigendecomposition fit (``H_``, ``eigenvalues_``) the dashed curves show.
    result_ : rkmlearn.solvers.iteration.OptimiserResult
    """

    figsize = (7.8, 6.0)
    #: the first this many samples are drawn: more oscillations would fill the panel
    component_window = 120

    def __init__(self, views, n_components=4, *, learning_rate=0.3, max_iter=10000, tol=1e-10,
                 random_state=0):
        views = check_views(views, "views")
        n = views[0].shape[0]
        s = check_n_components(n_components, n - 1, what="n_samples - 1")
        max_iter = check_scalar_range(max_iter, "max_iter", low=1, low_inclusive=True, integer=True)
        self.n_samples, self.n_components = n, s
        self.K_ = np.sum([GramCenterer().fit_transform(Linear()(X)) for X in views], axis=0)
        self.reference_ = MultiViewKPCA(s, random_state=random_state).fit(views)
        self.optimum_ = -0.5 * float(self.reference_.eigenvalues_.sum())

        kept = {}
        wanted = set(round_iterations(max_iter).tolist())

        def keep(k, X):
            if k in wanted:
                kept[k] = X.copy()

        fun, grad = objectives.trace_objective(self.K_)
        start = check_random_state(random_state).standard_normal((n, s))  # MultiViewKPCA's start
        result = optimisers.cayley_adam(fun, grad, start, learning_rate=learning_rate,
                                     max_iter=max_iter, tol=tol, callback=keep)
        kept[result.n_iter] = result.X.copy()  # the final iterate, whatever its number
        self.result_ = result
        self.iterations_ = np.array([k for k in round_iterations(result.n_iter) if k in kept])
        self.snapshots_ = np.stack([kept[k] for k in self.iterations_])
        gammas = np.einsum("kis,ij,kjt->kst", self.snapshots_, self.K_, self.snapshots_)
        self.gamma_primes_ = 0.5 * (gammas + np.transpose(gammas, (0, 2, 1)))
        self.rotated_ = np.stack([subspace.rotate_to_eigenbasis(H, self.K_)[0]
                                  for H in self.snapshots_])
        self.objective_ = np.asarray(result.history["objective"])
        self.ladders = (
            Ladder("iteration", "iteration", tuple(int(k) for k in self.iterations_),
                   tuple(f"{k}" for k in self.iterations_[:-1]) + (f"{self.iterations_[-1]} (final)",)),
            Ladder("rotated", "basis", (False, True),
                   (r"$H'_k$ (as trained)", r"$H'_k O_k$ (rotated)"), style="buttons"),
        )
        self.initial = {"iteration": int(self.iterations_[-1]), "rotated": False}

    def gaps(self) -> np.ndarray:
        """Relative objective gap ``(f(H'_k) - f^*) / |f^*|`` per iteration, floored at ``GAP_FLOOR``."""
        return np.maximum((self.objective_ - self.optimum_) / abs(self.optimum_), GAP_FLOOR)

    def components(self, iteration, rotated) -> np.ndarray:
        """The hidden features a frame shows: ``H'_k`` or ``H'_k O_k`` of a kept iteration."""
        k = int(np.flatnonzero(self.iterations_ == iteration)[0])
        return self.rotated_[k] if rotated else self.snapshots_[k]

    def draw(self, figure, *, iteration, rotated):
        k = int(np.flatnonzero(self.iterations_ == iteration)[0])
        top, bottom = figure.subfigures(2, 1, height_ratios=(1.0, 1.0))
        ax_gamma, ax_gap = top.subplots(1, 2, width_ratios=(1.0, 1.6))
        gamma = self.rotated_[k].T @ self.K_ @ self.rotated_[k] if rotated else self.gamma_primes_[k]
        vmax = float(np.abs(self.gamma_primes_).max())
        image = ax_gamma.imshow(gamma, cmap="RdBu_r", vmin=-vmax, vmax=vmax)
        annotate_cells(ax_gamma, image, gamma, "{:.0f}" if vmax >= 100 else "{:.2g}", fontsize=9)
        top.colorbar(image, ax=ax_gamma, shrink=0.85)
        ticks = range(self.n_components)
        ax_gamma.set(xticks=ticks, yticks=ticks, xticklabels=[j + 1 for j in ticks],
                     yticklabels=[j + 1 for j in ticks])
        name = "$O^\\top\\Gamma' O$" if rotated else "$\\Gamma' = H'^\\top K H'$"
        ax_gamma.set_title(f"{name}, iteration {iteration}")
        gaps = self.gaps()
        steps = np.arange(1, len(gaps))
        ax_gap.loglog(steps, gaps[1:], color="tab:blue", lw=1.2)
        ax_gap.loglog([max(iteration, 1)], [gaps[iteration]], "o", color="crimson", ms=7)
        ax_gap.set_xlabel("iteration")
        ax_gap.set_title(f"relative objective gap (floor {GAP_FLOOR:.0e})")
        shown = self.rotated_[k] if rotated else self.snapshots_[k]
        reference = self.reference_.H_
        window = slice(0, min(self.n_samples, self.component_window))
        limit = 1.05 * max(np.abs(self.snapshots_).max(), np.abs(self.rotated_).max())
        # one small panel per component (at most four): overlaid oscillating curves become bands
        n_shown = min(self.n_components, 4)
        axes = np.atleast_1d(bottom.subplots(2, 2, sharex=True, sharey=True) if n_shown > 2
                             else bottom.subplots(1, n_shown, sharex=True, sharey=True)).ravel()
        for j, ax in enumerate(axes):
            if j >= n_shown:
                ax.set_visible(False)
                continue
            ax.plot(reference[window, j], ls="--", lw=1.0, color="0.45")
            ax.plot(shown[window, j], lw=1.3, color=f"C{j}")
            ax.set(xlim=(0, window.stop - 1), ylim=(-limit, limit))
            ax.set_title(f"component {j + 1}", fontsize=9, pad=2)
        for ax in axes[-2:]:
            ax.set_xlabel("sample")
        what = "rotated $H = H'O$" if rotated else "as trained, $H'$"
        # two lines: on a phone the book shows the title as a strip of its own, which must fit the column
        bottom.suptitle(f"hidden features at iteration {iteration}: {what}\n(dashed: eigenvectors)",
                        fontsize=10)
