"""The core refactor must not slow any fit down: old (a git ref) vs new, interleaved, as ratios.

The library at ``--ref`` (default: the commit before the re-cut of issue 23; ``--ref 78cc5f9`` is the
one before the first one-core refactor) is extracted with
``git archive`` into a temporary folder; one worker process imports it and another imports this
checkout, each through ``PYTHONPATH``. Every round asks both workers for every case, in turn and
alternating who goes first; the best of the rounds is reported, with the ratio new / old (< 1:
faster now). Times are the workers' CPU time (``time.process_time``) with one BLAS thread: on a
machine shared with other jobs, wall-clock times mostly measure the neighbours.

Cases: ``fit`` of KPCA, MultiViewKPCA and ProbabilisticKPCA in the dual and the primal setting with
an eigendecomposition and with the Stiefel solver (projected gradient, passed explicitly: the
default optimizer of MultiViewKPCA changed), and the per-step cost of a NAR forecast (Chapter 5's
sum of sines, ``MultiViewKPCA(4)``, lag 40); then every other model the re-cut touched, fit and
answer: TensorMultiViewRKM and MultiViewLSSVM (fit + predict, two RBF views, 4 classes),
DeepRKMClassifier (fit, 20 iterations), RecurrentRKM (fit + a 50-step forecast) and KPCA's
transform. A case the old library cannot run prints ``n/a``. Timings are printed, never asserted.

``python benchmarks/bench_core.py`` (full grid, a few minutes on 2 cores) or ``--quick`` (< 30 s).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The commit the re-cut of issue 23 (validate once, solvers split, models grouped) started from.
DEFAULT_REF = "71143bb"

# Run inside each worker: the same code against either library (both export these names).
WORKER = r'''
import json, sys, time, warnings
import numpy as np
from rkmlearn import (KPCA, DeepRKMClassifier, MultiViewKPCA, NARForecaster, ProbabilisticKPCA, RecurrentRKM,
                      TensorMultiViewRKM)
from rkmlearn.models import MultiViewLSSVM
from rkmlearn.datasets import sum_of_sines
from rkmlearn.features import IdentityFeatures, RandomFourierFeatures

def data(n, d, seed=0):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 3))
    return np.tanh(Z @ rng.normal(size=(3, d))) + 0.1 * rng.normal(size=(n, d)), Z[:, :2]

def rff(D):
    return RandomFourierFeatures(sigma=2.0, n_features=D, random_state=0)

def stiefel(**kw):
    return dict(solver="stiefel", optimizer="pg", random_state=0, **kw)

CASES = {
    "KPCA dual eig": lambda n: (KPCA(10, kernel_params={"sigma": 2.0}, random_state=0), data(n, 10)[0]),
    "KPCA primal eig": lambda n: (KPCA(10, setting="primal", feature_map=rff(n // 4), random_state=0),
                                  data(n, 10)[0]),
    "KPCA dual stiefel": lambda n: (KPCA(5, kernel_params={"sigma": 2.0}, **stiefel()), data(n // 3, 10)[0]),
    "MultiViewKPCA dual eig": lambda n: (MultiViewKPCA(10, kernels=["rbf", "rbf"], random_state=0), list(data(n, 10))),
    "MultiViewKPCA primal eig": lambda n: (MultiViewKPCA(10, setting="primal", feature_maps=[rff(n // 4), IdentityFeatures()],
                                                         random_state=0), list(data(n, 10))),
    "MultiViewKPCA dual stiefel": lambda n: (MultiViewKPCA(5, kernels=["rbf", "rbf"], **stiefel()),
                                             list(data(n // 3, 10))),
    "ProbabilisticKPCA dual eig": lambda n: (ProbabilisticKPCA(5, kernel_params={"sigma": 2.0}, random_state=0),
                                             data(n, 10)[0]),
    "ProbabilisticKPCA primal eig": lambda n: (ProbabilisticKPCA(5, setting="primal", feature_map=rff(n // 4),
                                                                 random_state=0), data(n, 10)[0]),
    "ProbabilisticKPCA dual stiefel": lambda n: (ProbabilisticKPCA(5, kernel_params={"sigma": 2.0}, **stiefel()),
                                                 data(n // 3, 10)[0]),
}

def labelled(n, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, n)
    centres = [rng.normal(size=(4, d)) for d in (6, 8)]
    return [c[y] + rng.normal(size=(n, c.shape[1])) for c in centres], y

def series(n):
    t = np.arange(n)
    return np.sin(0.07 * t) + 0.5 * np.sin(0.19 * t) + 0.05 * np.random.default_rng(0).normal(size=n)

# models that take labels, a series or answer after fitting: a callable that runs the timed work
WORK = {
    "TensorMultiViewRKM fit+predict": lambda n: (lambda Xs, y: lambda: TensorMultiViewRKM(
        ["rbf", "rbf"], rho=0.5, lam=0.1).fit(Xs, y).predict(Xs))(*labelled(n)),
    "MultiViewLSSVM fit+predict": lambda n: (lambda Xs, y: lambda: MultiViewLSSVM(
        ["rbf", "rbf"]).fit(Xs, y).predict(Xs))(*labelled(n // 2)),
    "DeepRKMClassifier fit": lambda n: (lambda Xs, y: lambda: DeepRKMClassifier(
        (3, 3), max_iter=20, random_state=0).fit(np.hstack(Xs), y))(*labelled(n // 2)),
    "RecurrentRKM fit+forecast": lambda n: (lambda s: lambda: RecurrentRKM(
        3, window=3, random_state=0).fit(s).forecast(50))(series(n)),
    "KPCA transform": lambda n: (lambda X, m: lambda: m.transform(X))(
        data(n, 10)[0], KPCA(10, kernel_params={"sigma": 2.0}, random_state=0).fit(data(n, 10)[0])),
}

def run(case, n):
    if case in WORK:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            work = WORK[case](n)
            start = time.process_time()
            work()
        return time.process_time() - start
    if case == "NAR forecast (per step)":
        f = NARForecaster(MultiViewKPCA(4), 40).fit(sum_of_sines().train)
        f.forecast(5)
        start = time.process_time()
        f.forecast(n)
        return (time.process_time() - start) / n
    model, X = CASES[case](n)
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X)
    return time.process_time() - start

for line in sys.stdin:
    case, n = json.loads(line)
    try:
        print(json.dumps(run(case, n)), flush=True)
    except TypeError:  # a parameter the old library does not have
        print(json.dumps(None), flush=True)
'''

CASES = [
    "KPCA dual eig", "KPCA primal eig", "KPCA dual stiefel",
    "MultiViewKPCA dual eig", "MultiViewKPCA primal eig", "MultiViewKPCA dual stiefel",
    "ProbabilisticKPCA dual eig", "ProbabilisticKPCA primal eig", "ProbabilisticKPCA dual stiefel",
    "NAR forecast (per step)",
    "TensorMultiViewRKM fit+predict", "MultiViewLSSVM fit+predict", "DeepRKMClassifier fit",
    "RecurrentRKM fit+forecast", "KPCA transform",
]


class Worker:
    """A Python process that imports rkmlearn from ``tree`` and times cases on request."""

    def __init__(self, tree):
        threads = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
        env = {**os.environ, **threads, "PYTHONPATH": str(tree)}
        self.process = subprocess.Popen([sys.executable, "-u", "-c", WORKER], cwd=tree, env=env, text=True,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def time(self, case, n):
        self.process.stdin.write(json.dumps([case, n]) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the benchmark worker died on {case!r}")
        return json.loads(line)

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def extract(ref, into):
    """``git archive ref rkmlearn`` into the folder ``into``; False when there is no such ref."""
    archive = subprocess.run(["git", "archive", ref, "rkmlearn"], cwd=ROOT, capture_output=True)
    if archive.returncode != 0:
        return False
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return True


def compare(ref=DEFAULT_REF, quick=False, rounds=None):
    """Best-of-rounds times ``{case: (old, new)}`` (seconds; None where the old library lacks it)."""
    n, steps, default_rounds = (200, 100, 2) if quick else (1500, 2000, 5)
    rounds = rounds or default_rounds
    with tempfile.TemporaryDirectory() as old_tree:
        if not extract(ref, old_tree):
            return None
        workers = {"old": Worker(old_tree), "new": Worker(ROOT)}
        best = {case: {"old": None, "new": None} for case in CASES}
        try:
            for r in range(rounds):
                for i, case in enumerate(CASES):
                    order = ("old", "new") if (r + i) % 2 == 0 else ("new", "old")
                    for who in order:
                        t = workers[who].time(case, steps if case.startswith("NAR") else n)
                        if t is not None:
                            best[case][who] = t if best[case][who] is None else min(best[case][who], t)
        finally:
            for worker in workers.values():
                worker.close()
    return {case: (times["old"], times["new"]) for case, times in best.items()}


def format_table(results):
    header = f"{'case':<32} | {'old':>10} {'new':>10} | {'new/old':>7}"
    lines = [header, "-" * len(header)]
    for case, (old, new) in results.items():
        unit, scale = ("us", 1e6) if case.startswith("NAR") else ("ms", 1e3)
        old_txt = "n/a" if old is None else f"{old * scale:.1f}{unit}"
        ratio = "new" if old is None else f"{new / old:.2f}x"
        lines.append(f"{case:<32} | {old_txt:>10} {new * scale:>8.1f}{unit} | {ratio:>7}")
    return "\n".join(lines)


def main(quick=False, ref=DEFAULT_REF, rounds=None):
    """Run the comparison and print its table; returns ``{case: (old, new)}`` (or None)."""
    results = compare(ref, quick, rounds)
    if results is None:
        print(f"skipped: git ref {ref!r} is not available here (a source tarball has no history).")
        return None
    print(f"fit CPU times (1 BLAS thread), rkmlearn at {ref} (old) vs this checkout (new); best of interleaved rounds")
    print(format_table(results))
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, two rounds (< 30 s)")
    parser.add_argument("--ref", default=DEFAULT_REF, help=f"git ref of the old library (default {DEFAULT_REF})")
    parser.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 5, quick 2)")
    args = parser.parse_args()
    main(quick=args.quick, ref=args.ref, rounds=args.rounds)
