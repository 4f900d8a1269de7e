"""Part I benchmarks: primal vs dual Stiefel cost per iteration, and dual-eig fit vs scikit-learn.

(a) **Primal vs dual Stiefel** (the duality paper's Figure 1 argument, Section 5: "a computational
speed gain of 5x" for the dual on SantaFe). One Cayley-Adam iteration, gradient included, on the
primal problem ``max tr(U^T C U)`` over St(d_f, s) with ``C = Phi_c^T Phi_c`` given by its factor
(:func:`rkmlearn.solvers.objectives.factored_trace_objective`, ``O(n d_f s)`` per gradient, ``C`` never
formed) and on the dual problem ``max tr(H^T K H)`` over St(n, s) with ``K = Phi_c Phi_c^T``
(:func:`rkmlearn.solvers.objectives.trace_objective`, ``O(n^2 s)``). Full size: the SantaFe setting,
``n = 929`` windows (1000 values, lag 70: windows of 71 values), ``d_f = 5001`` (5000 random Fourier features + the
target), ``s = 144``, measured with the default BLAS threads and with one thread. The time per iteration is ``(t(k iterations) - t(0 iterations)) / k``, so
the starting-point projection is not counted. Reported: both times and the ratio primal/dual.

(b) **Dual eig fit** of :class:`rkmlearn.MultiViewKPCA` (two views, RBF kernels, Algorithm 2)
against scikit-learn's ``KernelPCA(kernel="precomputed")`` on the summed kernel (it centres the
sum itself; centring is linear, so that equals the sum of centred kernels). Both timings include
building the two RBF kernel matrices (scikit-learn's with ``sklearn.metrics.pairwise.rbf_kernel``),
so the same work is timed end to end. ``n = 2000`` (full), ``s`` in {10, 100}; best of 3 interleaved
rounds.

Run ``python benchmarks/bench_duality.py`` (a few minutes on 2 cores) or ``--quick`` (small sizes,
a few seconds). Timings are printed, never asserted.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits
from sklearn.decomposition import KernelPCA
from sklearn.metrics.pairwise import rbf_kernel

from rkmlearn import MultiViewKPCA
from rkmlearn.solvers import objectives, optimisers
from rkmlearn.kernels import RBF


def _cayley_seconds(fun, grad, X0, iterations):
    start = time.perf_counter()
    optimisers.cayley_adam(fun, grad, X0, learning_rate=0.3, max_iter=iterations, tol=0.0)
    return time.perf_counter() - start


def stiefel_per_iteration(n, d_f, s, iterations, repeats=1, random_state=0):
    """Seconds per Cayley-Adam iteration (gradient included), primal and dual, and their ratio."""
    rng = np.random.default_rng(random_state)
    # Features with a decaying spectrum, like random Fourier features of a smooth kernel.
    Phi = rng.normal(size=(n, d_f)) * (1.0 / np.sqrt(1.0 + np.arange(d_f)))
    Phi_c = Phi - Phi.mean(axis=0)
    K = Phi_c @ Phi_c.T
    problems = {
        "primal": (objectives.factored_trace_objective(Phi_c), rng.standard_normal((d_f, s))),
        "dual": (objectives.trace_objective(K), rng.standard_normal((n, s))),
    }
    best = {name: np.inf for name in problems}
    for _ in range(repeats):
        for name, ((fun, grad), X0) in problems.items():
            overhead = _cayley_seconds(fun, grad, X0, 0)
            total = _cayley_seconds(fun, grad, X0, iterations)
            best[name] = min(best[name], max(total - overhead, 0.0) / iterations)
    return {"n": n, "d_f": d_f, "s": s, **best, "primal/dual": best["primal"] / best["dual"]}


def eig_fit_times(n, s, repeats, random_state=0):
    """Best-of-``repeats`` fit times of MultiViewKPCA (dual eig) and sklearn KernelPCA, seconds."""
    rng = np.random.default_rng(random_state)
    Z = rng.normal(size=(n, 3))
    X0 = np.tanh(Z @ rng.normal(size=(3, 10))) + 0.1 * rng.normal(size=(n, 10))
    X1 = Z[:, :2] + 0.1 * rng.normal(size=(n, 2))
    sigmas = (2.0, 1.0)

    def rkm():
        MultiViewKPCA(s, kernels=[RBF(sigmas[0]), RBF(sigmas[1])]).fit([X0, X1])

    def sk():
        K = sum(rbf_kernel(X, gamma=1.0 / (2.0 * sigma**2)) for X, sigma in zip((X0, X1), sigmas))
        KernelPCA(n_components=s, kernel="precomputed").fit(K)

    best = {"rkmlearn": np.inf, "sklearn": np.inf}
    for _ in range(repeats):
        for name, fit in (("rkmlearn", rkm), ("sklearn", sk)):
            start = time.perf_counter()
            fit()
            best[name] = min(best[name], time.perf_counter() - start)
    return {"n": n, "s": s, **best, "rkmlearn/sklearn": best["rkmlearn"] / best["sklearn"]}


def format_stiefel(rows):
    header = f"{'BLAS threads':>12} {'n':>5} {'d_f':>5} {'s':>4} | {'primal/iter':>12} {'dual/iter':>12} | {'primal/dual':>11}"
    lines = [header, "-" * len(header)]
    for row in rows:
        lines.append(
            f"{row['threads']:>12} {row['n']:>5} {row['d_f']:>5} {row['s']:>4} | {row['primal'] * 1e3:>10.2f}ms "
            f"{row['dual'] * 1e3:>10.2f}ms | {row['primal/dual']:>10.2f}x")
    return "\n".join(lines)


def stiefel_rows(n, d_f, s, iterations, repeats):
    """(a) with the default BLAS threads and with one thread.

    One thread shows the operation-count ratio; on a loaded machine, multi-threaded BLAS loses
    most on the dual's smaller products, which shrinks the measured ratio.
    """
    rows = [{"threads": "default", **stiefel_per_iteration(n, d_f, s, iterations, repeats)}]
    with threadpool_limits(limits=1, user_api="blas"):
        rows.append({"threads": "1", **stiefel_per_iteration(n, d_f, s, iterations, repeats)})
    return rows


def format_eig(rows):
    header = f"{'n':>5} {'s':>4} | {'rkmlearn':>9} {'sklearn':>9} | {'rkmlearn/sklearn':>16}"
    lines = [header, "-" * len(header)]
    for r in rows:
        lines.append(f"{r['n']:>5} {r['s']:>4} | {r['rkmlearn']:>8.3f}s {r['sklearn']:>8.3f}s | "
                     f"{r['rkmlearn/sklearn']:>15.2f}x")
    return "\n".join(lines)


def main(quick=False):
    """Run both benchmarks, print their tables, return ``(stiefel_rows, eig_rows)``."""
    if quick:
        st_row = stiefel_rows(n=200, d_f=1001, s=20, iterations=5, repeats=1)
        eig_rows = [eig_fit_times(400, s, repeats=1) for s in (10, 50)]
    else:
        st_row = stiefel_rows(n=929, d_f=5001, s=144, iterations=10, repeats=2)
        eig_rows = [eig_fit_times(2000, s, repeats=3) for s in (10, 100)]
    print("(a) one Cayley-Adam iteration (gradient + Cayley step): primal St(d_f, s) vs dual St(n, s)")
    print(format_stiefel(st_row))
    print("\n(b) dual eig fit, two views with RBF kernels: MultiViewKPCA vs sklearn KernelPCA(precomputed),"
          " kernels included")
    print(format_eig(eig_rows))
    return st_row, eig_rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one round (a few seconds)")
    main(quick=parser.parse_args().quick)
