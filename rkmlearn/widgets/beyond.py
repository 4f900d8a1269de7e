"""Explorers for Part VI, *Beyond the five papers*: spectral clustering, kernel CCA, Gen-RKM.

* :class:`SpectralClusteringExplorer` (Chapter 11): the bandwidth and the number of clusters of
  :class:`~rkmlearn.models.spectral_clustering.KernelSpectralClustering`; the clusters with the
  out-of-sample regions, the score variables, and the BLF of held-out points.
* :class:`KernelCCAExplorer` (Chapter 12): the regularisation of
  :class:`~rkmlearn.models.cca.KernelCCA`; the canonical variates of training and held-out
  samples, and their correlations (train rises to 1 as ``kappa -> 0``, held-out does not).
* :class:`GenerativeExplorer` (Chapter 13): the pre-image's ``top_k`` and the number of hidden
  units of :class:`~rkmlearn.models.generative.GenerativeRKM`; one generated digit per label.
"""
from __future__ import annotations

import numpy as np

from .._validation import check_array
from ..kernels import RBF
from ..models import GenerativeRKM, KernelCCA, KernelSpectralClustering
from ._base import FrameExplorer, Ladder, snap

__all__ = ["SpectralClusteringExplorer", "KernelCCAExplorer", "GenerativeExplorer"]

_COLOURS = np.array(["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"])

# On a phone the book cuts a frame at its white gutters (runs of columns with no ink below the
# title rows, at least 1 % of the width: book/_static/rkm_book.js, 5) and stacks the panels. So
# panels side by side get a gutter of GUTTER of the frame's width (constrained layout's wspace),
# several times that minimum, and a y label sits LABELPAD points from its tick labels (matplotlib's
# 4 pt left a gap of 1 % that cut the label off its panel as a sliver, which the book drops).
GUTTER = 0.05
LABELPAD = 1.0


def _gutter(figure, wspace=GUTTER):
    figure.get_layout_engine().set(wspace=wspace)


class SpectralClusteringExplorer(FrameExplorer):
    """Kernel spectral clustering of 2-D points for a ladder of bandwidths and cluster counts.

    Each state fits ``KernelSpectralClustering(k, kernel_params={"sigma": sigma})`` on ``X_train``
    (in the constructor). Left: the training points coloured by cluster over the out-of-sample
    assignment of a grid (the dual model's extension). Right: the score variables of the held-out
    points (``e_1`` against ``e_2``, or ``e_1`` alone for two clusters), which line up per cluster
    when the clustering is good, and their BLF (:func:`balanced_line_fit`).

    Parameters
    ----------
    X_train, X_valid : array-like of shape (n, 2), (m, 2)
    sigmas : tuple of float
    clusters : tuple of int
        Each ``>= 2``.

    Attributes
    ----------
    models_ : dict
        ``(sigma, k) -> fitted model``.
    blf_ : dict
        ``(sigma, k) -> BLF of X_valid``.
    """

    figsize = (7.8, 3.4)

    def __init__(self, X_train, X_valid, *, sigmas=(0.05, 0.1, 0.2, 0.5, 1.0), clusters=(2, 3)):
        self.X_train = check_array(X_train, "X_train")
        self.X_valid = check_array(X_valid, "X_valid")
        if self.X_train.shape[1] != 2 or self.X_valid.shape[1] != 2:
            raise ValueError("X_train and X_valid must have 2 columns (the explorer draws the plane).")
        self.models_, self.blf_ = {}, {}
        for sigma in sigmas:
            for k in clusters:
                model = KernelSpectralClustering(k, kernel_params={"sigma": sigma}).fit(self.X_train)
                self.models_[sigma, k] = model
                self.blf_[sigma, k] = model.score(self.X_valid)
        self.ladders = (Ladder("sigma", r"$\sigma$", tuple(sigmas)),
                        Ladder("clusters", r"$k$", tuple(clusters), style="buttons"))
        best = max(self.blf_, key=self.blf_.get)
        self.initial = {"sigma": best[0], "clusters": best[1]}
        self.check_state()

    def state_data(self, sigma, clusters):
        """Training labels, held-out scores and labels, and the BLF of a state."""
        model = self.models_[sigma, clusters]
        return {"labels": model.labels_, "valid_scores": model.transform(self.X_valid),
                "valid_labels": model.predict(self.X_valid), "blf": self.blf_[sigma, clusters]}

    def draw(self, figure, *, sigma, clusters):
        data = self.state_data(sigma, clusters)
        model = self.models_[sigma, clusters]
        _gutter(figure)
        left, right = figure.subplots(1, 2)
        lo, hi = self.X_train.min(axis=0) - 0.3, self.X_train.max(axis=0) + 0.3
        gx, gy = np.meshgrid(np.linspace(lo[0], hi[0], 120), np.linspace(lo[1], hi[1], 120))
        regions = model.predict(np.column_stack([gx.ravel(), gy.ravel()])).reshape(gx.shape)
        left.contourf(gx, gy, regions, levels=np.arange(clusters + 1) - 0.5,
                      colors=list(_COLOURS[:clusters]), alpha=0.18)
        left.scatter(*snap(self.X_train).T, c=_COLOURS[data["labels"]], s=9)
        left.set_title(f"clusters and out-of-sample regions, σ = {sigma:g}", fontsize=10)
        left.set_xticks([]), left.set_yticks([])
        e = snap(data["valid_scores"])
        colours = _COLOURS[data["valid_labels"]]
        if clusters == 2:
            right.scatter(e[:, 0], np.arange(len(e)), c=colours, s=9)
            right.set_xlabel("$e_1$ (held-out points)")
            right.set_yticks([])
        else:
            right.scatter(e[:, 0], e[:, 1], c=colours, s=9)
            right.set_xlabel("$e_1$"), right.set_ylabel("$e_2$", labelpad=LABELPAD)
        right.axvline(0, color="0.6", lw=0.8)
        right.set_title(f"score variables, BLF = {data['blf']:.2f}", fontsize=10)


