"""The training steps of :class:`~rkmlearn.models.deep.DeepRKMClassifier` (Chapter 9), as functions.

Per-level parameters (:func:`check_levels`), the paper's bandwidth rule (:func:`median_distance`),
the initial levels (:func:`initial_levels`: random, greedy deep KPCA by
:func:`~rkmlearn.level.solve_level`, or given), the joint deep KPCA (:func:`joint_dkpca`), the
classifier's initial weights and loss (:func:`initial_classifier`), and the joint training of
:eq:`eq-deep-pgd` (:func:`train`) by :func:`~rkmlearn.solvers.optimisers.projected_gradient`: the
levels are Stiefel blocks, the weights Euclidean blocks, line-searched (LS-SVM) or moved by
:class:`~rkmlearn.solvers.optimisers.Adam` (MLP, as the paper).
"""

from __future__ import annotations

import numpy as np

from ..._validation import check_array, check_kernel_params, check_n_components, check_scalar_range
from ...kernels import Linear, squared_euclidean_distances
from ...kernels.zoo import extreme_scale
from ...level import solve_level
from ...solvers.optimisers import projected_gradient
from ...solvers.stiefel import constraint_violation, project_stiefel
from ...views import View
from ..coding import encode_labels, output_codebook
from .objective import deep_objective, lssvm_loss, mlp_loss

__all__ = ["auto_components", "check_levels", "median_distance", "distance_unit", "initial_levels", "joint_dkpca", "initial_classifier", "train"]


def _per_level(value, L, name, kind):
    """Broadcast a per-level parameter: one value for every level, or a list of ``L`` values."""
    if isinstance(value, (list, tuple)):
        if len(value) != L:
            raise ValueError(
                f"{name} must be one {kind} or a list of one per level ({L} levels, from n_components); "
                f"got {len(value)} values."
            )
        return list(value)
    return [value] * L


def auto_components(n_classes, n):
    """``n_components="auto"``: two levels of ``min(max(3, p - 1), n - 1)`` components for ``p`` classes
    and ``n`` samples: the book's ``(3, 3)`` for one binary problem, and room in the last level for the
    ``p`` one-vs-all outputs, which ``p - 1`` features can all fit (Chapter 9); ``(1, 1)`` for 2 samples."""
    k = min(max(3, n_classes - 1), max(n - 1, 1))
    return (k, k)


def check_levels(model, n, n_classes):
    """``(s, kernel names, kernel_params, etas)`` per level from the estimator's parameters."""
    s = model.n_components
    if isinstance(s, str) and s == "auto":
        s = auto_components(n_classes, n)
    elif isinstance(s, str):
        raise ValueError(f"n_components must be 'auto', an int or a sequence of ints (one per level); got {s!r}.")
    s = list(s) if isinstance(s, (list, tuple)) else [s]
    if len(s) < 1:
        raise ValueError("n_components must name at least one level (n_levels >= 1), e.g. (3, 3).")
    s = [check_n_components(v, n - 1, "n_components", what="n_samples - 1") for v in s]
    L = len(s)
    params = _per_level(model.kernel_params, L, "kernel_params", "dict or None")
    if model.kernels is None:  # RBF level 1; a deeper level is RBF if given a bandwidth, else linear
        kernels = ["rbf"] + ["rbf" if isinstance(p, dict) and "sigma" in p else "linear" for p in params[1:]]
    else:
        kernels = model.kernels
    names = _per_level(kernels, L, "kernels", "kernel")
    for j, p in enumerate(params):
        check_kernel_params(p, f"kernel_params[{j}]")
        if p is not None and "sigma" in p:
            # the gradient of an RBF level divides by sigma^2 (kernel_trace_gradient): it must be a
            # normal float64, and so must 1 / sigma^2
            sigma = check_scalar_range(p["sigma"], f"kernel_params[{j}]['sigma']", low=0.0)
            if not 1e-150 <= sigma <= 1e150:
                raise ValueError(
                    f"kernel_params[{j}]['sigma'] must lie in [1e-150, 1e150] (its square and inverse "
                    f"square must be finite float64 numbers); got {sigma!r}. Use a bandwidth on the "
                    "scale of the level's inputs (level 1: the distances between samples; level j >= 2: "
                    "about sqrt(s_(j-1) / n_samples))."
                )
    etas = [check_scalar_range(e, "etas", low=0.0) for e in _per_level(model.etas, L, "etas", "float")]
    return s, names, params, etas


def median_distance(X):
    """Median distance between two distinct rows of ``X`` (the paper's RBF bandwidth rule).

    Scale-free: ``X`` of extreme magnitude (``X * 1e-300``, ``X * 1e300``) is divided by a power of two
    (:func:`distance_unit`) before the squares, whose under/overflow made it look constant or infinite."""
    unit = distance_unit(X)
    if unit != 1.0:
        return unit * median_distance(X / unit)
    D = squared_euclidean_distances(X)
    d = np.sqrt(D[np.triu_indices_from(D, k=1)])
    d = d[d > 0]
    if d.size == 0:
        raise ValueError("X: all samples are identical (constant X); the classifier has nothing to learn.")
    return float(np.median(d))


