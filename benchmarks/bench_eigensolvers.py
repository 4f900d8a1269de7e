"""Benchmark: LAPACK subset ``eigh`` vs block Krylov vs ARPACK for the top-``s`` eigenpairs.

This is the measurement behind :func:`rkmlearn.solvers.eigen.choose_eigen_solver` (the rule that
``top_eigenpairs(solver="auto")`` applies: 'block' for ``n >= 1000`` and ``s <= min(n // 40, 50)``,
else 'dense'; never ARPACK). For each data set, size ``n`` and number ``s`` of eigenpairs it
times the three solvers of :func:`rkmlearn.solvers.eigen.top_eigenpairs` on the centred RBF Gram
matrix (CPU time, one BLAS thread: the machine may be shared) and reports which is fastest, the
auto choice's slowdown against the fastest, plus the largest relative disagreement between the
eigenvalues (a sanity check: all must give the same answer). The block solver's time includes
its fallback to the dense driver where it gives up (a cluster).

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
    python benchmarks/bench_eigensolvers.py --block-sizes  # the block solver by block size
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from sklearn.datasets import make_moons
from threadpoolctl import threadpool_limits

from rkmlearn.kernels import RBF, GramCenterer
from rkmlearn.solvers.eigen import choose_eigen_solver, top_eigenpairs

FULL_N = (500, 1000, 2000, 4000, 8000)
FULL_S = (1, 2, 5, 10, 20, 50, 100, 200)
QUICK_N = (1000, 2000)
QUICK_S = (1, 10, 25)


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


SOLVERS = ("dense", "block", "arpack")


def time_solver(K, s, solver, repeat):
    """Best CPU time over ``repeat`` runs, and the eigenvalues."""
    best = np.inf
    for _ in range(repeat):
        t0 = time.process_time()
        evals, _ = top_eigenpairs(K, s, solver=solver, check_rank=False)
        best = min(best, time.process_time() - t0)
    return best, evals


def run(ns=FULL_N, ss=FULL_S, datasets=("random", "moons"), repeat=None, verbose=True):
    """Time both solvers over the grid; returns a list of dict records.

    ``repeat`` runs per timing (best kept); default 3 for ``n <= 1000`` and 1 above.
    """
    records = []
    if verbose:
        print(f"{'data':>7} {'n':>5} {'s':>4} {'dense_s':>9} {'block_s':>9} {'arpack_s':>9} {'fastest':>7} "
              f"{'auto':>6} {'auto/fastest':>12} {'max_rel_diff':>12}")
    for name in datasets:
        for n in ns:
            K = centred_gram(make_data(name, n))
            n_repeat = repeat if repeat is not None else (3 if n <= 1000 else 1)
            for s in ss:
                if s >= n // 4:
                    continue
                times, evals = {}, {}
                for solver in SOLVERS:
                    times[solver], evals[solver] = time_solver(K, s, solver, n_repeat)
                diff = max(float(np.max(np.abs(evals["dense"] - evals[o])) / evals["dense"][0]) for o in SOLVERS)
                auto = choose_eigen_solver(n, s)
                rec = {"data": name, "n": n, "s": s, **{f"{o}_s": times[o] for o in SOLVERS},
                       "fastest": min(times, key=times.get), "auto": auto,
                       "auto/fastest": times[auto] / min(times.values()), "max_rel_diff": diff}
                records.append(rec)
                if verbose:
                    print(f"{name:>7} {n:>5} {s:>4} {times['dense']:9.4f} {times['block']:9.4f} {times['arpack']:9.4f} "
                          f"{rec['fastest']:>7} {auto:>6} {rec['auto/fastest']:11.2f}x {diff:12.1e}", flush=True)
    if verbose and records:
        print(f"auto rule: picks the fastest solver in {sum(r['auto'] == r['fastest'] for r in records)}/{len(records)} "
              f"cases; worst slowdown vs the fastest x{max(r['auto/fastest'] for r in records):.2f}")
    return records


def block_sizes(ns=(2000, 5000), ss=(3, 5, 10, 15, 20, 30), bs=(6, 8, 10, 12, 16), repeat=3):
    """The block solver's time for each block size ``b``: the measurement behind its default
    (``b = 8`` for ``s <= 20``, else 16; :func:`rkmlearn.solvers.block_krylov.block_krylov_eigenpairs`).

    The case of ``bench_kpca.py``: RBF, ``d = 20`` standard normal features, ``sigma = sqrt(d / 2)``
    (a flat spectrum). Prints CPU ms, best of ``repeat``; "gave up" where the solver hands over to
    the dense driver (its budget spent on a cluster).
    """
    from rkmlearn.solvers.block_krylov import _NotConverged, block_krylov_eigenpairs

    print(f"block Krylov CPU ms by block size b (RBF, d = 20, one BLAS thread, best of {repeat})")
    print(f"{'n':>5} {'s':>3} | " + " ".join(f"{'b=' + str(b):>9}" for b in bs))
    for n in ns:
        X = np.random.default_rng(0).normal(size=(n, 20))
        K = GramCenterer().fit_transform(RBF(sigma=np.sqrt(10.0))(X))
        for s in ss:
            cells = []
            for b in bs:
                best = np.inf
                try:
                    for _ in range(repeat):
                        t0 = time.process_time()
                        block_krylov_eigenpairs(K, s, 0, block_size=b)
                        best = min(best, time.process_time() - t0)
                    cells.append(f"{best * 1e3:9.1f}")
                except _NotConverged:
                    cells.append(f"{'gave up':>9}")
            print(f"{n:>5} {s:>3} | " + " ".join(cells), flush=True)


def main(argv=None, *, quick=None):
    """Command-line entry point; ``main(quick=True)`` is what ``benchmarks/run_all.py`` calls."""
    json_path = None
    if quick is None:
        parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
        parser.add_argument("--quick", action="store_true", help="small grid, one repeat")
        parser.add_argument("--json", help="also write the records to this JSON file")
        parser.add_argument("--block-sizes", action="store_true",
                            help="only the block solver's time by block size (its default's measurement)")
        args = parser.parse_args(argv)
        quick, json_path = args.quick, args.json
        if args.block_sizes:
            with threadpool_limits(limits=1, user_api="blas"):
                return block_sizes()
    with threadpool_limits(limits=1, user_api="blas"):
        records = run(QUICK_N, QUICK_S, repeat=1) if quick else run()
    if json_path:
        with open(json_path, "w") as f:
            json.dump(records, f, indent=1)
    return records


if __name__ == "__main__":
    main()
