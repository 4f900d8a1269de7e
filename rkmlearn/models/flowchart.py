"""The training-algorithm flowchart of the duality paper (its Figure 1): :func:`choose_algorithm`.

Chapter 5 explains the three decisions (explicit feature map? trainable parameters? primal or
dual by the size of the problem).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_bool, check_scalar_range

__all__ = ["AlgorithmChoice", "choose_algorithm"]


@dataclass(frozen=True)
class AlgorithmChoice:
    """Result of :func:`choose_algorithm`."""

    algorithm: int
    setting: str
    solver: str
    augmented_loss: bool
    reason: str

    def __str__(self):
        star = "*" if self.augmented_loss else ""
        return f"Algorithm {self.algorithm}{star} ({self.setting}, {self.solver}): {self.reason}"


def choose_algorithm(n, feature_dims=None, feature_map_known=True, parametric=False):
    """The training algorithm the duality paper's Figure 1 flowchart recommends.

    Decisions, in the flowchart's order: no explicit feature map -> dual (Algorithm 2, or 4 with an
    augmented loss for a parametric pre-image map); trainable feature-map parameters -> Stiefel
    (3 or 4) with an augmented loss; otherwise the smaller problem: primal when ``d_f < n``
    (``d_f = sum_v d_{f,v}``), else dual.

    Parameters
    ----------
    n : int
        Number of training samples.
    feature_dims : int, list of int or None
        Feature-space dimension of each view (or their sum ``d_f``); ``None`` when unknown or
        infinite (an implicit kernel).
    feature_map_known : bool, default=True
    parametric : bool, default=False

    Returns
    -------
    AlgorithmChoice
        ``algorithm`` (1-4), ``setting``, ``solver``, ``augmented_loss`` and the ``reason``.

    Examples
    --------
    >>> print(choose_algorithm(1000, [5000, 1]))
    Algorithm 2 (dual, eig): d_f = 5001 >= n = 1000: the n x n kernel matrix is the smaller problem.
    """
    n = check_scalar_range(n, "n", low=2, low_inclusive=True, integer=True)
    feature_map_known = check_bool(feature_map_known, "feature_map_known")
    parametric = check_bool(parametric, "parametric")
    if feature_dims is None:
        d_f = None
    else:
        dims = [feature_dims] if np.isscalar(feature_dims) else list(feature_dims)
        dims = [check_scalar_range(d, "feature_dims", low=1, low_inclusive=True, integer=True) for d in dims]
        d_f = int(sum(dims))
    if not feature_map_known or d_f is None:
        if parametric:
            return AlgorithmChoice(4, "dual", "stiefel", True,
                                   "no explicit feature map: dual only; a parametric pre-image map is trained "
                                   "jointly, so Stiefel training with an augmented loss.")
        return AlgorithmChoice(2, "dual", "eig",
                               False, "no explicit feature map: only the dual (kernel) setting is available.")
    smaller = "primal" if d_f < n else "dual"
    size = (f"d_f = {d_f} < n = {n}: the d_f x d_f cross-covariance is the smaller problem."
            if smaller == "primal" else
            f"d_f = {d_f} >= n = {n}: the n x n kernel matrix is the smaller problem.")
    if parametric:
        algorithm = 3 if smaller == "primal" else 4
        return AlgorithmChoice(algorithm, smaller, "stiefel", True,
                               "trainable feature-map parameters: Stiefel training with an augmented loss; " + size)
    algorithm = 1 if smaller == "primal" else 2
    return AlgorithmChoice(algorithm, smaller, "eig", False, size)