class KernelCCAExplorer(FrameExplorer):
    """Canonical variates of regularised kernel CCA for a ladder of ``kappa`` (Chapter 12).

    Each ``kappa`` fits ``KernelCCA(n_components, kernels=kernels, regularization=kappa)`` on the
    training views. Left: the first pair of variates of the training samples (``e`` against
    ``r``); right: of held-out samples. The titles give the correlations; as ``kappa`` shrinks the
    training correlation tends to 1 for a rich kernel, whatever the data, while the held-out one
    falls: the regularisation is what makes kernel CCA mean something.

    Attributes
    ----------
    models_ : dict
        ``kappa -> fitted KernelCCA``.
    correlations_ : dict
        ``kappa -> (train, held-out)`` correlation of the first pair of variates.
    valid_scores_ : dict
        ``kappa -> (e, r)`` variates of the held-out samples.
    """

    figsize = (7.8, 3.3)

    def __init__(self, X_train, Y_train, X_valid, Y_valid, *, kernels, kappas=(1e-4, 1e-2, 1.0, 10.0, 100.0)):
        self.models_, self.correlations_, self.valid_scores_ = {}, {}, {}
        for kappa in kappas:
            model = KernelCCA(1, kernels=kernels, regularization=kappa).fit(X_train, Y_train)
            e_valid, r_valid = model.transform(X_valid, Y_valid)
            self.models_[kappa] = model
            self.correlations_[kappa] = (
                float(np.corrcoef(model.x_scores_[:, 0], model.y_scores_[:, 0])[0, 1]),
                float(np.corrcoef(e_valid[:, 0], r_valid[:, 0])[0, 1]),
            )
            self.valid_scores_[kappa] = (e_valid, r_valid)
        self.ladders = (Ladder("kappa", r"$\kappa$", tuple(kappas), labels=tuple(f"{k:g}" for k in kappas)),)
        best = max(self.correlations_, key=lambda k: self.correlations_[k][1])
        self.initial = {"kappa": best}
        self.check_state()

    def draw(self, figure, *, kappa):
        model = self.models_[kappa]
        train, valid = self.correlations_[kappa]
        _gutter(figure)
        for ax, (e, r), name, corr in zip(figure.subplots(1, 2), [(model.x_scores_, model.y_scores_), self.valid_scores_[kappa]],
                                          ("training", "held-out"), (train, valid)):
            e, r = snap(e[:, 0] / np.std(e[:, 0])), snap(r[:, 0] / np.std(r[:, 0]))
            ax.scatter(e, r, s=7, color=_COLOURS[0] if name == "training" else _COLOURS[1])
            ax.set_xlabel("$e$ (view 1, standardised)"), ax.set_ylabel("$r$ (view 2)", labelpad=LABELPAD)
            ax.set_title(f"{name}: corr = {corr:.2f}", fontsize=10)


