"""Input validation shared by every estimator and function of :mod:`rkmlearn`.

Every check raises a :class:`ValueError` whose message starts with the name of the offending
parameter and says how to fix it. The wording of scikit-learn's own messages ("NaN", "inf",
"Complex data not supported", "Expected 2D array", "X has 3 features, but KernelPCA is expecting 5
features as input") is kept inside ours, so scikit-learn's ``check_estimator`` keeps recognising
them.

Where the underlying failure is a :class:`TypeError` (a sparse matrix, an object array holding a
``dict``), the error raised is :class:`InputTypeError`, which is both a ``ValueError`` and a
``TypeError``: callers of this library can always catch ``ValueError``, and code written for
scikit-learn's conventions, which expects ``TypeError`` there, keeps working.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import check_array as _sk_check_array
from sklearn.utils import check_random_state as _sk_check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d

__all__ = [
    "InputTypeError",
    "check_array",
    "check_views",
    "check_n_components",
    "check_scalar_range",
    "check_n_features",
    "check_option",
    "check_bool",
    "check_random_state",
    "check_seed",
]


class InputTypeError(ValueError, TypeError):
    """Bad input whose underlying cause is a type problem (e.g. sparse or ``dict`` entries).

    Subclasses both :class:`ValueError` (the library's rule: bad input raises ``ValueError``) and
    :class:`TypeError` (what NumPy and scikit-learn raise for the same input).
    """


def _shape_of(X):
    """Shape of ``X`` for error messages, or ``None`` when it has none (ragged lists...)."""
    shape = getattr(X, "shape", None)
    if shape is not None:
        return tuple(shape)
    try:
        return np.shape(X)
    except Exception:  # ragged nested lists, generators...
        return None


def _dtype_of(X):
    dtype = getattr(X, "dtype", None)
    if dtype is not None:
        return dtype
    try:
        return np.asarray(X).dtype
    except Exception:
        return None


def _explain(X, name, message, ensure_2d):
    """Turn scikit-learn's message into ours: name first, then what is wrong, then the fix."""
    shape = _shape_of(X)
    shape_txt = f"shape {shape}" if shape is not None else "no regular shape"
    if "Expected 2D array" in message:
        return (
            f"{name} must be a 2-D array of shape (n_samples, n_features); got {shape_txt}. "
            f"Reshape a single feature with {name}.reshape(-1, 1) or a single sample with "
            f"{name}.reshape(1, -1)."
        )
    if "Found array with dim" in message:
        return (
            f"{name} must be a 2-D array of shape (n_samples, n_features); got {shape_txt}. "
            f"Flatten the trailing axes, e.g. {name}.reshape(len({name}), -1)."
        )
    if "NaN" in message or "infinity" in message or "inf" in message.split():
        return (
            f"{name} contains NaN or infinite values (NaN and inf are not allowed). Remove or "
            "impute them first, e.g. with sklearn.impute.SimpleImputer."
        )
    if "Complex data not supported" in message:
        return (
            f"{name} must be real-valued; got complex data. Pass the real part "
            f"({name}.real) or the modulus (abs({name})) if that is what you mean."
        )
    if "0 sample(s)" in message or "0 feature(s)" in message:
        return (
            f"{name} is empty ({shape_txt}); pass at least one sample and one feature."
        )
    if "Sparse data" in message or "sparse" in message.lower():
        return (
            f"{name} must be a dense array; got a sparse matrix. Convert it with "
            f"{name}.toarray()."
        )
    if "convert" in message or "string" in message or "real number" in message:
        return (
            f"{name} must contain real numbers; got dtype {_dtype_of(X)}. Encode strings or "
            "categories numerically first (e.g. with sklearn.preprocessing.OneHotEncoder)."
        )
    if "dtype" in message:
        return f"{name} must contain real numbers; got dtype {_dtype_of(X)}. Convert it to float."
    if "inhomogeneous" in message or "sequence" in message:
        return (
            f"{name} must be a rectangular array; got a ragged nested sequence. Give every "
            "sample the same number of features."
        )
    return f"{name} is not a valid {'2-D ' if ensure_2d else ''}array of real numbers."


def _all_finite(X):
    """True when every entry of the float array ``X`` is finite: one sum (no n x m temporary),
    and the elementwise test only when the sum is not finite (it can overflow from finite values)."""
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(X.sum()):
            return True
    return bool(np.isfinite(X).all())


def check_array(X, name="X", *, ensure_2d=True, allow_empty=False, copy=False, ensure_all_finite=True):
    """Validate an array-like and return it as a C-contiguous float64 :class:`numpy.ndarray`.

    Wraps :func:`sklearn.utils.check_array` and re-raises its errors as :class:`ValueError`
    whose message starts with ``name`` and says how to fix the input; scikit-learn's original
    message is kept at the end (in brackets) so its wording still matches.

    ``X`` is any array-like (lists, arrays, DataFrames); ``name`` names it in messages. With
    ``ensure_2d=False`` a 1-D array is accepted too; ``allow_empty`` accepts zero samples or features;
    ``copy`` always copies (otherwise a C-contiguous float64 ``X`` is returned itself);
    ``ensure_all_finite=False`` leaves NaN and inf to the caller (its own message). Raises
    ``ValueError`` on NaN or inf, complex values, non-numbers, empty input, wrong dimensions or
    ragged lists (sparse input: :class:`InputTypeError`, a ``ValueError``).
    """
    min_size = 0 if allow_empty else 1
    # Fast path for what the library passes itself (float64, C-contiguous, finite): the same answer
    # as scikit-learn's check, without its ~100 us of overhead per call (a forecast makes millions).
    if (
        type(X) is np.ndarray
        and X.dtype == np.float64
        and X.flags.c_contiguous
        and not copy
        and (X.ndim == 2 or (X.ndim == 1 and not ensure_2d))
        and min(X.shape) >= min_size
        and (not ensure_all_finite or _all_finite(X))
    ):
        return X
    try:
        out = _sk_check_array(
            X,
            accept_sparse=False,
            dtype=np.float64,
            order="C",
            copy=copy,
            ensure_all_finite=ensure_all_finite,
            ensure_2d=ensure_2d,
            allow_nd=False,
            ensure_min_samples=min_size,
            ensure_min_features=min_size if ensure_2d else 0,
            input_name=name,
        )
    except (ValueError, TypeError) as exc:
        message = str(exc)
        text = f"{_explain(X, name, message, ensure_2d)} [{message.strip()}]"
        error = InputTypeError if isinstance(exc, TypeError) else ValueError
        raise error(text) from exc
    if not allow_empty and out.size == 0:  # 1-D empty input when ensure_2d=False
        raise ValueError(f"{name} is empty (shape {out.shape}); pass at least one value.")
    return out


def check_views(Xs, name="Xs", *, min_views=1):
    """Validate a list of views: 2-D float64 arrays that share their number of samples.

    Parameters
    ----------
    Xs : list or tuple of array-like
        One array of shape ``(n_samples, n_features_v)`` per view. Row ``i`` of every view
        describes the same sample.
    name : str, default="Xs"
        Name of the parameter, used in error messages (view ``v`` is called ``Xs[v]``).
    min_views : int, default=1
        Smallest number of views accepted.

    Returns
    -------
    views : list of ndarray
        The validated views (float64, C-contiguous).
    """
    if isinstance(Xs, np.ndarray) or not isinstance(Xs, (list, tuple)):
        raise ValueError(
            f"{name} must be a list or tuple of 2-D arrays, one per view; got "
            f"{type(Xs).__name__}. Wrap a single view as [X]."
        )
    if len(Xs) < min_views:
        raise ValueError(
            f"{name} must contain at least {min_views} view(s); got {len(Xs)}. "
            f"Pass a list of {min_views} or more arrays."
        )
    views = [check_array(X, f"{name}[{v}]") for v, X in enumerate(Xs)]
    n0 = views[0].shape[0]
    for v, X in enumerate(views[1:], start=1):
        if X.shape[0] != n0:
            raise ValueError(
                f"{name}[{v}] has {X.shape[0]} samples but {name}[0] has {n0}; all views must "
                "have the same number of samples (row i of every view is the same sample)."
            )
    return views


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
    value = int(value) if integer else float(value)
    if np.isnan(value) or (np.isinf(value) and not allow_inf):
        raise ValueError(f"{name} must be a finite number in {interval}; got {value}.")
    too_low = low is not None and (value < low or (value == low and not low_inclusive))
    too_high = high is not None and (value > high or (value == high and not high_inclusive))
    if too_low or too_high:
        raise ValueError(f"{name} must be in {interval}; got {value}. Pass {kind} in {interval}.")
    return value


def check_n_features(X, n_features_in, name="X", *, estimator_name=None):
    """Check that ``X`` has the number of features (columns) seen during ``fit``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        A validated 2-D array (see :func:`check_array`).
    n_features_in : int
        Number of features seen during ``fit``.
    name : str, default="X"
        Name of the parameter, used in error messages.
    estimator_name : str or object, optional
        The estimator (or its class name). When given, the message contains scikit-learn's
        wording "X has 3 features, but KernelPCA is expecting 5 features as input".
    """
    n_features = X.shape[1]
    if n_features == n_features_in:
        return
    if estimator_name is not None and not isinstance(estimator_name, str):
        estimator_name = type(estimator_name).__name__
    who = estimator_name if estimator_name is not None else "the estimator"
    raise ValueError(
        f"{name} has {n_features} features, but {who} is expecting {n_features_in} features as "
        f"input (it was fitted with {n_features_in} features). Pass {name} with the same "
        f"{n_features_in} columns, in the same order, as the data used in fit."
    )


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


def check_random_state(seed):
    """A :class:`numpy.random.RandomState` from None, an int, a RandomState or a Generator.

    A :class:`numpy.random.Generator` draws the seed of the returned RandomState (so it advances,
    as a RandomState passed by the caller would).

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
            f"random_state must be None, an int, a numpy RandomState or a numpy Generator; got {seed!r}."
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


def check_kernel_or_feature_map(kernel, kernel_params, feature_map, setting):
    """Validate the kernel / explicit-feature-map options shared by the single-view estimators.

    A model works either with a kernel (``kernel`` + ``kernel_params``, dual setting only) or with an
    explicit ``feature_map`` (then its kernel is the linear kernel of the features, and ``kernel``
    and ``kernel_params`` must stay at their defaults: ``"rbf"`` or None, and None). The primal
    setting needs the feature map.

    Parameters
    ----------
    kernel : str, Kernel, callable or None
    kernel_params : dict or None
    feature_map : transformer or None
    setting : {"dual", "primal"}
    """
    if kernel_params is not None and not isinstance(kernel_params, dict):
        raise ValueError(f"kernel_params must be a dict such as {{'sigma': 2.0}} or None, got {kernel_params!r}.")
    if feature_map is not None:
        if not (hasattr(feature_map, "fit_transform") and hasattr(feature_map, "transform")):
            raise ValueError(
                f"feature_map must be a transformer with fit_transform and transform (e.g. "
                f"rkmlearn.features.RandomFourierFeatures()), got {feature_map!r}."
            )
        default_kernel = kernel is None or (isinstance(kernel, str) and kernel == "rbf")
        if kernel_params is not None or not default_kernel:
            raise ValueError(
                "kernel and kernel_params are not used when feature_map is given (the kernel is "
                "then the linear kernel of the features); leave them at their defaults, or set "
                "feature_map=None to use the kernel."
            )
    elif setting == "primal":
        raise ValueError(
            "feature_map is required for setting='primal': the primal problem needs explicit "
            "features. Pass e.g. feature_map=rkmlearn.features.RandomFourierFeatures(...) or "
            "IdentityFeatures(), or use setting='dual'."
        )
