"""Explorer for Chapter 8, *Tensor-based multi-view RKM classifiers*.

:class:`TensorCouplingExplorer` fits :class:`~rkmlearn.TensorMultiViewRKM` on a two-view toy set
whose views are the two coordinates of a point, for a ladder of ``rho`` (:eq:`eq-tensor-rho-system`)
and both decision rules (:eq:`eq-tensor-decision-add`, :eq:`eq-tensor-decision-mean`), and shows
the decision values over the plane and the coupled kernel matrix.
"""
from __future__ import annotations

import numpy as np

from .. import TensorMultiViewRKM
from sklearn.utils.validation import column_or_1d

from .._validation import check_scalar_range, check_views
from ..kernels import RBF
from ..models.tensor import coupled_kernel
from ._base import FrameExplorer, Ladder

__all__ = ["TensorCouplingExplorer", "xor_views"]

#: The ladder of the coupling: late fusion (0) to early fusion (1).
RHO_LADDER = (0.0, 0.25, 0.5, 0.75, 1.0)


def xor_views(n, *, noise=0.4, random_state=0):
    """A two-view XOR set: view ``v`` is coordinate ``v`` of a point, label ``sign(x_1 x_2)``.

    No view alone says anything about the label, and no sum of one function per view can
    separate the classes: only the interaction of the views (the tensor term) can.

    Returns
    -------
    Xs : list of two ndarrays of shape (n, 1)
    y : ndarray of shape (n,) with labels -1, 1
    """
    n = check_scalar_range(n, "n", low=4, low_inclusive=True, integer=True)
    rng = np.random.default_rng(random_state)
    centres = np.array([[1, 1], [-1, -1], [1, -1], [-1, 1]], dtype=float)
    labels = np.array([1, 1, -1, -1])
    which = np.arange(n) % 4
    X = centres[which] + noise * rng.normal(size=(n, 2))
    return [X[:, :1].copy(), X[:, 1:].copy()], labels[which]


