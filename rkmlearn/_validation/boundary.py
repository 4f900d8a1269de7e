"""Validate once, at the public boundary: the :func:`validate` decorator and its rules.

A public function or estimator method declares what its inputs must be, as scikit-learn's
``validate_params`` and ``_fit_context`` do; the checks run when the call comes from outside the
library. Inside a validated call every nested validated call trusts its inputs (they are the
library's own, checked once already): a fit checks each input array exactly once, and the cores
(kernels, centring, the level, the solvers) never re-check what their caller built.

The rules of the kernel / feature-map options live here too, each written once: a kernel
specification (:func:`check_kernel_params`), a feature map (:func:`check_feature_map`) and the
primal setting's need for explicit features (:func:`primal_needs_features`).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect

import numpy as np

from .arrays import check_array, check_dask, check_series, check_square, check_views, is_dask
from .feature_names import feature_names
from .scalars import check_scalar_range

__all__ = ["validate", "nested", "user_code", "array", "series", "square", "views", "in_range", "checked_by", "check_two_samples", "check_kernel_params", "check_feature_map",
           "primal_needs_features", "check_kernel_or_feature_map"]

#: True inside a validated call: nested validated calls skip their checks.
_NESTED = contextvars.ContextVar("rkmlearn_validated", default=False)


def nested():
    """True when the current call runs inside a validated public call (its inputs are trusted)."""
    return _NESTED.get()


@contextlib.contextmanager
def user_code():
    """Run code the library does not own (a callable kernel, a user's feature map) as a caller from
    outside: a call it makes into the library on its own data is checked like any other, even in
    the middle of a validated fit."""
    token = _NESTED.set(False)
    try:
        yield
    finally:
        _NESTED.reset(token)


def validate(*, then=None, **rules):
    """Decorator: check the declared inputs of a public function or method once, at the boundary.

    Parameters
    ----------
    then : callable or str, optional
        ``then(arguments)`` after the rules, for checks across parameters (``arguments`` maps
        every parameter name, ``self`` included, to its checked value; it may replace them); a
        str names a method of ``self``, called as ``self.<then>(arguments)``.
    **rules
        Parameter name -> ``rule(value, name, arguments) -> checked value``, e.g. :func:`array`.

    Examples
    --------
    >>> @validate(X=array())
    ... def total(X):
    ...     return float(X.sum())
    >>> total([[1, 2], [3, 4]])
    10.0
    """
    def decorate(func):
        signature = inspect.signature(func)

        @functools.wraps(func)
        def boundary(*args, **kwargs):
            if _NESTED.get():  # called by the library itself: the inputs were checked at the door
                return func(*args, **kwargs)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            arguments = bound.arguments
            feature_names(func.__name__, arguments)  # a DataFrame's columns, before they are dropped
            for name, rule in rules.items():
                arguments[name] = rule(arguments[name], name, arguments)
            if isinstance(then, str):
                getattr(arguments["self"], then)(arguments)
            elif then is not None:
                then(arguments)
            token = _NESTED.set(True)
            try:
                return func(*bound.args, **bound.kwargs)
            finally:
                _NESTED.reset(token)

        return boundary

    return decorate


def _label(name, param, arguments):
    """The name used in messages: ``name`` (formatted with the arguments, e.g. ``"{name}"``) or the parameter's."""
    return param if name is None else name.format(**arguments)


def array(name=None, *, ensure_2d=True, optional=False, dask=False, memmap=False):
    """Rule: a 2-D (or 1-D) finite float64 array (:func:`~rkmlearn._validation.check_array`).

    ``optional`` lets None through; ``dask`` lets a Dask array through (checked as a whole, its
    values chunk by chunk when used); ``memmap``: a float64 :class:`numpy.memmap` stays that memmap
    (checked, not copied: a streamed fit reads it from disk a chunk at a time).
    """
    def rule(value, param, arguments):
        if value is None and optional:
            return None
        label = _label(name, param, arguments)
        if dask and is_dask(value):
            return check_dask(value, label)
        checked = check_array(value, label, ensure_2d=ensure_2d)
        if memmap and isinstance(value, np.memmap) and checked.shape == value.shape and np.may_share_memory(
                checked, value):
            return value  # the same buffer, unconverted: keep the memmap itself
        return checked

    return rule


def series(name=None, *, multivariate=False):
    """Rule: a time series (:func:`~rkmlearn._validation.check_series`)."""
    def rule(value, param, arguments):
        return check_series(value, _label(name, param, arguments), multivariate=multivariate)

    return rule


def square(name=None, *, kind="(n, n) matrix", advice=""):
    """Rule: a square matrix (:func:`~rkmlearn._validation.check_square`)."""
    def rule(value, param, arguments):
        return check_square(value, _label(name, param, arguments), kind=kind, advice=advice)

    return rule


def views(name=None, *, min_views=1):
    """Rule: a list of views sharing their samples (:func:`~rkmlearn._validation.check_views`)."""
    def rule(value, param, arguments):
        return check_views(value, _label(name, param, arguments), min_views=min_views)

    return rule


def in_range(**interval):
    """Rule: a number in an interval (:func:`~rkmlearn._validation.check_scalar_range`'s keywords)."""
    def rule(value, param, arguments):
        return check_scalar_range(value, param, **interval)

    return rule


def checked_by(method):
    """Rule: the estimator's own check ``self.<method>(value)`` (e.g. fitted, the training columns)."""
    def rule(value, param, arguments):
        return getattr(arguments["self"], method)(value)

    return rule


def check_two_samples(n_samples, name, who):
    """The one rule of centring: at least 2 samples (one sample is its own mean)."""
    if n_samples < 2:
        raise ValueError(
            f"{name} has 1 sample (n_samples = 1), but {who} needs at least 2 samples to centre the features; "
            "pass more samples."
        )


def check_kernel_params(kernel_params, name="kernel_params"):
    """The one rule of a named kernel's parameters: a dict (e.g. ``{"sigma": 2.0}``) or None."""
    if kernel_params is not None and not isinstance(kernel_params, dict):
        raise ValueError(f"{name} must be a dict such as {{'sigma': 2.0}} or None, got {kernel_params!r}.")
    return kernel_params


def check_feature_map(feature_map, name="feature_map"):
    """The one rule of an explicit feature map: None or a transformer (``fit_transform`` and ``transform``)."""
    if feature_map is not None and not (hasattr(feature_map, "fit_transform") and hasattr(feature_map, "transform")):
        raise ValueError(
            f"{name} must be a transformer with fit_transform and transform (e.g. "
            f"rkmlearn.features.RandomFourierFeatures()), got {feature_map!r}."
        )
    return feature_map


def primal_needs_features(where, fix="use setting='dual'"):
    """The one error of a primal computation without explicit features: ``where`` says what lacks them."""
    return ValueError(
        f"{where}: the primal setting needs explicit features. Give it a feature_map (e.g. "
        f"rkmlearn.features.RandomFourierFeatures(...) or IdentityFeatures()), or {fix}."
    )


def check_kernel_or_feature_map(kernel, kernel_params, feature_map, setting, *, default_kernel="rbf"):
    """Validate the kernel / explicit-feature-map options shared by the single-view estimators.

    A model works either with a kernel (``kernel`` + ``kernel_params``, dual setting only) or with an
    explicit ``feature_map`` (then its kernel is the linear kernel of the features, and ``kernel``
    and ``kernel_params`` must stay at their defaults: ``default_kernel`` or None, and None). The
    primal setting needs the feature map.

    Parameters
    ----------
    kernel : str, Kernel, callable or None
    kernel_params : dict or None
    feature_map : transformer or None
    setting : {"dual", "primal"}
    """
    check_kernel_params(kernel_params)
    if feature_map is not None:
        check_feature_map(feature_map)
        unchanged = kernel is None or (isinstance(kernel, str) and kernel == default_kernel)
        if kernel_params is not None or not unchanged:
            raise ValueError(
                "kernel and kernel_params are not used when feature_map is given (the kernel is "
                "then the linear kernel of the features); leave them at their defaults, or set "
                "feature_map=None to use the kernel."
            )
    elif setting == "primal":
        raise primal_needs_features("feature_map is required for setting='primal'")
