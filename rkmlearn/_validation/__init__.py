"""Input validation shared by every estimator and function of :mod:`rkmlearn`, done once at the door.

* :mod:`~rkmlearn._validation.arrays`: the one array checker :func:`check_array`, lists of views,
  square matrices, the columns of new inputs, Dask arrays;
* :mod:`~rkmlearn._validation.scalars`: integers in a range, real intervals, option strings,
  booleans, class labels, ``random_state``;
* :mod:`~rkmlearn._validation.boundary`: :func:`validate`, the declarative checks of a public
  function or method (run once per call from outside the library; nested calls trust their
  inputs), and the one home of each kernel / feature-map rule.

Every check raises a :class:`ValueError` whose message starts with the name of the offending
parameter and says how to fix it.
"""

from .arrays import (InputTypeError, all_finite, check_array, check_dask, check_n_features, check_series,
                     check_square, check_views, is_dask)
from .boundary import (array, check_feature_map, check_kernel_or_feature_map, check_kernel_params, check_two_samples,
                       checked_by, in_range, nested, primal_needs_features, series, square, user_code,
                       validate, views)
from .scalars import (check_bool, check_class_labels, check_n_components, check_option, check_random_state,
                      check_scalar_range, check_seed)

__all__ = [
    "InputTypeError", "check_array", "check_views", "check_square", "check_n_features", "is_dask", "check_dask",
    "check_n_components", "check_scalar_range", "check_option", "check_bool", "check_class_labels",
    "check_random_state", "check_seed", "validate", "nested", "array", "square", "views", "check_kernel_params",
    "check_feature_map", "primal_needs_features", "check_kernel_or_feature_map", "checked_by", "check_two_samples", "series", "user_code", "in_range",
    "all_finite", "check_series",
]
