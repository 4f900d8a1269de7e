"""Benchmark: LAPACK subset ``eigh`` vs ARPACK for the top-``s`` eigenpairs of a Gram matrix.

This is the measurement behind :func:`rkmlearn.linalg.choose_eigen_solver` (the rule that
``top_eigenpairs(solver="auto")`` applies). For each data set, size ``n`` and number ``s`` of
eigenpairs it times both solvers of :func:`rkmlearn.linalg.top_eigenpairs` on the centred RBF
Gram matrix and reports which is faster, plus the largest relative disagreement between their
eigenvalues (a sanity check: both must give the same answer).

Data sets
---------
* ``random``: ``n`` points from a standard normal in 10 dimensions (slowly decaying spectrum).
* ``moons``: scikit-learn's two moons with noise 0.05 (2-D, structured; fast spectral decay, so
  many of the requested eigenvalues are tiny and clustered, the hard case for Lanczos).

The RBF bandwidth is the median pairwise distance (median heuristic).

Usage::

    python benchmarks/bench_eigensolvers.py            # full grid (a few minutes on 2 cores)
    python benchmarks/bench_eigensolvers.py --quick    # small grid (seconds)
    python benchmarks/bench_eigensolvers.py --json results.json
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from sklearn.datasets import make_moons

from rkmlearn.kernels import RBF, GramCenterer
from rkmlearn.solvers.eigen import choose_eigen_solver, top_eigenpairs

FULL_N = (500, 1000, 2000, 4000)
FULL_S = (1, 2, 5, 10, 20, 50, 100, 200)
QUICK_N = (500, 1000)
QUICK_S = (1, 10, 50)


def make_data(name, n, random_state=0):
    """The ``(n, d)`` data set ``name`` ('random' or 'moons')."""
    rng = np.random.RandomState(random_state)
    if name == "random":
        return rng.standard_normal((n, 10))
    if name == "moons":
        X, _ = make_moons(n_samples=n, noise=0.05, random_state=rng)
        return X
    raise ValueError(f"name must be 'random' or 'moons'; got {name!r}.")


def centred_gram(X):
    """Centred RBF Gram matrix with the median-heuristic bandwidth."""
    sub = X[: min(len(X), 1000)]
    d2 = ((sub[:, None, :] - sub[None, :, :]) ** 2).sum(-1)
    sigma = float(np.sqrt(np.median(d2[np.triu_indices(len(sub), 1)])))
    return GramCenterer().fit_transform(RBF(sigma=sigma)(X))


def time_solver(K, s, solver, repeat):
    """Best wall time over ``repeat`` runs, and the eigenvalues."""
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        evals, _ = top_eigenpairs(K, s, solver=solver, check_rank=False)
        best = min(best, time.perf_counter() - t0)
    return best, evals


def run(ns=FULL_N, ss=FULL_S, datasets=("random", "moons"), repeat=None, verbose=True):
    """Time both solvers over the grid; returns a list of dict records.

    ``repeat`` runs per timing (best kept); default 3 for ``n <= 1000`` and 1 above.
    """
    records = []
    if verbose:
        print(
            f"{'data':>7} {'n':>5} {'s':>4} {'dense_s':>9} {'arpack_s':>9} {'faster':>7} "
            f"{'auto':>7} {'max_rel_diff':>12}"
        )
    for name in datasets:
        for n in ns:
            K = centred_gram(make_data(name, n))
            n_repeat = repeat if repeat is not None else (3 if n <= 1000 else 1)
            for s in ss:
                if s >= n:
                    continue
                t_dense, ev_dense = time_solver(K, s, "dense", n_repeat)
                t_arpack, ev_arpack = time_solver(K, s, "arpack", n_repeat)
                diff = float(np.max(np.abs(ev_dense - ev_arpack)) / ev_dense[0])
                rec = {
                    "data": name,
                    "n": n,
                    "s": s,
                    "dense_s": t_dense,
                    "arpack_s": t_arpack,
                    "faster": "arpack" if t_arpack < t_dense else "dense",
                    "auto": choose_eigen_solver(n, s),
                    "max_rel_diff": diff,
                }
                records.append(rec)
                if verbose:
                    print(
                        f"{name:>7} {n:>5} {s:>4} {t_dense:9.4f} {t_arpack:9.4f} "
                        f"{rec['faster']:>7} {rec['auto']:>7} {diff:12.1e}",
                        flush=True,
                    )
    if verbose and records:
        regret = [
            r[f"{r['auto']}_s"] / min(r["dense_s"], r["arpack_s"]) for r in records
        ]
        print(
            f"auto rule: picks the faster solver in "
            f"{sum(r['auto'] == r['faster'] for r in records)}/{len(records)} cases; "
            f"worst slowdown vs the faster one x{max(regret):.2f}"
        )
    return records


def main(argv=None, *, quick=None):
    """Command-line entry point; ``main(quick=True)`` is what ``benchmarks/run_all.py`` calls."""
    json_path = None
    if quick is None:
        parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
        parser.add_argument("--quick", action="store_true", help="small grid, one repeat")
        parser.add_argument("--json", help="also write the records to this JSON file")
        args = parser.parse_args(argv)
        quick, json_path = args.quick, args.json
    if quick:
        records = run(QUICK_N, QUICK_S, repeat=1)
    else:
        records = run()
    if json_path:
        with open(json_path, "w") as f:
            json.dump(records, f, indent=1)
    return records


if __name__ == "__main__":
    main()
