"""Recurrent RKM (Part V) against statsmodels' ARMA on the Santa Fe series, side by side in one run.

Timed per training length T (the first T values of the real Santa Fe series A, shipped with
rkmlearn): ``RecurrentRKM(s).fit`` (the centred kernel matrix and the s leading eigenpairs of the
T x T matrix K + A, eq-rrkm-eig), its 100-step recursive forecast (latent recursion + kernel
smoother per step), and statsmodels' ``ARIMA(order=(10, 0, 2)).fit()`` (the order Chapter 10's
information criterion picks) and its 100-step forecast. Printed: best-of-r CPU times with one BLAS
thread (interleaved rounds), the ratios RRKM / ARMA (fit: goal <= 0.2 at T <= 2000, issue 24;
forecast), the fit with ``eigen_solver="dense"`` (what the automatic choice must not lose much
to: eigenvalues 9-12 of K + A form a cluster) and the fit's growth exponent in T. Timings are
printed, never asserted.

``python benchmarks/bench_recurrent.py`` (T in {500, 1000, 2000, 4000}, best of 3) or ``--quick``
(T in {1000, 2000}, one round). From T = ``BAND_MIN_N`` (1500) the automatic solver treats K + A
as low rank plus band (``lowrank_band_eigenpairs``): the growth beyond T = 2000 is printed.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

from rkmlearn import RecurrentRKM
from rkmlearn.datasets import load_santafe

from threadpoolctl import threadpool_limits

from _timing import best_cpu  # benchmarks/_timing.py

STEPS = 100


def bench_case(series, T, repeats, s=12):
    from statsmodels.tsa.arima.model import ARIMA

    x = series[:T]

    def rrkm(solver="auto"):
        return RecurrentRKM(s, kernel_params={"sigma": 1.0}, lag_weights="gaussian", p=1, eigen_solver=solver).fit(x)

    def arma():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ARIMA(x, order=(10, 0, 2)).fit()

    model, fitted = rrkm(), arma()
    cases = {"rrkm_fit": rrkm, "rrkm_dense": lambda: rrkm("dense"), "arma_fit": arma,
             "rrkm_forecast": lambda: model.forecast(STEPS), "arma_forecast": lambda: fitted.forecast(STEPS)}
    row = {"T": T, **{name: np.inf for name in cases}}
    for _ in range(repeats):  # interleaved rounds
        for name, case in cases.items():
            row[name] = min(row[name], best_cpu(case, 1))
    row["fit ratio"] = row["rrkm_fit"] / row["arma_fit"]
    row["forecast ratio"] = row["rrkm_forecast"] / row["arma_forecast"]
    return row


def format_table(rows):
    header = (f"{'T':>5} | {'RRKM fit':>9} {'(dense)':>9} {'ARMA fit':>9} {'ratio':>7} | "
              f"{'RRKM 100 steps':>14} {'ARMA 100 steps':>14} {'ratio':>7}")
    lines = [header, "-" * len(header)]
    for r in rows:
        lines.append(f"{r['T']:>5} | {r['rrkm_fit']:>8.3f}s {r['rrkm_dense']:>8.3f}s {r['arma_fit']:>8.3f}s "
                     f"{r['fit ratio']:>6.2f}x | {r['rrkm_forecast']:>13.4f}s {r['arma_forecast']:>13.4f}s "
                     f"{r['forecast ratio']:>6.2f}x")
    Ts = [r["T"] for r in rows]
    exps = [np.log(rows[i + 1]["rrkm_fit"] / rows[i]["rrkm_fit"]) / np.log(Ts[i + 1] / Ts[i]) for i in range(len(rows) - 1)]
    lines.append("growth exponent of the RRKM fit in T: " + ", ".join(f"{e:.2f}" for e in exps))
    worst = max(r["fit ratio"] for r in rows if r["T"] <= 2000)
    lines.append(f"goal RRKM fit <= 0.2x ARMA at T <= 2000: {'MET' if worst <= 0.2 else 'NOT MET'} (worst {worst:.2f}x)")
    return "\n".join(lines)


def main(quick=False):
    series = load_santafe(source="bundled").series
    sizes, repeats = ((1000, 2000), 1) if quick else ((500, 1000, 2000, 4000), 3)
    with threadpool_limits(limits=1, user_api="blas"):
        rows = [bench_case(series, T, repeats) for T in sizes]
    print(f"RecurrentRKM(12) vs statsmodels ARIMA(10,0,2) on Santa Fe: CPU s, one BLAS thread, best of {repeats}")
    print(format_table(rows))
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    main(quick=parser.parse_args().quick)
