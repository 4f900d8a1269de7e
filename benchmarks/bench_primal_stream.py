"""Primal KPCA with random Fourier features past one machine's memory (issue 24), against the peer.

``KPCA(10, setting="primal", feature_map=RandomFourierFeatures(D=2000))`` on ``n`` samples of 10
standard normal features: at ``n = 1M`` the ``n x D`` features would take 16 GB; the level streams
them a chunk of rows at a time (:data:`rkmlearn.views.CHUNK_BYTES`), accumulating ``Phi_c^T Phi_c``
(``D^2``, 32 MB). Peer: scikit-learn's ``RBFSampler(n_components=D)`` + ``PCA(10,
svd_solver="covariance_eigh")``, which holds the features in memory. Each case runs in its own
process, so its peak resident memory (``ru_maxrss``: everything, the data included) is its own;
times are that process's CPU time with one BLAS thread, and wall time.

``python benchmarks/bench_primal_stream.py`` (n = 100k both, then n = 1M rkmlearn only: minutes)
or ``--quick`` (n = 5000, both: seconds). ``--case NAME N`` runs one case (what the parent calls).
Timings are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time

D, S, D_IN = 2000, 10, 10


def run_case(name, n):
    """Fit one case in this process; return its CPU and wall time and peak resident memory."""
    import numpy as np
    from threadpoolctl import threadpool_limits

    X = np.random.default_rng(0).normal(size=(n, D_IN))
    with threadpool_limits(limits=1, user_api="blas"):
        cpu, wall = time.process_time(), time.perf_counter()
        if name == "rkmlearn":
            from rkmlearn import KPCA
            from rkmlearn.features import RandomFourierFeatures

            model = KPCA(S, setting="primal", feature_map=RandomFourierFeatures(sigma=3.0, n_features=D, random_state=0))
            model.fit(X)
            streamed = bool(model.views_[0].streamed_)
        else:
            from sklearn.decomposition import PCA
            from sklearn.kernel_approximation import RBFSampler

            Z = RBFSampler(gamma=1.0 / 18.0, n_components=D, random_state=0).fit_transform(X)
            PCA(S, svd_solver="covariance_eigh").fit(Z)
            streamed = False
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: kB
    return {"name": name, "n": n, "cpu": cpu, "wall": wall, "peak_GB": peak / 1e9, "streamed": streamed}


def spawn(name, n):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    out = subprocess.run([sys.executable, __file__, "--case", name, str(n)], capture_output=True, text=True, env=env)
    if out.returncode:
        return {"name": name, "n": n, "error": out.stderr.strip().splitlines()[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(quick=False):
    cases = [("rkmlearn", 5000), ("sklearn", 5000)] if quick else \
        [("rkmlearn", 100000), ("sklearn", 100000), ("rkmlearn", 1000000)]
    rows = [spawn(name, n) for name, n in cases]
    print(f"Primal KPCA, RFF D = {D}, s = {S}, d = {D_IN}: one process per case, one BLAS thread")
    print(f"{'case':>9} {'n':>8} | {'CPU s':>8} {'wall s':>8} {'peak GB':>8} streamed")
    for r in rows:
        if "error" in r:
            print(f"{r['name']:>9} {r['n']:>8} | failed: {r['error']}")
            continue
        print(f"{r['name']:>9} {r['n']:>8} | {r['cpu']:>8.1f} {r['wall']:>8.1f} {r['peak_GB']:>8.2f} {r['streamed']}")
    ok = {(r["name"], r["n"]): r for r in rows if "error" not in r}
    n0 = cases[0][1]
    if ("rkmlearn", n0) in ok and ("sklearn", n0) in ok:
        a, b = ok["rkmlearn", n0], ok["sklearn", n0]
        print(f"n = {n0}: rkmlearn / sklearn CPU time {a['cpu'] / b['cpu']:.2f}x, peak memory {a['peak_GB'] / b['peak_GB']:.2f}x")
    if ("rkmlearn", 1000000) in ok:
        big = ok["rkmlearn", 1000000]
        print(f"n = 1M: goal peak <= 1.5 GB {'MET' if big['peak_GB'] <= 1.5 else 'NOT MET'} ({big['peak_GB']:.2f} GB); "
              f"growth exponent 100k -> 1M: {math.log10(big['cpu'] / ok['rkmlearn', 100000]['cpu']):.2f}")
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 5000, both (seconds)")
    parser.add_argument("--case", nargs=2, metavar=("NAME", "N"), help="run one case in this process")
    args = parser.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case[0], int(args.case[1]))))
    else:
        main(quick=args.quick)
