"""Column names of a pandas DataFrame, scikit-learn's convention, for every estimator of rkmlearn.

A fit given a DataFrame records ``feature_names_in_``; transform / predict / score given one checks
its columns against them: other names or another order raise a ValueError, a DataFrame after a fit
on an array (or an array after a fit on a DataFrame) warns. It is scikit-learn's own check
(``sklearn.utils.validation._check_feature_names``), run by :func:`~rkmlearn._validation.validate`
on the data argument (``X`` or ``Xs``) BEFORE it becomes a float64 array and the names are lost.
A list of views carries no names (as in scikit-learn, only a DataFrame has them).
"""

from __future__ import annotations

from sklearn.base import BaseEstimator
from sklearn.utils.validation import _check_feature_names

#: Methods that learn the columns (reset) and those that read new data with them (check).
_RECORDS = frozenset({"fit", "fit_transform", "partial_fit"})
_CHECKS = frozenset({"transform", "predict", "predict_proba", "predict_log_proba", "decision_function",
                     "score", "score_samples"})
_DATA = ("X", "Xs")


def feature_names(method, arguments):
    """Record or check the column names of ``arguments``' data (the raw input, before conversion)."""
    estimator = arguments.get("self")
    if not isinstance(estimator, BaseEstimator) or (method not in _RECORDS and method not in _CHECKS):
        return
    data = next((arguments[name] for name in _DATA if name in arguments), None)
    if isinstance(data, (list, tuple)) and method in _RECORDS and hasattr(estimator, "feature_names_in_"):
        del estimator.feature_names_in_  # refitted on a list of views: the names of an earlier fit are gone
    if data is None or isinstance(data, (list, tuple)):  # no data argument, or a list of views
        return
    _check_feature_names(estimator, data, reset=method in _RECORDS)
