"""Dual RBF KPCA past one machine's memory (issue 33): dense, matrix-free, Dask, scikit-learn, Nystroem.

``KPCA(10, kernel_params={"sigma": 10})`` on ``n`` samples of 20 standard normal features. The dense
dual path holds the ``n x n`` centred Gram matrix (``8 n^2`` bytes: 3.2 GB at n = 20,000, 80 GB at
100,000); the matrix-free path (``rkmlearn.kernels.operator``, taken above ``GRAM_BYTES``) forms
``K_c V`` in 512 x 512 tiles and keeps ``n x`` (a Krylov basis). Cases, each in its own process so
that its peak resident memory (``ru_maxrss``: everything, the data included) is its own:

* ``dense``: the dense path (``GRAM_BYTES`` set past ``8 n^2``);
* ``free``: the matrix-free path (``GRAM_BYTES = 0``);
* ``dask``: the matrix-free path on a Dask array (8 row chunks, one task per chunk and product) on a
  loopback ``distributed.LocalCluster`` (one worker, threads as BLAS threads, in this process);
* ``sklearn``: scikit-learn's ``KernelPCA(10, eigen_solver="arpack")`` (forms the matrix);
* ``nys<m>``: primal KPCA on rkmlearn's ``NystroemFeatures`` with ``m`` landmarks (approximate).

Errors are against the exact answer at the same ``n`` (the dense run where it ran, else the
matrix-free one): the largest relative eigenvalue error and the largest principal angle between
the spans of the ``n x 10`` hidden features. Times: wall and CPU (all threads) of the fit only;
the load average is printed beside them (a shared machine). The strips run on as many threads as
BLAS may use (``OPENBLAS_NUM_THREADS``).

``python benchmarks/bench_matrix_free.py`` (n = 20,000: every case, minutes),
``--n 60000 100000 --cases free`` (the large runs: tens of minutes each on 2 cores), ``--quick``
(n = 2,000, every case: seconds, what ``make test`` runs). Timings are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time

S, D_IN, SIGMA = 10, 20, 10.0
CASES = ("dense", "free", "dask", "sklearn", "nys2000", "nys5000")


def data(n):
    import numpy as np

    return np.random.default_rng(0).normal(size=(n, D_IN))


def fit_case(name, X):
    """Fit one case; return its eigenvalues (10,) and hidden features (n, 10)."""
    from rkmlearn import KPCA
    from rkmlearn.kernels import operator as gram_operator

    n = X.shape[0]
    if name == "sklearn":
        from sklearn.decomposition import KernelPCA

        model = KernelPCA(S, kernel="rbf", gamma=0.5 / SIGMA**2, eigen_solver="arpack", random_state=0).fit(X)
        return model.eigenvalues_, model.eigenvectors_
    if name.startswith("nys"):
        from rkmlearn.features import NystroemFeatures

        m = int(name[3:])
        fmap = NystroemFeatures(n_components=m, kernel_params={"sigma": SIGMA}, random_state=0)
        model = KPCA(S, setting="primal", feature_map=fmap, random_state=0).fit(X)
        return model.eigenvalues_, model.H_
    gram_operator.GRAM_BYTES = 2**62 if name == "dense" else 0
    if name != "dask":
        model = KPCA(S, kernel_params={"sigma": SIGMA}, random_state=0).fit(X)
        return model.eigenvalues_, model.H_
    import dask.array as da
    import distributed
    from threadpoolctl import threadpool_info

    threads = max(info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=threads, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        lazy = da.from_array(X, chunks=(math.ceil(n / 8), D_IN))
        model = KPCA(S, kernel_params={"sigma": SIGMA}, random_state=0).fit(lazy)
    return model.eigenvalues_, model.H_


def run_case(name, n, out):
    """One case in this process: times, peak memory; eigenvalues and H saved to ``out`` (.npz)."""
    import numpy as np

    X = data(n)
    load = os.getloadavg()[0]
    cpu, wall = time.process_time(), time.perf_counter()
    values, H = fit_case(name, X)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    np.savez(out, values=values, H=H)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: kB
    return {"name": name, "n": n, "cpu": cpu, "wall": wall, "peak_GB": peak / 1e9,
            "load": [load, os.getloadavg()[0]]}


def spawn(name, n, folder):
    out = os.path.join(folder, f"{name}-{n}.npz")
    proc = subprocess.run([sys.executable, __file__, "--case", name, str(n), out], capture_output=True, text=True)
    if proc.returncode:
        lines = proc.stderr.strip().splitlines() or ["(no output)"]
        return {"name": name, "n": n, "error": lines[-1]}
    return {**json.loads(proc.stdout.strip().splitlines()[-1]), "file": out}


def errors(row, reference):
    """Largest relative eigenvalue error and principal angle of ``row`` against ``reference``."""
    import numpy as np
    import scipy.linalg

    a, b = np.load(row["file"]), np.load(reference["file"])
    err = float(np.max(np.abs(a["values"] - b["values"]) / b["values"]))
    angle = float(np.max(scipy.linalg.subspace_angles(a["H"], b["H"])))
    return err, angle


def table(rows):
    """Print the table; return {(name, n): row} of the cases that ran."""
    ok = {(r["name"], r["n"]): r for r in rows if "error" not in r}
    print(f"Dual RBF KPCA, s = {S}, d = {D_IN}, sigma = {SIGMA}; one process per case; "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")
    print(f"{'case':>8} {'n':>7} | {'wall s':>8} {'CPU s':>8} {'peak GB':>8} | {'eig err':>8} {'angle':>8} | load avg")
    for r in rows:
        if "error" in r:
            print(f"{r['name']:>8} {r['n']:>7} | failed: {r['error'][:90]}")
            continue
        ref = ok.get(("dense", r["n"])) or ok.get(("free", r["n"]))
        err, angle = errors(r, ref) if ref is not None and ref is not r else (0.0, 0.0)
        tag = " (ref)" if ref is r else ""
        print(f"{r['name']:>8} {r['n']:>7} | {r['wall']:>8.1f} {r['cpu']:>8.1f} {r['peak_GB']:>8.2f} | "
              f"{err:>8.1e} {angle:>8.1e} | {r['load'][0]:.1f} -> {r['load'][1]:.1f}{tag}")
    return ok


def summary(ok):
    """Ratios, growth exponents and the issue's goals, from what ran."""
    for n in sorted({n for _, n in ok}):
        base = ok.get(("dense", n))
        for name in ("free", "dask", "sklearn"):
            if base and (name, n) in ok:
                r = ok[name, n]
                print(f"n = {n}: {name} / dense wall {r['wall'] / base['wall']:.2f}x, CPU {r['cpu'] / base['cpu']:.2f}x, "
                      f"peak memory {r['peak_GB'] / base['peak_GB']:.2f}x")
    free = sorted((n, r["wall"], r["cpu"]) for (name, n), r in ok.items() if name == "free")
    for (n0, w0, c0), (n1, w1, c1) in zip(free, free[1:]):
        print(f"growth exponent (matrix-free) {n0} -> {n1}: wall {math.log(w1 / w0) / math.log(n1 / n0):.2f}, "
              f"CPU {math.log(c1 / c0) / math.log(n1 / n0):.2f}")
    if ("free", 100000) in ok:
        r = ok["free", 100000]
        print(f"goal n = 100,000 in <= 20 min wall, <= 2 GB: {r['wall'] / 60:.1f} min, {r['peak_GB']:.2f} GB "
              f"({'MET' if r['wall'] <= 1200 and r['peak_GB'] <= 2 else 'NOT MET'})")


def main(quick=False, sizes=None, cases=CASES):
    if quick:
        sizes, cases = [2000], ("dense", "free", "dask", "sklearn", "nys200", "nys500")
    with tempfile.TemporaryDirectory() as folder:
        rows = []
        for n in sizes or [20000]:
            for name in cases:
                rows.append(spawn(name, n, folder))
                if not quick:  # progress of a long run, as each case ends
                    print("done:", json.dumps({k: v for k, v in rows[-1].items() if k != "file"}), flush=True)
        summary(table(rows))
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 2000, every case (seconds)")
    parser.add_argument("--n", type=int, nargs="+", help="sample sizes (default 20000)")
    parser.add_argument("--cases", default=",".join(CASES), help=f"comma-separated, of {CASES} (nys<m>: any m)")
    parser.add_argument("--case", nargs=3, metavar=("NAME", "N", "OUT"), help="run one case in this process")
    args = parser.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case[0], int(args.case[1]), args.case[2])))
    else:
        main(quick=args.quick, sizes=args.n, cases=tuple(args.cases.split(",")))
