"""Model selection of Part III: simulated annealing over hyperparameters with k-fold CV accuracy.

The paper's Algorithm 2 (Chapter 8) tunes ``(kernel parameters, lambda, rho)`` of
:class:`~rkmlearn.TensorMultiViewRKM` by simulated annealing on the 5-fold cross-validated
accuracy. :class:`SimulatedAnnealingSearch` does this for any classifier taking multi-view input
(a list of arrays): the folds of one candidate are independent jobs run through :mod:`joblib`, so
``joblib.parallel_backend("dask")`` with a ``distributed.Client`` spreads them over a cluster.
"""

from __future__ import annotations

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, clone
from sklearn.model_selection import StratifiedKFold
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .._validation import check_array, check_random_state, check_scalar_range, check_seed, check_views, validate
from ..base import REQUIRED, estimator_init

__all__ = ["SimulatedAnnealingSearch", "cv_accuracy"]


def _check_data(Xs, y, cv):
    """``(Xs, y, cv)`` checked: a list of views (same samples) or ONE 2-D array, passed on as given
    (an estimator with ``view_sizes`` splits it itself), one label per sample, and ``cv`` folds that
    every class can fill (StratifiedKFold puts a sample of each class in every fold)."""
    if isinstance(Xs, (list, tuple)):
        Xs = check_views(Xs, "Xs")
        n = Xs[0].shape[0]
    else:
        Xs = check_array(Xs, "X")
        n = Xs.shape[0]
    if y is None:
        raise ValueError("y is None; pass the class labels, one per sample.")
    y = column_or_1d(y, warn=True)
    if y.shape[0] != n:
        raise ValueError(f"y has {y.shape[0]} labels but the data have {n} samples; pass one label per sample.")
    cv = check_scalar_range(cv, "cv", low=2, low_inclusive=True, integer=True)
    classes, counts = np.unique(y, return_counts=True)
    if cv > counts.min():
        raise ValueError(
            f"cv={cv} folds, but class {classes[counts.argmin()].item()!r} of y has only {counts.min()} sample(s) and "
            f"every stratified fold needs one of each class; pass cv <= {counts.min()} (and at least 2)."
        )
    return Xs, y, cv


def _rows(Xs, index):
    """Rows ``index`` of every view, or of the one array."""
    return [X[index] for X in Xs] if isinstance(Xs, list) else Xs[index]


def _fit_score(estimator, Xs, y, train, test):
    model = clone(estimator).fit(_rows(Xs, train), y[train])
    return model.score(_rows(Xs, test), y[test])


def _data_rule(arguments):
    """The checks of :func:`cv_accuracy`'s data (:func:`_check_data`), once at the door."""
    arguments["Xs"], arguments["y"], arguments["cv"] = _check_data(arguments["Xs"], arguments["y"], arguments["cv"])


@validate(then=_data_rule)
def cv_accuracy(estimator, Xs, y, *, cv=5, random_state=0, n_jobs=None):
    """Mean stratified ``cv``-fold accuracy of ``estimator`` on multi-view data (folds via joblib).

    Parameters
    ----------
    estimator : classifier taking a list of views (or one array, e.g. with ``view_sizes``)
    Xs : list of ndarray (N, d_v), or one ndarray (N, d)
    y : ndarray (N,)
    cv : int, default=5
        At most the size of the smallest class.
    random_state : int, RandomState, Generator or None, default=0
        Seeds the shuffled folds.
    n_jobs : int or None
        joblib's ``n_jobs`` (``None``: the active backend's default, one job locally).
    """
    folds = StratifiedKFold(cv, shuffle=True, random_state=check_seed(random_state)).split(np.zeros((len(y), 1)), y)
    scores = Parallel(n_jobs=n_jobs)(delayed(_fit_score)(estimator, Xs, y, a, b) for a, b in folds)
    return float(np.mean(scores))


