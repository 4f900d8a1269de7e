"""Estimator plumbing shared by every RKM model: parameter checks, level options, warnings.

Nothing here is model-specific. The options of an RKM level (:func:`rkmlearn.level.solve_level`)
and their defaults are declared ONCE in :data:`LEVEL_OPTIONS` / :data:`LEVEL_DEFAULTS`; every
estimator's signature takes its defaults from there, so they cannot drift apart.
"""

from __future__ import annotations

import inspect
import warnings
from dataclasses import fields
from typing import NamedTuple

from sklearn.exceptions import ConvergenceWarning

from ._validation import check_bool, check_option, check_scalar_range
from .solvers.eigen import SOLVERS as EIGEN_SOLVERS
from .solvers.subspace import LevelOptions

__all__ = [
    "Range",
    "LEVEL_OPTIONS",
    "LEVEL_DEFAULTS",
    "check_parameters",
    "estimator_init",
    "REQUIRED",
    "ONE_VIEW_DEFAULTS",
    "level_defaults",
    "level_options",
    "LEVEL_RULES",
    "warn_not_converged",
]


class Range(NamedTuple):
    """A numeric parameter's interval, as :func:`rkmlearn._validation.check_scalar_range` takes it."""

    low: float | None = None
    high: float | None = None
    low_inclusive: bool = False
    integer: bool = False


#: Allowed values of each level option: a tuple of strings, ``bool`` or a :class:`Range`.
LEVEL_OPTIONS = {
    "setting": ("dual", "primal"),
    "solver": ("eig", "stiefel"),
    "rescale": bool,
    "rotate": bool,
    "eigen_solver": EIGEN_SOLVERS,
    "optimizer": ("pg", "cayley_adam"),
    "learning_rate": Range(low=0.0),
    "max_iter": Range(low=1, low_inclusive=True, integer=True),
    "tol": Range(low=0.0, low_inclusive=True),
    "verbose": bool,
}

#: The one default of each level option (the fields of :class:`~rkmlearn.solvers.subspace.LevelOptions`,
#: the object the level passes down to the optimiser), shared by KPCA, MultiViewKPCA, ProbabilisticKPCA.
LEVEL_DEFAULTS = {field.name: field.default for field in fields(LevelOptions)}


#: The parameters of the one-view estimators (KPCA, ProbabilisticKPCA): a kernel or a feature map.
ONE_VIEW_DEFAULTS = {"kernel": "rbf", "kernel_params": None, "feature_map": None}


def level_defaults(*without):
    """:data:`LEVEL_DEFAULTS` without the options ``without`` (those a model does not expose)."""
    return {name: value for name, value in LEVEL_DEFAULTS.items() if name not in without}


#: The "default" of a required parameter in an :func:`estimator_init` table.
REQUIRED = inspect.Parameter.empty


def estimator_init(positional, keyword):
    """An estimator ``__init__`` that stores its parameters unchanged (scikit-learn's rule).

    ``positional`` and ``keyword`` map names to defaults (positional-or-keyword, then keyword-only
    parameters; :data:`REQUIRED` for none). The function carries the real signature, so ``get_params``, ``clone``, ``repr``
    and ``help`` see the parameters; models declare theirs in one table instead of repeating
    ``self.x = x`` lines.

    Examples
    --------
    >>> from sklearn.base import BaseEstimator
    >>> class Model(BaseEstimator):
    ...     __init__ = estimator_init({"n_components": 2}, {"tol": 1e-10})
    >>> Model(3, tol=1e-6).get_params()
    {'n_components': 3, 'tol': 1e-06}
    """
    kinds = ((positional, inspect.Parameter.POSITIONAL_OR_KEYWORD), (keyword, inspect.Parameter.KEYWORD_ONLY))
    signature = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(name, kind, default=default) for names, kind in kinds for name, default in names.items()]
    )

    def __init__(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        for name, value in list(bound.arguments.items())[1:]:
            setattr(self, name, value)

    __init__.__signature__ = signature
    return __init__


def check_parameters(values, table):
    """Validate ``values[name]`` against ``table[name]`` for every name; return the checked dict.

    A tuple means one of those strings, ``bool`` True or False, a :class:`Range` a number in it.
    Every error is a ``ValueError`` that names the parameter and the allowed values.
    """
    out = {}
    for name, value in values.items():
        rule = table[name]
        if rule is bool:
            out[name] = check_bool(value, name)
        elif isinstance(rule, Range):
            out[name] = check_scalar_range(value, name, **rule._asdict())
        else:
            out[name] = check_option(value, name, rule)
    return out


def level_options(estimator, **fixed):
    """The level options of ``estimator`` (those among its parameters), validated, plus ``fixed``."""
    params = estimator.get_params(deep=False)
    values = {name: params[name] for name in LEVEL_OPTIONS if name in params}
    values.update(fixed)
    return check_parameters(values, LEVEL_OPTIONS)


def _level_option(value, name, arguments):
    """Rule (:func:`~rkmlearn._validation.validate`) of one level option, against :data:`LEVEL_OPTIONS`."""
    return check_parameters({name: value}, LEVEL_OPTIONS)[name]


#: The declared checks of :func:`rkmlearn.level.solve_level`'s options (run when a user calls it).
LEVEL_RULES = {name: _level_option for name in LEVEL_OPTIONS}


def warn_not_converged(who, n_iter, message):
    """The one ConvergenceWarning of an unconverged Stiefel optimisation."""
    warnings.warn(
        f"{who}: the Stiefel optimiser did not converge in {n_iter} iterations ({message}); the "
        "components may be inaccurate. Increase max_iter, loosen tol, or use solver='eig'.",
        ConvergenceWarning,
        stacklevel=4,
    )
