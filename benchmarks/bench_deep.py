"""Deep RKM classifier (Part IV): cost of one projected-gradient iteration vs its floor, and a fit.

For 1, 2 and 3 KPCA levels (``6 | 3+3 | 2+2+2`` components, RBF first level, linear deeper levels,
the chapter's set-up) on ``N`` digits, the time of one evaluation of objective + gradient
(:func:`rkmlearn.models.deep.objective.deep_objective`) plus the compact-SVD projections of every
level is compared with its floor: ``K0_c @ H`` (the level-1 product) and the SVDs, as ratios in one
run. Then ``DeepRKMClassifier((3, 3))`` is fitted on ``N`` digits for 100 iterations, with its
time and peak Python memory (``tracemalloc``); last, every model with its defaults against
scikit-learn's ``SVC`` and ``MLPClassifier`` on one split (time and test accuracy). CPU times (``time.process_time``) with one BLAS
thread; printed, never asserted.

``python benchmarks/bench_deep.py`` (N = 1000) or ``--quick`` (N = 300).
"""
from __future__ import annotations

import argparse
import os
import time
import tracemalloc
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402

from rkmlearn import DeepRKMClassifier  # noqa: E402
from rkmlearn.datasets import load_digits_split  # noqa: E402
from rkmlearn.kernels import RBF, GramCenterer, Linear  # noqa: E402
from rkmlearn.models.deep.objective import deep_objective, lssvm_loss  # noqa: E402
from rkmlearn.solvers.stiefel import _polar, project_stiefel  # noqa: E402

from _timing import best_cpu  # noqa: E402  (benchmarks/_timing.py)

ARCHITECTURES = {"1 level": (6,), "2 levels": (3, 3), "3 levels": (2, 2, 2)}


def main(quick=False):
    N = 300 if quick else 1000
    repeat = 3 if quick else 7
    data = load_digits_split(N, n_test=10, random_state=0)
    X, y = data.X_train, data.y_train
    K0_c = GramCenterer().fit_transform(RBF(3.0)(X))
    Y = np.where(y[:, None] == np.arange(10)[None, :], 1.0, -1.0)
    rng = np.random.default_rng(0)
    print(f"one PGD iteration (objective + gradient + projections), N = {N}, CPU ms (best of {repeat})")
    print(f"{'':>9} {'iteration':>10} {'floor':>8} {'ratio':>7}")
    for name, s in ARCHITECTURES.items():
        Hs = [project_stiefel(rng.normal(size=(N, sj))) for sj in s]
        theta = [rng.normal(size=(s[-1] + 1, 10))]
        fun, grad = deep_objective(K0_c, [Linear()] * (len(s) - 1), [1.0] * len(s),
                                   head=lambda H, t: lssvm_loss(H, t, Y, 0.5, 1.0))

        def iteration():
            # a new point (fresh arrays, as each step of the optimiser makes): the objective there
            # (the line search's accepted trial), the gradient at the same point, the projections
            point = [H.copy() for H in Hs] + theta
            fun(point)
            G = grad(point)
            return [_polar(H - 1e-3 * g) for H, g in zip(point[:len(Hs)], G)]  # the optimiser's retraction

        def floor():
            K0_c @ Hs[0]
            return [np.linalg.svd(H, full_matrices=False) for H in Hs]

        t_it, t_floor = best_cpu(iteration, repeat), best_cpu(floor, repeat)
        print(f"{name:>9} {1e3 * t_it:>10.2f} {1e3 * t_floor:>8.2f} {t_it / t_floor:>7.1f}")
    if quick:
        print("(N = 300: the floor is a few tens of microseconds, so Python's overhead sets the ratio; "
              "issue 24's goal, <= 1.5x, is for N = 1000, the full run)")
    tracemalloc.start()
    t0 = time.process_time()
    with warnings.catch_warnings():  # the paper's fixed budget of 100 iterations does not converge
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = DeepRKMClassifier((3, 3), kernels=["rbf", "linear"], kernel_params=[{"sigma": 3.0}, None],
                                  smoother_sigma=0.5, max_iter=100, random_state=0).fit(X, y)
    elapsed = time.process_time() - t0
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    print(f"fit DeepRKMClassifier((3, 3)), N = {N}, {model.n_iter_} iterations: {elapsed:.2f} s CPU, "
          f"peak traced memory {peak:.1f} MB (an N x N float64 matrix is {N * N * 8 / 2**20:.1f} MB)")
    against_peers(N, 100 if quick else 500, repeat)


def against_peers(n_train, n_test, repeat):
    """Every model with its DEFAULTS on the same digits split: fit + predict CPU time and test accuracy.

    The peers of issue 24: scikit-learn's ``SVC()`` and ``MLPClassifier(random_state=0)``; the deep
    RKM is ``DeepRKMClassifier(random_state=0)`` (``n_components="auto"``: (9, 9) for ten digits), nothing tuned.
    """
    from sklearn.neural_network import MLPClassifier
    from sklearn.svm import SVC

    data = load_digits_split(n_train, n_test=n_test, random_state=0)
    models = {
        "DeepRKMClassifier()": lambda: DeepRKMClassifier(random_state=0),
        "SVC()": SVC,
        "MLPClassifier()": lambda: MLPClassifier(random_state=0),
    }
    print(f"defaults on digits ({n_train} train / {n_test} test): fit + predict CPU s (best of {repeat}), test accuracy")
    for name, make in models.items():
        result = {}

        def fit_predict():
            with warnings.catch_warnings():  # the deep RKM's fixed 100-step budget, MLP's 200 epochs: expected
                warnings.simplefilter("ignore", ConvergenceWarning)
                predicted = make().fit(data.X_train, data.y_train).predict(data.X_test)
            result["accuracy"] = float(np.mean(predicted == data.y_test))

        print(f"{name:>26} {best_cpu(fit_predict, repeat):8.3f} s {100 * result['accuracy']:6.1f} %")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    main(quick=parser.parse_args().quick)
