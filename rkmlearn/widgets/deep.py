"""Explorer for Part IV, Chapter 9, *Deep RKM classifiers*.

:class:`DeepLatentExplorer` shows what the last level of a deep RKM classifier
(:class:`rkmlearn.DeepRKMClassifier`) hands to the classifier: number of levels x ``s_2`` ladder,
the test accuracy and the 2-D embedding of the last level's hidden features.
"""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .. import DeepRKMClassifier
from .._validation import check_array, check_n_features, check_scalar_range
from ._base import FrameExplorer, Ladder

__all__ = ["DeepLatentExplorer"]


def _check_ladder(values, name, low):
    values = tuple(values)
    if not values or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low for v in values) \
            or len(set(values)) != len(values):
        raise ValueError(f"{name} must be distinct integers >= {low}, e.g. (2, 3); got {values!r}.")
    return tuple(int(v) for v in values)


class DeepLatentExplorer(FrameExplorer):
    r"""Test accuracy and the last level's 2-D embedding of deep RKM classifiers, by depth and ``s_2``.

    Illustrates the deep KPCA levels of :eq:`eq-deep-lssvm` and the Figure 3 analogue of Chapter 9
    (Part IV, *Deep RKM classifiers*). Each state ``(L, s_2)`` is a
    :class:`~rkmlearn.DeepRKMClassifier` with levels ``(s1, s_2)`` (``L = 2``) or
    ``(s1, s_2, s_2)`` (``L = 3``): an RBF first level (bandwidth ``sigma``) and RBF deeper levels
    (bandwidth ``level_sigma``, on the rows of ``H_(j-1)``), trained as the paper's "DKPCA
    initialisation, no fine-tuning": the levels by eigendecomposition, then the LS-SVM level.
    That training is deterministic to rounding level (eigenvectors of separated eigenvalues and a
    convex classifier problem), so the frames are the same on every machine; an end-to-end run's
    non-convex iterations amplify rounding, and are drawn as static curves in the chapter. (A
    *linear* deeper level would not do: on orthonormal ``H`` its centred kernel has all eigenvalues
    equal, and which ``s_2`` of them a solver returns is rounding.)

    Frame: (left) the training points' last-level hidden features, the first two (the leading
    eigenvectors; one, against the class, when ``s_2 = 1``), coloured by class; (right) test
    accuracy against ``s_2`` for every depth, the current state marked.

    Parameters
    ----------
    X, y : array-like of shape (n, d), (n,)
        Training data.
    X_test, y_test : array-like of shape (m, d), (m,)
        Test data (new points go through the kernel smoother :eq:`eq-deep-smoother`).
    levels : tuple of int >= 2, default=(2, 3)
        The depth ladder.
    s2 : tuple of int >= 1, default=(1, 2, 3, 5, 8, 12)
        The ``s_2`` ladder (components of levels 2 and deeper).
    s1 : int, default=20
        Components of level 1.
    sigma, level_sigma, smoother_sigma : float, default=3.0, 0.2, 2.0
        Bandwidths of the first level, of the deeper levels and of the kernel smoother.
    random_state : int, default=0

    Attributes
    ----------
    models_ : dict
        ``(L, s_2)`` -> the fitted :class:`~rkmlearn.DeepRKMClassifier`.
    accuracy_ : dict
        ``(L, s_2)`` -> test accuracy.
    """

    figsize = (7.8, 3.5)

    def __init__(self, X, y, X_test, y_test, *, levels=(2, 3), s2=(1, 2, 3, 5, 8, 12), s1=20, sigma=3.0,
                 level_sigma=0.2, smoother_sigma=2.0, random_state=0):
        X, X_test = check_array(X, "X"), check_array(X_test, "X_test")
        check_n_features(X_test, X.shape[1], "X_test")
        y, y_test = np.asarray(y), np.asarray(y_test)
        if y.shape != (X.shape[0],) or y_test.shape != (X_test.shape[0],):
            raise ValueError("y and y_test must be 1-D with one label per row of X and X_test.")
        levels, s2 = _check_ladder(levels, "levels", 2), _check_ladder(s2, "s2", 1)
        s1 = check_scalar_range(s1, "s1", low=1, low_inclusive=True, integer=True)
        # checked here, by this explorer's names: the classifier would only see kernel_params' "sigma"
        sigma, level_sigma, smoother_sigma = (check_scalar_range(value, name, low=0.0) for value, name in (
            (sigma, "sigma"), (level_sigma, "level_sigma"), (smoother_sigma, "smoother_sigma")))
        self.X, self.y, self.X_test, self.y_test = X, y, X_test, y_test
        self.classes_ = np.unique(y)
        self.models_, self.accuracy_ = {}, {}
        for L in levels:
            for s in s2:
                with warnings.catch_warnings():  # the classifier's fixed 100-step budget is the chapter's
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    model = DeepRKMClassifier(
                        (s1,) + (s,) * (L - 1), kernels="rbf",
                        kernel_params=[{"sigma": sigma}] + [{"sigma": level_sigma}] * (L - 1),
                        init="dkpca-greedy", fine_tune=False, smoother_sigma=smoother_sigma,
                        random_state=random_state,
                    ).fit(X, y)
                self.models_[L, s] = model
                self.accuracy_[L, s] = float(model.score(X_test, y_test))
        self.ladders = (
            Ladder("levels", "levels", levels, tuple(f"{L} levels" for L in levels), style="buttons"),
            Ladder("s2", r"$s_2$", s2),
        )
        self.initial = {"levels": levels[0], "s2": s2[len(s2) // 2]}
        self.check_state()

    def state_data(self, levels, s2):
        """``(embedding, test accuracy)`` of one state: the last level's first (up to) two hidden features."""
        H = self.models_[levels, s2].H_[-1]
        return H[:, : min(2, H.shape[1])], self.accuracy_[levels, s2]

    def draw(self, figure, *, levels, s2):
        E, accuracy = self.state_data(levels, s2)
        ax_h, ax_a = figure.subplots(1, 2, width_ratios=(1.0, 1.0))
        limit = 1.05 * max(float(np.abs(m.H_[-1][:, :2]).max()) for m in self.models_.values())
        for j, c in enumerate(self.classes_):
            mask = self.y == c
            # plot, not scatter: line data is snapped to 24 bits before drawing (machine-independent)
            y_values = E[mask, 1] if E.shape[1] > 1 else np.full(mask.sum(), float(j))
            ax_h.plot(E[mask, 0], y_values, "o", ms=2.5, color=f"C{j % 10}", label=str(c))
        if E.shape[1] > 1:
            ax_h.set(xlim=(-limit, limit), ylim=(-limit, limit), xlabel="$h_1$", ylabel="$h_2$")
            ax_h.legend(fontsize=8, ncols=5, loc="upper center", handletextpad=0.0, columnspacing=0.5,
                        markerscale=1.6, borderpad=0.3)
        else:
            ax_h.set(xlim=(-limit, limit), ylim=(-0.8, len(self.classes_) - 0.2), xlabel="$h_1$", ylabel="class")
            ax_h.set_yticks(range(len(self.classes_)), [str(c) for c in self.classes_])
        ax_h.set_title(f"last level of {levels} levels, $s_2$ = {s2}", fontsize=10)
        s2_values = np.array(self.ladders[1].values, dtype=float)
        for L in self.ladders[0].values:
            accuracies = [100 * self.accuracy_[L, s] for s in self.ladders[1].values]
            ax_a.plot(s2_values, accuracies, "o-", ms=4, lw=1.2, label=f"{L} levels")
        ax_a.plot([float(s2)], [100 * accuracy], "o", ms=11, mfc="none", mec="crimson", mew=1.8)
        ax_a.set(xlabel="$s_2$", ylabel="test accuracy (%)", ylim=(0, 100))
        ax_a.set_title(f"test accuracy {100 * accuracy:.0f} %", fontsize=10)
        ax_a.legend(fontsize=9, loc="lower right")