def distance_unit(X, Y=None):
    """1.0 for ordinary inputs; for entries of extreme magnitude, the power of two to divide them by
    before squared distances are taken (:func:`rkmlearn.kernels.zoo.extreme_scale`)."""
    unit = extreme_scale(X, Y)
    return 1.0 if unit is None else unit


def joint_dkpca(K0_c, kernels, etas, Hs, *, max_iter, tol):
    """The paper's deep KPCA: all levels minimise their joint objective, from the greedy levels.

    Returns the levels and the iterations taken."""
    fun, grad = deep_objective(K0_c, kernels, etas)
    result = projected_gradient(fun, grad, Hs, blocks=("stiefel",) * len(Hs), max_iter=max_iter, tol=tol)
    return list(result.X), result.n_iter


def initial_levels(init, X, view, s, kernels, rng):
    """The ``H_j`` training starts from: given arrays (projected), random, or the greedy deep KPCA."""
    if isinstance(init, (list, tuple)):  # given levels, e.g. one DKPCA shared by p binary models
        if len(init) != len(s):
            raise ValueError(f"init: one array per level ({len(s)}) is needed; got {len(init)}.")
        Hs = [check_array(H, f"init[{j}]") for j, H in enumerate(init)]
        for j, (H, sj) in enumerate(zip(Hs, s)):
            if H.shape != (X.shape[0], sj):
                raise ValueError(f"init[{j}] must have shape {(X.shape[0], sj)} (n_samples, s_j); got {H.shape}.")
        return [project_stiefel(H) for H in Hs]
    if init == "random":
        return [np.linalg.svd(rng.standard_normal((X.shape[0], sj)), full_matrices=False)[0] for sj in s]
    seed = rng.randint(np.iinfo(np.int32).max)  # ARPACK's start vector: the same H for the same seed
    Hs = [solve_level([view], s[0], random_state=seed, name="DeepRKMClassifier level 1").H]
    for j, (sj, kernel) in enumerate(zip(s[1:], kernels), start=2):
        if isinstance(kernel, Linear) and sj < Hs[-1].shape[1]:
            # a tie, resolved by a documented rule instead of rounding: the centred linear Gram matrix of
            # H_(j-1) (orthonormal, centred columns) is the projection H_(j-1) H_(j-1)^T, all of whose
            # nonzero eigenvalues are 1, so every s_j-dimensional subspace of span(H_(j-1)) is a greedy
            # KPCA level; take the leading s_j columns of H_(j-1) (its level's largest eigenvalues)
            Hs.append(Hs[-1][:, :sj].copy())
            continue
        Hs.append(solve_level([View(kernel=kernel)], sj, random_state=seed, name=f"DeepRKMClassifier level {j}",
                              Xs=[Hs[-1]]).H)  # the level fits the view: one kernel evaluation
    return Hs


def initial_classifier(classifier, n_classes, s_last, labels, lam, eta, n_hidden, rng):
    """The classifier's initial weights ``theta`` (list of blocks) and its loss ``head(H, *theta)``."""
    if classifier == "lssvm":
        Y = encode_labels(labels, output_codebook(n_classes, "ova"))  # +-1, one output for two classes
        theta = [rng.standard_normal((s_last + 1, Y.shape[1])) / np.sqrt(s_last + 1)]

        def head(H, t):
            return lssvm_loss(H, t, Y, lam, eta)

        return theta, head
    theta = [rng.standard_normal((s_last + 1, n_hidden)) / np.sqrt(s_last + 1),
             rng.standard_normal((n_hidden + 1, n_classes)) / np.sqrt(n_hidden + 1)]

    def head(H, t1, t2):
        return mlp_loss(H, t1, t2, labels, lam, eta)

    return theta, head


def train(K0_c, kernels, etas, head, Hs, theta, *, adam, fine_tune, max_iter, tol):
    """Joint training :eq:`eq-deep-pgd`: ``(H's, theta, OptimiserResult)``.

    ``adam``: None (the weights share the levels' line search, LS-SVM) or the :class:`Adam` of the
    weights (MLP). Without ``fine_tune`` the levels stay and only the weights move."""
    L = len(Hs)
    fun, grad = deep_objective(K0_c, kernels, etas, head=head)
    weights, rules = ("euclidean",) * len(theta), (adam,) * len(theta)
    if fine_tune:
        result = projected_gradient(fun, grad, Hs + theta, blocks=("stiefel",) * L + weights,
                                    update=(None,) * L + rules, max_iter=max_iter, tol=tol)
        return result.X[:L], result.X[L:], result

    def fun_t(t):
        return fun(Hs + t)

    def grad_t(t):
        return grad(Hs + t)[L:]

    result = projected_gradient(fun_t, grad_t, theta, blocks=weights, update=rules, max_iter=max_iter, tol=tol)
    result.history["constraint_violation"] = [max(constraint_violation(H) for H in Hs)] * len(
        result.history["objective"])
    return Hs, result.X, result