class GenerativeExplorer(FrameExplorer):
    """Digits generated by a Gen-RKM conditioned on their label, for ladders of ``s`` and ``top_k`` (Chapter 13).

    Views: the images and the one-hot labels (linear kernel). Each state fits
    ``GenerativeRKM(s, kernels=[RBF(sigma), None], preimage_top_k=top_k)`` and generates one image
    per label with :meth:`~rkmlearn.models.generative.GenerativeRKM.sample_given` (``random_state``
    fixed), and the accuracy with which ``judge`` (any classifier trained on other real digits)
    labels them.

    Attributes
    ----------
    images_ : dict
        ``(s, top_k) -> (n_per_label * 10, n_pixels)`` generated images, label 0 first.
    accuracy_ : dict
        ``(s, top_k) -> fraction that judge labels as generated``.
    """

    figsize = (7.8, 3.0)

    def __init__(self, images, labels, judge, *, sigma, shape=(8, 8), components=(3, 5, 9), top_ks=(1, 5, 50),
                 n_per_label=3, random_state=0):
        images = check_array(images, "images")
        labels = np.asarray(labels)
        self.shape, self.n_per_label = tuple(shape), n_per_label
        one_hot = np.eye(10)[labels]
        wanted = np.repeat(np.arange(10), n_per_label)
        self.images_, self.accuracy_ = {}, {}
        for s in components:
            for top_k in top_ks:
                model = GenerativeRKM(s, kernels=[RBF(sigma=sigma), None], preimage_top_k=top_k,
                                      random_state=random_state).fit([images, one_hot])
                generated = model.sample_given([None, np.eye(10)[np.arange(10)]], 0, n_per_label,
                                               random_state=random_state)
                self.images_[s, top_k] = generated
                self.accuracy_[s, top_k] = float((judge.predict(generated) == wanted).mean())
        self.ladders = (Ladder("components", "$s$", tuple(components), style="buttons"),
                        Ladder("top_k", "top $k$", tuple(top_ks), style="buttons"))
        self.initial = {"components": components[-1], "top_k": top_ks[1] if len(top_ks) > 1 else top_ks[0]}
        self.check_state()

    def draw(self, figure, *, components, top_k):
        # two panels, labels 0-4 and 5-9, with a gutter between them (a phone stacks them) and
        # the digits of a panel close enough that no gutter opens inside it; the title spans
        # only the left panel, so that a cut leaves it whole
        images = snap(self.images_[components, top_k])
        figure.get_layout_engine().set(w_pad=1 / 72, wspace=0.0)
        grid = figure.add_gridspec(self.n_per_label, 11, width_ratios=(1,) * 5 + (0.5,) + (1,) * 5)
        for label in range(10):
            column = label if label < 5 else label + 1
            for j in range(self.n_per_label):
                ax = figure.add_subplot(grid[j, column])
                ax.imshow(images[label * self.n_per_label + j].reshape(self.shape), cmap="gray_r",
                          vmin=0, vmax=max(1e-12, float(images.max())))
                ax.set_xticks([]), ax.set_yticks([])
                if j == 0:
                    ax.set_title(str(label), fontsize=10)
        figure.suptitle(f"generated given the label: judged right {100 * self.accuracy_[components, top_k]:.0f} %",
                        x=0.01, ha="left", fontsize=10)
