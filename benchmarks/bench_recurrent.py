"""Recurrent RKM (Part V) against statsmodels' ARMA on the Santa Fe series, side by side in one run.

Timed per training length T (the first T values of the real Santa Fe series A, shipped with
rkmlearn): ``RecurrentRKM(s).fit`` (the centred kernel matrix and the s leading eigenpairs of the
T x T matrix K + A, eq-rrkm-eig), its 100-step recursive forecast (latent recursion + kernel
smoother per step), and statsmodels' ``ARIMA(order=(10, 0, 2)).fit()`` (the order Chapter 10's
information criterion picks) and its 100-step forecast. Printed: best-of-r wall times and the
ratios RRKM / ARMA (fit, forecast). Timings are printed, never asserted.

``python benchmarks/bench_recurrent.py`` (T in {500, 1000, 2000}, best of 3) or ``--quick``
(T in {500, 1000}, one round).
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

from rkmlearn import RecurrentRKM
from rkmlearn.datasets import load_santafe

from _timing import best_wall  # benchmarks/_timing.py

STEPS = 100


def bench_case(series, T, repeats, s=12):
    from statsmodels.tsa.arima.model import ARIMA

    x = series[:T]
    rrkm = lambda: RecurrentRKM(s, kernel_params={"sigma": 1.0}, lag_weights="gaussian", p=1).fit(x)  # noqa: E731

    def arma():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ARIMA(x, order=(10, 0, 2)).fit()

    row = {"T": T}
    row["rrkm_fit"], model = best_wall(rrkm, repeats)
    row["rrkm_forecast"], _ = best_wall(lambda: model.forecast(STEPS), repeats)
    row["arma_fit"], fitted = best_wall(arma, repeats)
    row["arma_forecast"], _ = best_wall(lambda: fitted.forecast(STEPS), repeats)
    row["fit ratio"] = row["rrkm_fit"] / row["arma_fit"]
    row["forecast ratio"] = row["rrkm_forecast"] / row["arma_forecast"]
    return row


def format_table(rows):
    header = (f"{'T':>5} | {'RRKM fit':>9} {'ARMA fit':>9} {'ratio':>7} | "
              f"{'RRKM 100 steps':>14} {'ARMA 100 steps':>14} {'ratio':>7}")
    lines = [header, "-" * len(header)]
    for r in rows:
        lines.append(f"{r['T']:>5} | {r['rrkm_fit']:>8.3f}s {r['arma_fit']:>8.3f}s {r['fit ratio']:>6.2f}x | "
                     f"{r['rrkm_forecast']:>13.4f}s {r['arma_forecast']:>13.4f}s {r['forecast ratio']:>6.2f}x")
    return "\n".join(lines)


def main(quick=False):
    series = load_santafe(source="bundled").series
    sizes, repeats = ((500, 1000), 1) if quick else ((500, 1000, 2000), 3)
    rows = [bench_case(series, T, repeats) for T in sizes]
    print(format_table(rows))
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    main(quick=parser.parse_args().quick)
