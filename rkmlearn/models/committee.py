"""Committee of RKM classifiers (Part III's late-fusion baseline "Comm" and large-N committee).

Members are :class:`~rkmlearn.TensorMultiViewRKM` models, one per view (``members="views"``, the
paper's Comm baseline) or one per random subset of the samples (an integer, the paper's large-N
committee, Section 4.6); they are fitted as independent :mod:`joblib` jobs. The outputs are
combined with the weights of the committee LS-SVM: ``beta = C^{-1} 1 / (1^T C^{-1} 1)`` with
``C_{uv}`` the mean product of the training errors of members ``u`` and ``v`` (over the samples
and the outputs of the code), the minimum-variance combination of unbiased members (Chapter 8).
"""

from __future__ import annotations

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted

from .._validation import check_array, check_random_state, check_scalar_range, check_views
from ..solvers.linear import SymmetricSolver
from .coding import decode_outputs, encode_labels
from .tensor import TensorMultiViewRKM

__all__ = ["CommitteeRKM"]


def _fit_member(estimator, Xs, y):
    return clone(estimator).fit(Xs, y)


class CommitteeRKM(ClassifierMixin, BaseEstimator):
    """Weighted committee of RKM classifiers, weights from the training-error covariance.

    The late-fusion baseline of Chapter 8 (``members="views"``: one RKM classifier
    :eq:`eq-tensor-rkm-system` per view) and the committee approach to large ``N``
    (``members=M``: ``M`` rho-TMV-RKMs :eq:`eq-tensor-rho-system` on random subsets of
    ``subset_size`` samples, all views).

    Parameters
    ----------
    base : TensorMultiViewRKM or None, default=None
        The member model (cloned); ``None``: ``TensorMultiViewRKM("rbf")``. With
        ``members="views"`` its ``kernels`` may be a list with one kernel per view.
    members : "views" or int, default="views"
    subset_size : int, default=1000
        Samples per member when ``members`` is an integer (capped at ``N``).
    random_state : int, RandomState, Generator or None, default=None
        Seeds the subsets.
    n_jobs : int or None, default=None
        joblib ``n_jobs`` for the members.
    weights : "covariance" or array-like of shape (n_members,), default="covariance"
        ``"covariance"``: ``beta`` from the training-error covariance (above). An array: these
        weights (non-negative, scaled to sum 1), e.g. tuned by
        :class:`~rkmlearn.models.SimulatedAnnealingSearch`: the paper's "committee approach +
        weights tuned" (Chapter 8).

    Attributes
    ----------
    members_ : list of TensorMultiViewRKM
    weights_ : ndarray of shape (n_members,)
        ``beta``, summing to 1.
    classes_, codebook_ : as in :class:`~rkmlearn.TensorMultiViewRKM`
    """

    def __init__(self, base=None, *, members="views", subset_size=1000, random_state=None, n_jobs=None,
                 weights="covariance"):
        self.base = base
        self.members = members
        self.subset_size = subset_size
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.weights = weights

    def _given_weights(self, n_members):
        """The fixed weights of ``weights=array``, scaled to sum 1; None for ``"covariance"``."""
        if isinstance(self.weights, str):
            if self.weights != "covariance":
                raise ValueError(f"weights must be 'covariance' or an array of {n_members} non-negative numbers; "
                                 f"got {self.weights!r}.")
            return None
        w = check_array(self.weights, "weights", ensure_2d=False)
        if w.shape != (n_members,) or np.any(w < 0) or not w.sum() > 0:
            raise ValueError(f"weights must hold {n_members} non-negative numbers (one per member), not all 0; "
                             f"got {self.weights!r}.")
        return w / w.sum()

    def _plan(self, Xs, n):
        base = TensorMultiViewRKM("rbf") if self.base is None else self.base
        if self.members == "views":
            kernels = base.kernels
            per_view = kernels if isinstance(kernels, (list, tuple)) else [kernels] * len(Xs)
            if len(per_view) != len(Xs):
                raise ValueError(f"base.kernels has {len(per_view)} entries but Xs has {len(Xs)} views.")
            return [(clone(base).set_params(kernels=[k]), [X], slice(None)) for k, X in zip(per_view, Xs)]
        if isinstance(self.members, str):
            raise ValueError(f"members must be 'views' or a positive integer; got {self.members!r}.")
        m = check_scalar_range(self.members, "members", low=1, low_inclusive=True, integer=True)
        size = min(n, check_scalar_range(self.subset_size, "subset_size", low=2, low_inclusive=True, integer=True))
        rng = check_random_state(self.random_state)
        plan = []
        for _ in range(m):
            idx = np.sort(rng.choice(n, size=size, replace=False))
            plan.append((clone(base), Xs, idx))
        return plan

    def fit(self, Xs, y):
        """Fit the members (joblib jobs) and their weights from the training errors."""
        Xs = check_views(Xs, "Xs")
        y = np.asarray(y)
        if y.shape[0] != Xs[0].shape[0]:
            raise ValueError(f"y has {y.shape[0]} labels but Xs has {Xs[0].shape[0]} samples; pass one label per sample.")
        plan = self._plan(Xs, Xs[0].shape[0])
        given = self._given_weights(len(plan))
        jobs = (delayed(_fit_member)(est, [X[idx] for X in views], y[idx]) for est, views, idx in plan)
        self.members_ = Parallel(n_jobs=self.n_jobs)(jobs)
        classes = self.members_[0].classes_
        if any(len(m.classes_) != len(classes) or np.any(m.classes_ != classes) for m in self.members_):
            raise ValueError("a random subset missed a class; increase subset_size.")
        self.classes_, self.codebook_ = classes, self.members_[0].codebook_
        self.n_views_ = len(Xs)
        if given is not None:
            self.weights_ = given
            return self
        target = encode_labels(np.searchsorted(self.classes_, y), self.codebook_)
        # (members, N m): each member's training errors, all outputs
        errors = np.stack([(target - F).ravel() for F in self._member_outputs(Xs)])
        C = errors @ errors.T / errors.shape[1]
        ones = np.ones(len(C))
        advice = "Two members make identical errors: drop one."
        beta = SymmetricSolver(C, "the training-error covariance C", advice=advice).solve(ones)
        self.weights_ = beta / beta.sum()
        return self

    def _member_outputs(self, Xs):
        """Each member's outputs (n, m), on its view (``members="views"``) or on all views."""
        return [model._outputs(model._check_views_in([Xs[v]] if self.members == "views" else Xs))
                for v, model in enumerate(self.members_)]

    def decision_function(self, Xs):
        """Weighted sum of the members' outputs, (n,) for two classes, else (n, m)."""
        check_is_fitted(self, "weights_")
        Xs = check_views(Xs, "Xs")
        if len(Xs) != self.n_views_:
            raise ValueError(f"Xs has {len(Xs)} view(s) but the committee was fitted on {self.n_views_}.")
        F = sum(b * out for b, out in zip(self.weights_, self._member_outputs(Xs)))
        return F[:, 0] if F.shape[1] == 1 else F

    def predict(self, Xs):
        """Nearest codeword to the combined outputs."""
        F = self.decision_function(Xs)
        return self.classes_[decode_outputs(F, self.codebook_)]
