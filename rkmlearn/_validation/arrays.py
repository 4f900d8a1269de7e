"""Array checks: one 2-D float64 array, a list of views, a square matrix, new inputs' columns.

Every check raises a :class:`ValueError` whose message starts with the name of the offending
parameter and says how to fix it. The cause is diagnosed from the input itself (:func:`_diagnose`),
never from the text of scikit-learn's messages; scikit-learn's own message is appended in brackets
unchanged, so its wording ("NaN", "inf", "Complex data not supported", "Expected 2D array") is still
there for ``check_estimator``.

Where the underlying failure is a :class:`TypeError` (a sparse matrix, an object array holding a
``dict``), the error raised is :class:`InputTypeError`, which is both a ``ValueError`` and a
``TypeError``: callers of this library can always catch ``ValueError``, and code written for
scikit-learn's conventions, which expects ``TypeError`` there, keeps working.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse
from sklearn.utils import check_array as _sk_check_array

__all__ = ["InputTypeError", "check_array", "check_views", "check_square", "check_n_features", "is_dask",
           "check_dask", "all_finite", "check_series"]


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


def _as_numpy(X):
    """``np.asarray(X)``, or None when NumPy cannot make a rectangular array of it."""
    try:
        return np.asarray(X)
    except Exception:  # ragged nested sequences, objects NumPy refuses
        return None


def _real(A):
    """``A`` as float64, or None when its entries are not real numbers."""
    try:
        return A.astype(np.float64)
    except (TypeError, ValueError):
        return None


def _diagnose(X, name, ensure_2d, ensure_all_finite=True):
    """What is wrong with ``X``, in the order scikit-learn checks it: name first, then the fix."""
    shape = _shape_of(X)
    shape_txt = f"shape {shape}" if shape is not None else "no regular shape"
    if scipy.sparse.issparse(X):
        return f"{name} must be a dense array; got a sparse matrix. Convert it with {name}.toarray()."
    A = _as_numpy(X)
    if A is None:
        return (f"{name} must be a rectangular array; got a ragged nested sequence. Give every sample the same "
                "number of features.")
    if np.iscomplexobj(A):
        return (f"{name} must be real-valued; got complex data. Pass the real part ({name}.real) or the modulus "
                f"(abs({name})) if that is what you mean.")
    real = _real(A)
    if real is None:
        return (f"{name} must contain real numbers; got dtype {A.dtype}. Encode strings or categories numerically "
                "first (e.g. with sklearn.preprocessing.OneHotEncoder).")
    if ensure_2d and A.ndim < 2:
        return (f"{name} must be a 2-D array of shape (n_samples, n_features); got {shape_txt}. Reshape a single "
                f"feature with {name}.reshape(-1, 1) or a single sample with {name}.reshape(1, -1).")
    if A.ndim > 2:
        return (f"{name} must be a 2-D array of shape (n_samples, n_features); got {shape_txt}. Flatten the "
                f"trailing axes, e.g. {name}.reshape(len({name}), -1).")
    if real.size == 0:
        return f"{name} is empty ({shape_txt}); pass at least one sample and one feature."
    if ensure_all_finite and not np.isfinite(real).all():
        return (f"{name} contains NaN or infinite values (NaN and inf are not allowed). Remove or impute them "
                "first, e.g. with sklearn.impute.SimpleImputer.")
    return f"{name} is not a valid {'2-D ' if ensure_2d else ''}array of real numbers."


def all_finite(X):
    """True when every entry of the float array ``X`` is finite: one sum (no n x m temporary),
    and the elementwise test only when the sum is not finite (it can overflow from finite values)."""
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(X.sum()):
            return True
    return bool(np.isfinite(X).all())


def check_array(X, name="X", *, ensure_2d=True, allow_empty=False, copy=False, ensure_all_finite=True):
    """Validate an array-like and return it as a C-contiguous float64 :class:`numpy.ndarray`.

    The one array checker of the library, called once per input at the public boundary (see
    :func:`rkmlearn._validation.validate`). Wraps :func:`sklearn.utils.check_array`; on failure the
    message starts with ``name`` and says how to fix the input, scikit-learn's message follows in brackets.

    ``X`` is any array-like (lists, arrays, DataFrames); ``name`` names it in messages. With
    ``ensure_2d=False`` a 1-D array is accepted too; ``allow_empty`` accepts zero samples or features;
    ``copy`` always copies (otherwise a C-contiguous float64 ``X`` is returned itself);
    ``ensure_all_finite=False`` leaves NaN and inf to the caller (its own message). Raises
    ``ValueError`` on NaN or inf, complex values, non-numbers, empty input, wrong dimensions or
    ragged lists (sparse input: :class:`InputTypeError`, a ``ValueError``).
    """
    min_size = 0 if allow_empty else 1
    try:
        out = _sk_check_array(X, accept_sparse=False, dtype=np.float64, order="C", copy=copy,
                              ensure_all_finite=ensure_all_finite,
                              ensure_2d=ensure_2d, allow_nd=False, ensure_min_samples=min_size,
                              ensure_min_features=min_size if ensure_2d else 0, input_name=name)
    except (ValueError, TypeError) as exc:
        error = InputTypeError if isinstance(exc, TypeError) else ValueError
        raise error(f"{_diagnose(X, name, ensure_2d, ensure_all_finite)} [{str(exc).strip()}]") from exc
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


def check_square(K, name="K", *, kind="(n, n) matrix", advice=""):
    """The one square-matrix check: ``K`` validated by :func:`check_array`, ``n x n``.

    ``kind`` and ``advice`` complete the message: ``"{name} must be a square {kind}; got shape
    (n, m).{advice}"``.

    Examples
    --------
    >>> check_square([[1.0, 0.0], [0.0, 1.0]]).shape
    (2, 2)
    """
    K = check_array(K, name)
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"{name} must be a square {kind}; got shape {K.shape}.{advice}")
    return K


def check_series(series, name="series", *, multivariate=False):
    """The one rule of a time series: finite float64 values in time order.

    Univariate (default): shape (T,) or (T, 1), returned as (T,); any other shape is a ValueError
    naming ``name``. ``multivariate``: shape (T, d), a 1-D series being one column, returned (T, d).
    """
    values = check_array(series, name, ensure_2d=False)
    if multivariate:
        return values[:, None] if values.ndim == 1 else values
    if values.ndim != 1:
        if values.shape[1] != 1:
            raise ValueError(f"{name} must be a 1-D series; got shape {values.shape}. Pass a flat array of values "
                             "in time order.")
        values = values[:, 0]
    return values


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


def is_dask(X):
    """True for a ``dask.array.Array`` (checked by module, so that Dask stays optional)."""
    return type(X).__module__.split(".")[0] == "dask" and hasattr(X, "to_delayed")


def check_dask(X, name):
    """A 2-D float Dask array chunked by rows only (its values are checked chunk by chunk when used)."""
    if np.issubdtype(X.dtype, np.complexfloating):  # astype(float64) would drop the imaginary part
        raise ValueError(f"{name} must be real-valued; got a complex Dask array (dtype {X.dtype}). Pass the real "
                         f"part ({name}.real) or the modulus (abs({name})) if that is what you mean.")
    if X.ndim != 2 or not np.issubdtype(X.dtype, np.number):
        raise ValueError(f"{name} must be a 2-D numeric Dask array (rows = samples); got ndim={X.ndim}, dtype={X.dtype}.")
    if len(X.chunks[1]) != 1:
        X = X.rechunk({1: -1})  # the feature map needs whole rows
    return X.astype(np.float64)
