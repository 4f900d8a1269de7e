"""Step sizes of the projected gradient method: Armijo backtracking from a Barzilai-Borwein step.

:class:`LineSearch` holds the three constants (checked once, where the optimiser is called);
:func:`armijo_search` backtracks from a trial step, :func:`barzilai_borwein` proposes the next one.
Both work on lists of blocks (a product manifold), through the inner product summed over blocks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_scalar_range
from .stiefel import inner

__all__ = ["LineSearch", "armijo_search", "barzilai_borwein", "LINE_SEARCH_FAILED"]

_EPS = np.finfo(np.float64).eps

LINE_SEARCH_FAILED = "line search failed: no step decreased the objective (rounding level reached?)"


@dataclass(frozen=True)
class LineSearch:
    """Constants of :func:`armijo_search`: sufficient decrease ``armijo`` and backtracking factor
    ``shrink`` (both in (0, 1)), ``max_backtracks`` trials per iteration before it fails."""

    armijo: float = 1e-4
    shrink: float = 0.5
    max_backtracks: int = 60

    def __post_init__(self):
        for name in ("armijo", "shrink"):
            check_scalar_range(getattr(self, name), name, low=0.0, high=1.0, high_inclusive=False)
        check_scalar_range(self.max_backtracks, "max_backtracks", low=1, low_inclusive=True, integer=True)


def armijo_search(evaluate, move, f, t, snorm2, rule):
    """Backtracking from the trial step ``t``: ``(X_new, t)`` of the first accepted step, or None.

    ``move(t)`` is the iterate after a step ``t``; ``evaluate(X)`` its objective; ``snorm2`` the
    squared norm of the searched direction; ``rule`` a :class:`LineSearch`. Accepted: the Armijo
    decrease ``armijo t snorm2``, or, once that is below the rounding level ``32 eps max(1, |f|)``,
    no increase beyond it.
    """
    floor = 32.0 * _EPS * max(1.0, abs(f))  # rounding level of fun near X
    for _ in range(rule.max_backtracks):
        X_new = move(t)
        f_new = float(evaluate(X_new))
        required = rule.armijo * t * snorm2
        if np.isfinite(f_new) and (f_new <= f - required or (required <= floor and f_new <= f + floor)):
            return X_new, t
        t *= rule.shrink
    return None


def barzilai_borwein(S, Y, k, t, shrink):
    """The next trial step from the displacement ``S`` and the change ``Y`` of the Riemannian gradient.

    Alternating BB1/BB2 avoids the zig-zag of either alone; no curvature information: a larger step.
    """
    sy = abs(inner(S, Y))
    if sy > 0:
        t = inner(S, S) / sy if k % 2 == 0 else sy / inner(Y, Y)
    else:
        t = t / shrink
    return min(max(t, 1e-20), 1e20)
