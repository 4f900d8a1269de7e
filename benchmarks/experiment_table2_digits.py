"""Table 2 of Tonin et al. (paper 003) on scikit-learn's 8 x 8 digits: the full grid of training sizes.

Chapter 9 shows Table 2 on real MNIST (``benchmarks/experiment_table2_mnist.py``); this script is
its counterpart on the small 8 x 8 digits and runs the paper's whole grid
``N in {50, 100, 250, 500, 750, 1000}`` with 5 seeds and 500 test images, for 1, 2 and 3 KPCA levels
(``6 | 3+3 | 2+2+2`` components, RBF level 1 with ``sigma = 3``, linear deeper levels, smoother
``sigma~ = 0.5``, ``eta_j = eta = 1``, ``lambda = 0.5``, 100 iterations) and both multiclass
schemes: the paper's one-vs-all (``p`` binary DRKMs, each with its own hidden features, via
scikit-learn's ``OneVsRestClassifier``) and one DRKM whose ``p`` one-vs-all outputs share the last
level's ``H`` (the library's multi-output LS-SVM level). Printed: mean (std) test accuracy in %
beside the paper's MNIST numbers, and the correctly classified test images per seed.

``python benchmarks/experiment_table2_digits.py`` (about 10 minutes on one thread) or ``--quick``
(a smoke run in seconds: ``N = 50``, one seed, 200 test digits; ``make test`` runs it).
"""
from __future__ import annotations

import argparse
import os
import time
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.multiclass import OneVsRestClassifier  # noqa: E402

from rkmlearn import DeepRKMClassifier  # noqa: E402
from rkmlearn.datasets import load_digits_split  # noqa: E402

ARCHITECTURES = {"1 level": (6,), "2 levels": (3, 3), "3 levels": (2, 2, 2)}
PAPER_TABLE2 = {  # Tonin et al., Table 2: MNIST, mean (std) accuracy in %
    "1 level": (57.27, 5.75, 59.76, 4.51, 71.24, 5.74, 75.15, 7.47, 79.68, 7.01, 80.59, 7.64),
    "2 levels": (61.05, 1.24, 65.97, 1.03, 75.74, 0.50, 81.11, 1.22, 83.89, 0.23, 85.29, 0.45),
    "3 levels": (61.02, 1.23, 65.64, 1.70, 75.69, 0.49, 81.35, 0.43, 83.90, 0.20, 85.29, 0.69),
}
PAPER_SIZES = (50, 100, 250, 500, 750, 1000)


def drkm(s, seed):
    return DeepRKMClassifier(s, kernels=["rbf"] + ["linear"] * (len(s) - 1),
                             kernel_params=[{"sigma": 3.0}] + [None] * (len(s) - 1),
                             smoother_sigma=0.5, random_state=seed)


def main(sizes, seeds=range(5), n_test=500):
    warnings.simplefilter("ignore", ConvergenceWarning)  # the paper's budget: 100 iterations
    for scheme in ("one-vs-all (paper)", "shared H"):
        correct = {name: {N: [] for N in sizes} for name in ARCHITECTURES}
        t0 = time.process_time()
        for N in sizes:
            for seed in seeds:
                data = load_digits_split(N, n_test=n_test, random_state=seed)
                for name, s in ARCHITECTURES.items():
                    model = drkm(s, seed)
                    if scheme.startswith("one"):
                        model = OneVsRestClassifier(model)
                    model.fit(data.X_train, data.y_train)
                    correct[name][N].append(int(np.sum(model.predict(data.X_test) == data.y_test)))
        print(f"\n{scheme}: test accuracy %, mean (std) over {len(seeds)} seeds, {n_test} test digits "
              f"| paper (MNIST)   [{time.process_time() - t0:.0f} s CPU]")
        print(f"{'':>9}" + "".join(f"{'N = ' + str(N):>24}" for N in sizes))
        for name in ARCHITECTURES:
            cells = []
            for N in sizes:
                a = 100 * np.asarray(correct[name][N]) / n_test
                k = PAPER_SIZES.index(N)
                cells.append(f"{a.mean():5.1f} ({a.std():3.1f}) | {PAPER_TABLE2[name][2 * k]:5.1f} "
                             f"({PAPER_TABLE2[name][2 * k + 1]:3.1f})")
            print(f"{name:>9}" + "".join(f"{c:>24}" for c in cells))
        print("correct test images per seed:")
        for name in ARCHITECTURES:
            print(f"{name:>9} " + "  ".join(f"N={N}: {correct[name][N]}" for N in sizes))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 50, one seed, 200 test digits")
    args = parser.parse_args()
    if args.quick:
        main((50,), seeds=range(1), n_test=200)
    else:
        main(PAPER_SIZES)