class SimulatedAnnealingSearch(BaseEstimator):
    """Simulated annealing over continuous hyperparameters, scored by k-fold CV accuracy.

    The paper's Algorithm 2 (Chapter 8: it tunes :eq:`eq-tensor-rho-system`'s ``lambda``, ``rho``
    and the kernel bandwidths). Each parameter lives in an interval, searched on a linear or a log
    scale mapped to ``[0, 1]``. From the centre of the box, each step proposes the current point
    plus a Gaussian step of size ``step * T`` (clipped to the box), accepts it if its CV accuracy
    is higher, else with probability ``exp((new - current) / (0.05 T))``, and cools ``T`` by
    ``cooling``; the best point seen wins and is refitted on all the data.

    Parameters
    ----------
    estimator : classifier
        Fitted as ``estimator.set_params(**build(point)).fit(Xs, y)``.
    space : dict
        ``name -> (low, high)`` or ``(low, high, "log")``.
    build : callable or None, default=None
        Maps a point (dict name -> value) to ``set_params`` keywords (e.g. bandwidths to a list of
        kernels); ``None`` passes the point as is.
    n_iter : int, default=30
        Number of candidates after the starting point.
    cv : int, default=5
    step : float, default=0.3
    cooling : float, default=0.9
    random_state : int, RandomState, Generator or None, default=None
        Seeds the proposals and the folds (the same folds for every candidate).
    n_jobs : int or None, default=None
        joblib ``n_jobs`` for the folds of each candidate.
    verbose : bool, default=False
        Print one progress line per candidate.

    Attributes
    ----------
    best_params_ : dict
    best_score_ : float
    best_estimator_ : classifier
    history_ : list of (dict, float, bool)
        Every candidate, its CV accuracy and whether it was accepted.
    """

    __init__ = estimator_init({"estimator": REQUIRED, "space": REQUIRED, "build": None},
                              {"n_iter": 30, "cv": 5, "step": 0.3, "cooling": 0.9, "random_state": None,
                               "n_jobs": None, "verbose": False})

    def _bounds(self):
        if self.build is not None and not callable(self.build):
            raise ValueError(
                f"build must be a function mapping a point (dict name -> value) to set_params keywords, or None "
                f"to pass the point as is; got {self.build!r}."
            )
        if not isinstance(self.space, dict) or not self.space:
            raise ValueError("space must be a non-empty dict name -> (low, high) or (low, high, 'log').")
        bounds = {}
        for name, spec in self.space.items():
            if not isinstance(spec, (tuple, list)) or len(spec) not in (2, 3) or (len(spec) == 3 and spec[2] not in ("log", "linear")):
                raise ValueError(f"space[{name!r}] must be (low, high) or (low, high, 'log'); got {spec!r}.")
            low, high = float(spec[0]), float(spec[1])
            log = len(spec) == 3 and spec[2] == "log"
            if not low < high or (log and low <= 0):
                raise ValueError(f"space[{name!r}] needs low < high (and low > 0 on a log scale); got {spec!r}.")
            bounds[name] = (low, high, log)
        return bounds

    @staticmethod
    def _point(u, bounds):
        point = {}
        for ui, (name, (low, high, log)) in zip(u, bounds.items()):
            if log:  # exp(log) can land an ulp outside the interval: clip
                value = np.exp(np.log(low) + ui * (np.log(high) - np.log(low)))
            else:
                value = low + ui * (high - low)
            point[name] = float(np.clip(value, low, high))
        return point

    def _score(self, u, bounds, Xs, y, seed):
        point = self._point(u, bounds)
        params = point if self.build is None else self.build(point)
        estimator = clone(self.estimator).set_params(**params)
        return point, cv_accuracy(estimator, Xs, y, cv=self.cv, random_state=seed, n_jobs=self.n_jobs)

    def _check_fit_data(self, arguments):
        """The rule of :meth:`fit` (the candidates' fits trust what it returns): the data and ``cv``."""
        arguments["Xs"], arguments["y"], _ = _check_data(arguments["Xs"], arguments["y"], self.cv)

    @validate(then="_check_fit_data")
    def fit(self, Xs, y):
        """Run the annealing on ``(Xs, y)`` and refit the best candidate on all of it.

        ``Xs`` is a list of views or ONE array, passed to the estimator as given (with
        ``view_sizes`` a :class:`~rkmlearn.TensorMultiViewRKM` splits it into its views), so that
        ``score`` and scikit-learn's ``cross_val_score`` of the search take the same input.
        """
        bounds = self._bounds()
        n_iter = check_scalar_range(self.n_iter, "n_iter", low=0, low_inclusive=True, integer=True)
        check_scalar_range(self.step, "step", low=0.0)
        check_scalar_range(self.cooling, "cooling", low=0.0, high=1.0)
        rng = check_random_state(self.random_state)
        seed = int(rng.randint(np.iinfo(np.int32).max))
        u = np.full(len(bounds), 0.5)
        point, score = self._score(u, bounds, Xs, y, seed)
        best = (point, score)
        self.history_ = [(point, score, True)]
        T = 1.0
        for i in range(n_iter):
            proposal = np.clip(u + self.step * T * rng.normal(size=u.size), 0.0, 1.0)
            new_point, new_score = self._score(proposal, bounds, Xs, y, seed)
            accept = new_score >= score or rng.uniform() < np.exp((new_score - score) / (0.05 * T))
            self.history_.append((new_point, new_score, bool(accept)))
            if accept:
                u, score = proposal, new_score
            if new_score > best[1]:
                best = (new_point, new_score)
            if self.verbose:
                print(f"[{i + 1}/{n_iter}] T = {T:.3f}  cv accuracy {new_score:.4f}  best {best[1]:.4f}", flush=True)
            T *= self.cooling
        self.best_params_, self.best_score_ = best
        params = self.best_params_ if self.build is None else self.build(self.best_params_)
        self.best_estimator_ = clone(self.estimator).set_params(**params).fit(Xs, y)
        return self

    def predict(self, Xs):
        """Predictions of the refitted best estimator."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict(Xs)

    def score(self, Xs, y):
        """Accuracy of the refitted best estimator."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.score(Xs, y)