class TensorCouplingExplorer(FrameExplorer):
    """Decision values and coupled kernel of rho-TMV-RKM along a ``rho`` ladder, both decision rules.

    Illustrates :eq:`eq-tensor-rho-system` and the decision rules :eq:`eq-tensor-decision-add` /
    :eq:`eq-tensor-decision-mean` (Chapter 8). Every state is a fit of
    :class:`~rkmlearn.TensorMultiViewRKM` (RBF kernel per view, bandwidth ``sigma``) on the two
    views of ``(X_train, y_train)``, done in the constructor. Left panel: the decision value over
    a grid of the plane (one axis per view), the training points, and the test accuracy. Right
    panel: the coupled kernel matrix ``K_rho`` of the training set, samples sorted by class (then by the sign of view 1).

    Parameters
    ----------
    Xs_train, Xs_test : list of two arrays of shape (n, 1)
        The two one-dimensional views (e.g. from :func:`xor_views`), the same samples in both.
    y_train, y_test : array-like of shape (n,)
        Two classes (e.g. -1 / 1 or 0 / 1): the plane shows ONE decision value.
    sigma : float, default=0.7
        RBF bandwidth of both views.
    lam : float, default=0.1
    rho : float on the ladder, default=0.0
        The state shown first.
    decision : {"add", "mean"}, default="add"

    Attributes
    ----------
    ladders : tuple of Ladder
        ``decision`` (buttons) and ``rho`` (0, 0.25, 0.5, 0.75, 1).
    accuracy_ : dict
        ``accuracy_[decision, rho]``: test accuracy.
    grid_values_ : dict
        ``grid_values_[decision, rho]``: decision values on the grid, shape (grid, grid).
    """

    figsize = (7.8, 3.5)
    grid = 60

    def __init__(self, Xs_train, y_train, Xs_test, y_test, *, sigma=0.7, lam=0.1, rho=0.0, decision="add"):
        self.Xs_train, self.Xs_test = check_views(Xs_train, "Xs_train"), check_views(Xs_test, "Xs_test")
        if len(self.Xs_train) != 2 or len(self.Xs_test) != 2 or any(X.shape[1] != 1 for X in self.Xs_train + self.Xs_test):
            raise ValueError("Xs_train and Xs_test must hold two one-dimensional views (arrays of shape (n, 1)).")
        self.y_train = column_or_1d(y_train)
        self.y_test = column_or_1d(y_test)
        for name, y, X in (("y_train", self.y_train, self.Xs_train[0]), ("y_test", self.y_test, self.Xs_test[0])):
            if y.shape[0] != X.shape[0]:
                raise ValueError(f"{name} has {y.shape[0]} labels but its views have {X.shape[0]} samples; "
                                 "pass one label per sample.")
        self.classes_ = np.unique(self.y_train)
        if self.classes_.size != 2 or not np.isin(self.y_test, self.classes_).all():
            raise ValueError(
                f"y_train must hold exactly two classes (the plane shows one decision value), and y_test only "
                f"those; got {self.classes_.size} class(es) {self.classes_.tolist()} in y_train and "
                f"{np.unique(self.y_test).tolist()} in y_test. Use TensorMultiViewRKM directly for more classes."
            )
        self.sigma = check_scalar_range(sigma, "sigma", low=0.0)
        self.lam = check_scalar_range(lam, "lam", low=0.0)
        self.ladders = (
            # labels in typeset maths (issue 18); the rule names are the ones Chapter 8 uses
            Ladder("decision", "decision rule", ("add", "mean"), ("add", "mean"), style="buttons"),
            Ladder("rho", r"$\varrho$", RHO_LADDER),
        )
        self.initial = {"decision": decision, "rho": rho}
        self.check_state()
        both = np.vstack([np.hstack(self.Xs_train), np.hstack(self.Xs_test)])
        low, high = both.min(axis=0) - 0.3, both.max(axis=0) + 0.3
        self._extent = (low[0], high[0], low[1], high[1])
        g0, g1 = np.linspace(low[0], high[0], self.grid), np.linspace(low[1], high[1], self.grid)
        G0, G1 = np.meshgrid(g0, g1)
        grid_views = [G0.reshape(-1, 1), G1.reshape(-1, 1)]
        # by class, then by the sign of view 1: the four XOR clusters appear as blocks
        self._order = np.lexsort((self.Xs_train[0][:, 0] > 0, self.y_train == self.classes_[1]))
        self.accuracy_, self.grid_values_, self.kernels_ = {}, {}, {}
        grams = [RBF(sigma=self.sigma)(X) for X in self.Xs_train]
        for decision_rule in ("add", "mean"):
            for r in RHO_LADDER:
                model = self.model(r, decision_rule).fit(self.Xs_train, self.y_train)
                self.accuracy_[decision_rule, r] = model.score(self.Xs_test, self.y_test)
                self.grid_values_[decision_rule, r] = model.decision_function(grid_views).reshape(G0.shape)
        for r in RHO_LADDER:
            K = coupled_kernel(grams, r)
            self.kernels_[r] = K[np.ix_(self._order, self._order)]

    def model(self, rho, decision):
        """The (unfitted) classifier of one state."""
        return TensorMultiViewRKM([RBF(sigma=self.sigma)] * 2, rho=rho, lam=self.lam, decision=decision)

    def state_data(self, decision, rho):
        """Test accuracy, grid decision values and the sorted coupled kernel of one state."""
        return self.accuracy_[decision, rho], self.grid_values_[decision, rho], self.kernels_[rho]

    def draw(self, figure, *, decision, rho):
        accuracy, values, K = self.state_data(decision, rho)
        ax_plane, ax_kernel = figure.subplots(1, 2, gridspec_kw={"width_ratios": (1.15, 1)})
        scale = max(1.0, float(np.abs(values).max()))
        plane = ax_plane.imshow(np.clip(values, -scale, scale), origin="lower", extent=self._extent, cmap="RdBu",
                                vmin=-scale, vmax=scale, aspect="auto")
        figure.colorbar(plane, ax=ax_plane, fraction=0.05, pad=0.02)
        X = np.hstack(self.Xs_train)
        for label, marker in zip(self.classes_, ("o", "^")):  # every training point, whatever the labels
            pts = X[self.y_train == label]
            ax_plane.scatter(pts[:, 0], pts[:, 1], s=14, marker=marker, facecolor="white", edgecolor="k", lw=0.7)
        ax_plane.set(xlabel="view 1: $x^{[1]}$", ylabel="view 2: $x^{[2]}$")
        ax_plane.set_title(f"ρ = {rho:g}, rule '{decision}': decision value\ntest accuracy {100 * accuracy:.0f} %")
        image = ax_kernel.imshow(K, cmap="viridis", vmin=0.0, vmax=2.0)
        figure.colorbar(image, ax=ax_kernel, fraction=0.05, pad=0.02)
        n_first = int(np.sum(self.y_train == self.classes_[0]))
        ax_kernel.axhline(n_first - 0.5, color="w", lw=0.8)
        ax_kernel.axvline(n_first - 0.5, color="w", lw=0.8)
        first, second = ("-1", "+1") if self.classes_.tolist() == [-1, 1] else map(str, self.classes_)
        ax_kernel.set(xticks=[], yticks=[], xlabel=f"training samples (class {first}, then {second})")
        ax_kernel.set_title("coupled kernel $K_\\varrho$\n(1-ρ)(K₁+K₂) + ρ K₁⊙K₂")
