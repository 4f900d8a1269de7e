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

from .._validation import (check_array, check_class_labels, check_n_features, check_random_state, check_scalar_range,
                           checked_by, validate)
from ..base import estimator_init
from ..solvers.linear import SymmetricSolver
from .coding import decode_outputs, encode_labels
from .tensor import ParsedViews, TensorMultiViewRKM, parse_views

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
        ``members="views"`` its ``kernels`` may be a list with one kernel per view. Its own
        ``view_sizes`` is not used (the committee splits the input).
    members : "views" or int, default="views"
    subset_size : int, default=1000
        Samples per member when ``members`` is an integer: fewer than ``N`` (members fitted on all
        the samples would make identical errors) and enough that every random subset holds every
        class.
    view_sizes : list of int or None, default=None
        Columns per view when the views come as ONE array ``np.hstack(Xs)`` (scikit-learn's CV
        tools), as in :class:`~rkmlearn.TensorMultiViewRKM`; ``None``: one array is one view.
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
    n_views_ : int
    n_features_in_ : list of int or int
        Columns per view; an int (all columns) when ``fit`` was given one array.
    """

    __init__ = estimator_init({"base": None}, {"members": "views", "subset_size": 1000, "view_sizes": None,
                                               "random_state": None, "n_jobs": None, "weights": "covariance"})

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

    def _base(self):
        base = TensorMultiViewRKM("rbf") if self.base is None else self.base
        if not isinstance(base, TensorMultiViewRKM):
            raise ValueError(
                f"base must be a TensorMultiViewRKM (the committee combines its coded outputs) or None; got "
                f"{type(base).__name__}. Pass e.g. CommitteeRKM(TensorMultiViewRKM('rbf'))."
            )
        return base

    def _checked_form(self, Xs):
        """The rule of :meth:`fit`: ``Xs`` checked and parsed into its views, once (:func:`~rkmlearn.models.tensor.parse_views`)."""
        return parse_views(Xs, self.view_sizes)

    def _plan(self, Xs, y_index):
        base = clone(self._base()).set_params(view_sizes=None)
        n = len(y_index)
        if self.members == "views":
            kernels = base.kernels
            per_view = kernels if isinstance(kernels, (list, tuple)) else [kernels] * len(Xs)
            if len(per_view) != len(Xs):
                raise ValueError(f"base.kernels has {len(per_view)} entries but Xs has {len(Xs)} views.")
            return [(clone(base).set_params(kernels=[k]), [X], slice(None)) for k, X in zip(per_view, Xs)]
        if isinstance(self.members, str):
            raise ValueError(f"members must be 'views' or a positive integer; got {self.members!r}.")
        m = check_scalar_range(self.members, "members", low=1, low_inclusive=True, integer=True)
        size = check_scalar_range(self.subset_size, "subset_size", low=2, low_inclusive=True, integer=True)
        if size >= n:
            raise ValueError(
                f"subset_size={size} is not below the {n} samples: every member would be fitted on all of them "
                f"and make the same errors (the committee weights need different members). Pass "
                f"subset_size < {n}, e.g. subset_size={max(n // 2, 2)}, or members='views'."
            )
        rng = check_random_state(self.random_state)
        n_classes = y_index.max() + 1
        plan = []
        for member in range(m):
            idx = np.sort(rng.choice(n, size=size, replace=False))
            seen = np.unique(y_index[idx]).size
            if seen < n_classes:  # checked before any fit: the member's own error would not name subset_size
                raise ValueError(
                    f"subset_size={size}: the random subset of member {member} holds {seen} of the {n_classes} "
                    f"classes; every member needs all of them. Pass a larger subset_size (below {n}), e.g. "
                    f"subset_size={max(n // 2, size + 1)}."
                )
            plan.append((clone(base), Xs, idx))
        return plan

    @validate(Xs=checked_by("_checked_form"))
    def fit(self, Xs, y):
        """Fit the members (joblib jobs) and their weights: from the training errors, or the
        fixed ``weights`` given.

        ``Xs``: a list of views, or one array (one view, or the views' column blocks with
        ``view_sizes``).
        """
        Xs, single = parse_views(Xs, self.view_sizes, check=False)  # parsed by the rule: returned as is
        self.classes_, y_index = check_class_labels(y, Xs[0].shape[0], type(self).__name__, samples_name="Xs")
        y = self.classes_[y_index]  # 1-D labels (a column vector given: scikit-learn's warning, then this)
        plan = self._plan(Xs, y_index)
        given = self._given_weights(len(plan))
        jobs = (delayed(_fit_member)(est, [X[idx] for X in views], y[idx]) for est, views, idx in plan)
        self.members_ = Parallel(n_jobs=self.n_jobs)(jobs)
        self.codebook_ = self.members_[0].codebook_
        self.n_views_ = len(Xs)
        self.n_features_in_ = sum(X.shape[1] for X in Xs) if single else [X.shape[1] for X in Xs]
        if given is not None:
            self.weights_ = given
            return self
        target = encode_labels(y_index, self.codebook_)
        errors = np.stack([(target - F).ravel() for F in self._member_outputs(Xs)])  # (members, N m)
        C = errors @ errors.T / errors.shape[1]
        ones = np.ones(len(C))
        advice = ("Two members make identical errors: drop one" + (
            "." if self.members == "views" else ", or use a smaller subset_size so that the members see different samples."))
        beta = SymmetricSolver(C, "the training-error covariance C", advice=advice).solve(ones)
        self.weights_ = beta / beta.sum()
        return self

    def _member_outputs(self, Xs):
        """Each member's outputs (n, m) on validated views: its view (``members="views"``) or all views."""
        views = [[X] for X in Xs] if self.members == "views" else [Xs] * len(self.members_)
        return [model._outputs(V) for model, V in zip(self.members_, views)]

    def _check_views_in(self, Xs):
        """The rule of the inference methods: a fitted committee, the views with their training columns."""
        check_is_fitted(self, "weights_")
        checked = False
        if not isinstance(Xs, (list, tuple)) and isinstance(self.n_features_in_, int):
            # one array, as in fit: scikit-learn's wording for a wrong number of columns
            Xs, checked = check_array(Xs, "X"), True
            check_n_features(Xs, self.n_features_in_, "X", estimator_name=self)
        Xs, single = parse_views(Xs, self.view_sizes, check=not checked)
        if len(Xs) != self.n_views_:
            raise ValueError(
                f"Xs has {len(Xs)} view(s) but the committee was fitted on {self.n_views_}; pass a list of "
                f"{self.n_views_} arrays, one per view, in the order used in fit."
            )
        member = self.members_[0]
        widths = [X.shape[1] for X in Xs]
        expected = [v.n_features_in_ for m in self.members_ for v in m.views_] if self.members == "views" else \
            [v.n_features_in_ for v in member.views_]
        for v, (got, want) in enumerate(zip(widths, expected)):
            if got != want:
                check_n_features(Xs[v], want, f"Xs[{v}]", estimator_name=self)
        return ParsedViews(Xs, single)

    @validate(Xs=checked_by("_check_views_in"))
    def decision_function(self, Xs):
        """Weighted sum of the members' outputs, (n,) for two classes, else (n, m)."""
        Xs = parse_views(Xs, self.view_sizes, check=False).views
        F = sum(b * out for b, out in zip(self.weights_, self._member_outputs(Xs)))
        return F[:, 0] if F.shape[1] == 1 else F

    @validate(Xs=checked_by("_check_views_in"))
    def predict(self, Xs):
        """Nearest codeword to the combined outputs."""
        F = self.decision_function(Xs)
        return self.classes_[decode_outputs(F, self.codebook_)]
