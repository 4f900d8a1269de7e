"""Scalar and option checks: integers in a range, real intervals, option strings, booleans,
class labels and ``random_state``. Every error is a :class:`ValueError` naming the parameter.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import check_random_state as _sk_check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d

__all__ = ["check_class_labels", "check_n_components", "check_scalar_range", "check_option", "check_bool",
           "check_random_state", "check_seed"]


def check_class_labels(y, n_samples, estimator_name, *, samples_name="X"):
    """Class labels of a classifier's ``fit``: ``(classes, index)`` with ``classes[index] == y``.

    ``y`` must be given, 1-D (a column vector is accepted with scikit-learn's
    DataConversionWarning), one label per sample, of a classification type, with at least two
    classes.
    """
    if y is None:
        raise ValueError(f"{estimator_name} requires y to be passed, but the target y is None; pass the class labels.")
    y = column_or_1d(y, warn=True)
    if y.shape[0] != n_samples:
        raise ValueError(
            f"y must hold one label per sample: y has {y.shape[0]} labels but {samples_name} has {n_samples} samples."
        )
    check_classification_targets(y)  # continuous targets: "Unknown label type: continuous"
    classes, index = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise ValueError(f"y has only one class ({classes[0]!r}); a classifier needs at least two classes in y.")
    return classes, index


def check_n_components(n_components, n_max, name="n_components", *, what="n_samples"):
    """Check that ``1 <= n_components <= n_max`` and ``n_components`` is an integer.

    Parameters
    ----------
    n_components : int
        The value to check. Python and NumPy integers are accepted; ``bool`` and floats are not.
    n_max : int
        Largest allowed value.
    name : str, default="n_components"
        Name of the parameter, used in error messages.
    what : str, default="n_samples"
        What ``n_max`` is, used in error messages (e.g. ``"n_samples - 1"``).

    Returns
    -------
    n_components : int
    """
    if isinstance(n_components, (bool, np.bool_)) or not isinstance(n_components, numbers.Integral):
        raise ValueError(
            f"{name} must be an integer in [1, {n_max}]; got {n_components!r} "
            f"({type(n_components).__name__}). Pass an int such as {name}=2."
        )
    n_components = int(n_components)
    if not 1 <= n_components <= n_max:
        raise ValueError(
            f"{name}={n_components} is out of range: it must satisfy 1 <= {name} <= {what} "
            f"(= {n_max}). Pass an integer in [1, {n_max}]."
        )
    return n_components


def _interval(low, high, low_inclusive, high_inclusive):
    left = ("[" if low_inclusive else "(") + ("-inf" if low is None else f"{low}")
    right = "inf)" if high is None else f"{high}" + ("]" if high_inclusive else ")")
    return f"{left}, {right}"


def check_scalar_range(
    value,
    name,
    *,
    low=None,
    high=None,
    low_inclusive=False,
    high_inclusive=True,
    integer=False,
    allow_inf=False,
):
    """Check a real (or integer) hyperparameter against an interval.

    Parameters
    ----------
    value : float or int
        The value to check. ``bool`` is rejected; NaN is always rejected, infinities unless
        ``allow_inf``.
    name : str
        Name of the parameter, used in error messages.
    low, high : float or None, default=None
        Bounds of the interval (None: unbounded).
    low_inclusive : bool, default=False
        Whether ``low`` itself is allowed (default: strict, e.g. ``sigma > 0``).
    high_inclusive : bool, default=True
        Whether ``high`` itself is allowed.
    integer : bool, default=False
        Require an integer (Python or NumPy integer).
    allow_inf : bool, default=False
        Accept ``+inf``/``-inf`` (inside the interval).

    Returns
    -------
    value : float or int
        ``int(value)`` when ``integer`` else ``float(value)``.

    Examples
    --------
    >>> check_scalar_range(2.0, "sigma", low=0)
    2.0
    >>> check_scalar_range(3, "degree", low=1, low_inclusive=True, integer=True)
    3
    """
    interval = _interval(low, high, low_inclusive, high_inclusive)
    kind = "an integer" if integer else "a real number"
    expected = numbers.Integral if integer else numbers.Real
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, expected):
        raise ValueError(
            f"{name} must be {kind} in {interval}; got {value!r} ({type(value).__name__}). "
            f"Pass {kind} in {interval}."
        )
    try:
        value = int(value) if integer else float(value)
    except OverflowError:  # an int beyond the float range (2**1024) as a real number
        value = float("inf") if value > 0 else float("-inf")
    # a Python int is never NaN or infinite, and may exceed every NumPy integer type (2**64 + 3)
    if not integer and (np.isnan(value) or (np.isinf(value) and not allow_inf)):
        raise ValueError(f"{name} must be a finite number in {interval}; got {value}.")
    too_low = low is not None and (value < low or (value == low and not low_inclusive))
    too_high = high is not None and (value > high or (value == high and not high_inclusive))
    if too_low or too_high:
        raise ValueError(f"{name} must be in {interval}; got {value}. Pass {kind} in {interval}.")
    return value



def check_option(value, name, allowed):
    """Check that ``value`` is one of the strings ``allowed``; return it.

    Examples
    --------
    >>> check_option("dual", "setting", ("dual", "primal"))
    'dual'
    """
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}; got {name}={value!r}.")
    return value


def check_bool(value, name):
    """Check that ``value`` is ``True`` or ``False`` (NumPy booleans included); return a ``bool``."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False; got {value!r}.")
    return bool(value)


def check_random_state(seed, name="random_state"):
    """A :class:`numpy.random.RandomState` from None, an int, a RandomState or a Generator.

    A :class:`numpy.random.Generator` draws the seed of the returned RandomState (so it advances,
    as a RandomState passed by the caller would). ``name``: the parameter an error names.

    Examples
    --------
    >>> check_random_state(np.random.default_rng(0)).randint(10) == check_random_state(
    ...     np.random.default_rng(0)).randint(10)
    True
    """
    if isinstance(seed, np.random.Generator):
        return np.random.RandomState(int(seed.integers(np.iinfo(np.int32).max)))
    try:
        return _sk_check_random_state(seed)
    except ValueError as exc:
        raise ValueError(
            f"{name} must be None, an int in [0, 2**32 - 1], a numpy RandomState or a numpy Generator; "
            f"got {seed!r}."
        ) from exc


def check_seed(random_state, *, integer=False):
    """``random_state`` for a function that hands it on (scikit-learn's ``train_test_split``,
    ``StratifiedKFold``) or keeps it to reuse: None, an int >= 0 and a RandomState as given, a numpy
    Generator turned into an int drawn from it (so it advances, as everywhere in rkmlearn).
    ``integer=True``: always an int (None and a RandomState draw one), for a seed used again and again.

    Examples
    --------
    >>> check_seed(np.random.default_rng(0)) == check_seed(np.random.default_rng(0))
    True
    """
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(np.iinfo(np.int32).max))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, (bool, np.bool_)):
        return check_scalar_range(random_state, "random_state", low=0, high=2**32 - 1, low_inclusive=True,
                                  integer=True)
    rng = check_random_state(random_state)  # None or a RandomState; anything else: the error
    return int(rng.randint(np.iinfo(np.int32).max)) if integer else random_state

