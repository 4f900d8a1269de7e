"""Recursive forecasting: the loop (:class:`RecursiveForecaster`) and NAR models (:class:`NARForecaster`).

A recursive forecaster predicts one step from a state, appends the prediction to the state, and
repeats. :class:`RecursiveForecaster` owns that loop once (validation of ``steps``, the start
state, a progress bar for long horizons); a model implements ``_start(history) -> state`` and
``_step(state) -> (value, state)``. :class:`NARForecaster` is the duality paper's nonlinear
autoregressive model (:eq:`eq-mv-nar`, Chapter 5) for ANY two-view model that can impute a view;
Part V's recurrent RKM will step its latent recursion the same way.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils.validation import check_is_fitted

from ._validation import check_array, check_bool, check_scalar_range, check_series, checked_by, series, validate

__all__ = ["RecursiveForecaster", "NARForecaster"]


class RecursiveForecaster(BaseEstimator):
    """Base class of recursive multi-step forecasters: the forecasting loop, written once.

    Subclasses implement ``_start(history) -> state`` (the start state from a checked ``history``;
    ``history=None`` means "from the end of the training data"), ``_step(state) -> (value,
    state)`` (one prediction; called ``steps`` times, so it must not re-validate the model) and
    optionally ``_finish(values) -> values`` (e.g. undo a standardisation), ``_check_steps`` and
    ``_check_history`` (the rules of :meth:`forecast`, run before any step). ``_fitted`` names the
    attribute that ``fit`` sets.
    """

    #: ``forecast`` shows a progress bar by default from this many steps on.
    PROGRESS_FROM = 10_000
    _fitted = "model_"

    def _check_steps(self, steps):
        """The rule of ``steps`` (run first): a fitted forecaster, an integer ``>= 1``."""
        check_is_fitted(self, self._fitted)
        return check_scalar_range(steps, "steps", low=1, low_inclusive=True, integer=True)

    def _check_history(self, history):
        """The rule of ``history``: None (the end of the training data) unless a subclass takes one."""
        return history

    @validate(steps=checked_by("_check_steps"), history=checked_by("_check_history"),
              progress=lambda value, name, arguments: None if value is None else check_bool(value, name))
    def forecast(self, steps, history=None, *, progress=None):
        """Recursive multi-step forecast.

        Parameters
        ----------
        steps : int
            Number of future values, ``>= 1``.
        history : array-like, optional
            Past values to start from; default: the end of the training series.
        progress : bool or None, default=None
            Show a tqdm progress bar; None shows it when ``steps >= PROGRESS_FROM`` (10 000).

        Returns
        -------
        forecast : ndarray of shape (steps,) (or (steps, ...) for vector-valued steps)
        """
        show = steps >= self.PROGRESS_FROM if progress is None else progress
        state = self._start(history)
        values = None
        bar = None
        if show:
            from tqdm.auto import tqdm  # imported lazily: only needed when a bar is shown

            bar = tqdm(total=steps, desc=f"{type(self).__name__}.forecast", unit="step")
        try:
            for t in range(steps):  # recursion over time: each step needs the previous one
                value, state = self._step(state)
                if values is None:
                    values = np.empty((steps,) + np.shape(value))
                values[t] = value
                if bar is not None:
                    bar.update(1)
        finally:
            if bar is not None:
                bar.close()
        return self._finish(values)

    def _finish(self, values):
        return values


class NARForecaster(RecursiveForecaster):
    """Nonlinear autoregressive forecasting with a two-view model, :eq:`eq-mv-nar` (Chapter 5).

    The series is standardised with the TRAINING mean and standard deviation and cut into windows:
    with lag ``p``, ``x_{l+1} = f(x_l, ..., x_{l-p})``; view 0 holds the window of ``p + 1`` values
    (oldest first), view 1 the next value, so a series of length ``T`` gives ``T - p - 1`` training
    pairs. Forecasting is recursive: the imputed next value is appended to the window.

    Any model works that has ``fit(list_of_2_views)`` and ``predict_view(views, target)`` (e.g.
    :class:`~rkmlearn.MultiViewKPCA`). If it also has ``view_predictor(target)`` (a function of
    validated views), each step calls that and skips the input checks. **Cost per step** with
    :class:`~rkmlearn.MultiViewKPCA` on ``n`` training windows: one kernel row of the window against
    the ``n`` windows (``O(n p)``; with explicit features ``O(D p)`` for the ``D`` features),
    ``O(n s)`` or ``O(D s)`` for the ``s x s`` latent solve, and the pre-image (``O(n)`` for the
    scalar target), plus a fixed Python overhead of some 50 us: about 0.1 ms per step for ``n = 359``,
    ``p = 40`` (Chapter 5's sum of sines; ``benchmarks/bench_core.py``), so ``forecast(10**6)``
    takes one to two minutes, with a progress bar.

    Parameters
    ----------
    model : estimator
        Unfitted template (cloned).
    lag : int
        The lag ``p >= 0``; windows have ``p + 1`` values.

    Attributes
    ----------
    model_ : estimator
        The fitted clone.
    mean_, scale_ : float
        Training statistics of the standardisation.
    n_inputs_ : int
        ``lag + 1``.
    last_window_ : ndarray of shape (lag + 1,)
        The last ``lag + 1`` training values (original units): the default start of ``forecast``.

    Examples
    --------
    >>> import numpy as np
    >>> from rkmlearn import MultiViewKPCA, NARForecaster
    >>> series = np.sin(0.3 * np.arange(200))
    >>> f = NARForecaster(MultiViewKPCA(2), lag=5).fit(series)
    >>> bool(np.allclose(f.forecast(20), np.sin(0.3 * np.arange(200, 220)), atol=1e-8))
    True
    """

    def __init__(self, model, lag):
        self.model = model
        self.lag = lag

    @staticmethod
    def windows(z, lag):
        """Windows ``(T - lag - 1, lag + 1)`` and next values ``(T - lag - 1,)`` of a 1-D array.

        Row ``i`` is ``(z_i, ..., z_{i+lag})`` and its target is ``z_{i+lag+1}``.
        """
        X = np.lib.stride_tricks.sliding_window_view(z, lag + 1)[:-1]
        return np.ascontiguousarray(X), z[lag + 1:].copy()

    def _min_pairs(self):
        """Training pairs the model needs: 2 to centre, and ``n_components + 1`` (rank <= pairs - 1)."""
        s = getattr(self.model, "n_components", None)
        return max(2, s + 1) if isinstance(s, Integral) and not isinstance(s, bool) and s > 0 else 2

    @validate(series=series())  # the model's fit trusts its windows
    def fit(self, series, y=None):
        """Fit on a 1-D training series (long enough for ``lag`` and the model; see the errors).

        Parameters
        ----------
        series : array-like of shape (T,)
        y : ignored

        Returns
        -------
        self
        """
        # duck-typed: forecasting imports no model (the models import it); a one-view model such as
        # KPCA has no predict_view
        if not (hasattr(self.model, "fit") and callable(getattr(self.model, "predict_view", None))):
            raise ValueError(
                "model must be a two-view model with fit(list_of_2_views) and predict_view(views, target) "
                f"(view 0: the window, view 1: the next value), e.g. rkmlearn.MultiViewKPCA(2); got "
                f"{type(self.model).__name__}, which is not."
            )
        T = series.shape[0]
        lag = check_scalar_range(self.lag, "lag", low=0, low_inclusive=True, integer=True)
        need = self._min_pairs()
        max_lag = T - 1 - need
        if max_lag < 0:
            # the advice names a lag that can work: windows of n_components values (a linear kernel's
            # window view has rank lag + 1, and imputation needs rank n_components)
            min_lag = need - 2
            raise ValueError(
                f"series has {T} value(s): too short for a NAR model, which needs at least {need} training "
                f"pairs (a window of lag + 1 values and the next value; n_components + 1 pairs at least). "
                f"Pass a series of at least {min_lag + 1 + need} values and lag={min_lag} (windows of "
                f"n_components values)."
            )
        if lag > max_lag:
            raise ValueError(
                f"lag={lag} is too large for the series length {T}: windows of lag + 1 = {lag + 1} values "
                f"leave {max(T - lag - 1, 0)} training pair(s), and the model needs at least {need} "
                f"(n_components + 1). Use lag <= {max_lag} or a longer series."
            )
        self.mean_ = float(series.mean())
        self.scale_ = float(series.std())
        if self.scale_ == 0.0:
            raise ValueError("series is constant (standard deviation 0); nothing to forecast.")
        X, y_next = self.windows((series - self.mean_) / self.scale_, lag)
        self.model_ = clone(self.model).fit([X, y_next[:, None]])
        self.n_inputs_ = lag + 1
        self.last_window_ = series[-(lag + 1):].copy()
        # one step now, so that a model that cannot impute the next value from a window fails in
        # fit, with advice about lag, not at forecast with the model's own internal names
        try:
            self.predict(self.last_window_[None, :])
        except ValueError as exc:
            s = getattr(self.model, "n_components", None)
            del self.model_
            raise ValueError(
                f"lag={lag}: windows of lag + 1 = {lag + 1} value(s) do not determine the model's "
                f"n_components={s} latent components, so the next value cannot be imputed ({exc}). Use a "
                f"larger lag (a linear kernel needs lag + 1 >= n_components) with a long enough series, or "
                f"fewer n_components."
            ) from exc
        return self

    def _check_windows(self, windows):
        """The rule of :meth:`predict`: a fitted forecaster, windows of ``lag + 1`` values."""
        check_is_fitted(self, "model_")
        W = check_array(windows, "windows")
        if W.shape[1] != self.n_inputs_:
            raise ValueError(
                f"windows must have lag + 1 = {self.n_inputs_} columns (x_(l-lag), ..., x_l), got {W.shape[1]}."
            )
        return W

    @validate(windows=checked_by("_check_windows"))
    def predict(self, windows):
        """One-step predictions for windows of past values (original units), shape (m, lag + 1) -> (m,)."""
        W = windows
        z = self.model_.predict_view([(W - self.mean_) / self.scale_, None], target=1)[:, 0]
        return z * self.scale_ + self.mean_

    def _check_history(self, history):
        """The rule of ``history``: None, or a 1-D series of at least ``lag + 1`` values."""
        if history is None:
            return None
        history = check_series(history, "history")
        if history.shape[0] < self.n_inputs_:
            raise ValueError(f"history must have at least lag + 1 = {self.n_inputs_} values, got {history.shape[0]}.")
        return history

    def _start(self, history):
        """Standardised start window (``history`` checked by the rule of ``forecast``), and the one-step function."""
        window = self.last_window_ if history is None else history[-self.n_inputs_:]
        if hasattr(self.model_, "view_predictor"):
            impute = self.model_.view_predictor(1)

            def one_step(views):
                return impute(views)[0]
        else:
            def one_step(views):
                return self.model_.predict_view(views, target=1)
        return (window - self.mean_) / self.scale_, one_step

    def _step(self, state):
        z, one_step = state
        value = float(one_step([z[None, :], None])[0, 0])
        return value, (np.append(z[1:], value), one_step)

    def _finish(self, values):
        return values * self.scale_ + self.mean_
