"""Explorer for Part IV, Chapter 9, *Deep RKM classifiers*.

:class:`DeepLatentExplorer` shows the last level's two hidden features of a deep RKM classifier
(:class:`rkmlearn.DeepRKMClassifier`) as training goes: number of levels x iteration.
"""
from __future__ import annotations

import numpy as np

from .. import DeepRKMClassifier
from .._validation import check_array, check_scalar_range
from ._base import FrameExplorer, Ladder
from .stiefel_training import round_iterations

__all__ = ["DeepLatentExplorer"]


class DeepLatentExplorer(FrameExplorer):
    r"""The last level's 2-D latent space of a deep RKM classifier, by depth and iteration.

    Illustrates the training :eq:`eq-deep-pgd` of :eq:`eq-deep-lssvm` (Part IV, Chapter 9,
    *Deep RKM classifiers*). For each depth ``L`` on the ladder the model has levels of
    ``s_j = inner`` components and a last level of 2 (``(2,)``, ``(inner, 2)``,
    ``(inner, inner, 2)``), an RBF first level and linear deeper levels. The iterate after ``k``
    projected-gradient steps is the model fitted with ``max_iter=k`` (the optimiser is
    deterministic, so these are the iterates of one run). Frame: (left) the training points'
    hidden features ``H^(L)`` coloured by class; (right) the objective of the run, the current
    iteration marked, and the training accuracy of the classifier on ``H^(L)`` in the title.

    Parameters
    ----------
    X : array-like of shape (n, d)
    y : array-like of shape (n,)
    levels : tuple of int, default=(1, 2, 3)
        The depth ladder.
    inner : int, default=4
        Components of every level but the last.
    max_iter : int, default=100
        Final iteration (the ladder is ``0, 1, 3, 10, 30, ..., max_iter``).
    sigma : float, default=3.0
        Bandwidth of the first level's RBF kernel.
    random_state : int, default=0

    Attributes
    ----------
    models_ : dict
        ``(L, k)`` -> the fitted :class:`~rkmlearn.DeepRKMClassifier`.
    iterations_ : ndarray of int
    """

    figsize = (7.8, 3.4)

    def __init__(self, X, y, *, levels=(1, 2, 3), inner=4, max_iter=100, sigma=3.0, random_state=0):
        X = check_array(X, "X")
        y = np.asarray(y)
        max_iter = check_scalar_range(max_iter, "max_iter", low=1, low_inclusive=True, integer=True)
        self.X, self.y = X, y
        self.classes_ = np.unique(y)
        self.iterations_ = round_iterations(max_iter)
        self.models_ = {}
        for L in levels:
            s = (inner,) * (L - 1) + (2,)
            for k in self.iterations_:
                self.models_[L, int(k)] = DeepRKMClassifier(
                    s, kernels=["rbf"] + ["linear"] * (L - 1), kernel_params=[{"sigma": sigma}] + [None] * (L - 1),
                    smoother_sigma=0.5, max_iter=int(k), random_state=random_state).fit(X, y)
        self.ladders = (
            Ladder("levels", "levels", tuple(levels), tuple(f"{L} level" + ("s" if L > 1 else "") for L in levels),
                   style="buttons"),
            Ladder("iteration", "iteration", tuple(int(k) for k in self.iterations_)),
        )
        self.initial = {"levels": levels[-1], "iteration": int(self.iterations_[-1])}
        self.check_state()

    def state_data(self, levels, iteration):
        """``(H_L, training accuracy, objective history of the run)`` of one state."""
        model = self.models_[levels, iteration]
        H = model.H_[-1]
        scores = H @ model.coef_ + model.intercept_
        pred = self.classes_[np.argmax(scores, axis=1)] if scores.shape[1] > 1 else self.classes_[
            (scores[:, 0] > 0).astype(int)]
        final = self.models_[levels, int(self.iterations_[-1])]
        return H, float(np.mean(pred == self.y)), np.asarray(final.history_["objective"])

    def draw(self, figure, *, levels, iteration):
        H, accuracy, objective = self.state_data(levels, iteration)
        ax_h, ax_f = figure.subplots(1, 2, width_ratios=(1.0, 1.1))
        for j, c in enumerate(self.classes_):
            mask = self.y == c
            ax_h.scatter(H[mask, 0], H[mask, 1], s=9, color=f"C{j}", label=str(c))
        limit = 1.05 * max(float(np.abs(m.H_[-1]).max()) for m in self.models_.values())
        ax_h.set(xlim=(-limit, limit), ylim=(-limit, limit), xlabel="$h_1$", ylabel="$h_2$")
        ax_h.set_title(f"{levels} level{'s' if levels > 1 else ''}, iteration {iteration}: "
                       f"train acc. {100 * accuracy:.0f} %", fontsize=10)
        ax_h.legend(fontsize=9, loc="upper right", ncols=2, handletextpad=0.1, columnspacing=0.5)
        steps = np.arange(len(objective))
        ax_f.plot(steps, objective, color="tab:blue", lw=1.2)
        ax_f.plot([iteration], [objective[iteration]], "o", color="crimson", ms=7)
        ax_f.set(xlabel="iteration k", ylabel="objective J")
        ax_f.set_title("objective of the run (monotone)", fontsize=10)
