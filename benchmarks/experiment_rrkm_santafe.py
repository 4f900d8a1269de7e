"""A wider search of the recurrent RKM on Santa Fe (Chapter 10, Table 1), tuned on rolling origins.

Not a timing (``run_all.py`` does not run it; minutes on one core, ``--quick`` under one). Every
setting is fitted on the training values ``1..o`` and forecasts ``o+1..o+100`` recursively, for each
origin ``o`` (default 550, 700, 800, 900: all inside the 1000 training values; the window of 550
holds the collapse of the laser at values 605-620, the others none); its validation MSE is the mean
over the origins. The best setting is then refitted on the 1000 training values and forecasts the
100 test values, beside ARMA (order by AIC on the training part) fitted in the same run. The test
part chooses nothing.

The grid: Gaussian weights with ``p = 1``; ``window`` (delay embedding) 1, 20, 50, 70 (``window=1``
is the paper's model, longer windows an extension); ``sigma_x`` (per standardised value) 0.15,
0.25, 0.5, 1; ``sigma_t`` 0.5, 1; ``s`` 12, 48, 192; four pre-images sharing one fit: the kernel
smoother, the smoother over the 10 most similar steps (``preimage_top_k=10``), kernel ridge
regression with ridge 1e-3 and 1e-2.

``--store PATH`` also writes, as JSON, every setting's MSE per origin AND its test MSE (each setting
refitted on the 1000 training values: numbers that peek at the test part, stored so that Chapter 10
can report them as such), and a test-only grid of the paper's own model (``window=1``: ``sigma_x``
0.05 to 2, Gaussian ``sigma_t`` 0.5 / 1 / 2 and the indicator, ``p = 1``, ``s`` 3 to 192): the
chapter recomputes a few entries and checks them against the file
(``book/recurrent/data/rrkm_santafe_grid.json``).

``python benchmarks/experiment_rrkm_santafe.py [--quick] [--origins 550 700 800 900] [--store PATH]``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path
import warnings

import numpy as np
from statsmodels.tsa.arima.model import ARIMA

from rkmlearn import RecurrentRKM
from rkmlearn.datasets import load_santafe
from rkmlearn.models.recurrent.latent_dynamics import krr_fit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _provenance import provenance  # noqa: E402  (benchmarks/_provenance.py)

HORIZON = 100
ORIGINS = (550, 700, 800, 900)
#: Pre-images that share one fit: (name, top_k or ridge)
PREIMAGES = (("smoother", None), ("smoother", 10), ("krr", 1e-3), ("krr", 1e-2))


def _mse(forecast, truth):
    value = float(np.mean((np.asarray(forecast) - truth) ** 2))
    return value if np.isfinite(value) else np.inf


def make(window, sigma_x, sigma_t, s, lag_weights="gaussian", p=1):
    """The RRKM of one setting: RBF bandwidth ``sigma_x sqrt(window)`` on the standardised windows."""
    return RecurrentRKM(s, kernel_params={"sigma": sigma_x * np.sqrt(window)}, lag_weights=lag_weights, p=p,
                        sigma_t=sigma_t, window=window, preimage="krr", preimage_alpha=1e-3)


def forecasts(model, steps, preimages=PREIMAGES):
    """{(preimage, option): forecast} of one fitted model: the pre-images share its latents."""
    out = {}
    for preimage, option in preimages:
        if preimage == "krr":
            model.set_params(preimage="krr", preimage_top_k=None)
            model.preimage_weights_ = krr_fit(model.H_, model.view_.X_, model.preimage_kernel_, option)
        else:
            model.set_params(preimage="smoother", preimage_top_k=option)
        out[(preimage, option)] = model.forecast(steps)
    return out


def scores(series, origins, setting, preimages=PREIMAGES):
    """{(preimage, option): [MSE per origin]}: one fit per origin, all pre-images."""
    out = {key: [] for key in preimages}
    for o in origins:
        truth = series[o:o + HORIZON]
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                model = make(**setting).fit(series[:o])
                values = {key: _mse(f, truth) for key, f in forecasts(model, truth.size, preimages).items()}
            except ValueError:  # e.g. s too large for the fit part, or an overflowing recursion
                values = {key: np.inf for key in preimages}
        for key in preimages:
            out[key].append(values[key])
    return out


def _rows(series, origins, grid, with_test):
    rows = []
    for setting in grid:
        per_origin = scores(series[:1000], origins, setting) if origins else None
        test = scores(series, (1000,), setting) if with_test else None
        for key in PREIMAGES:
            row = {**setting, "preimage": key[0], "top_k" if key[0] == "smoother" else "alpha": key[1]}
            if per_origin is not None:
                row["val"] = per_origin[key]
            if test is not None:
                row["test"] = test[key][0]
            rows.append(row)
    return rows


def main(quick=False, origins=ORIGINS, store=None):
    santafe = load_santafe()
    train, test = santafe.train, santafe.test
    full = np.concatenate([train, test])
    names = ("window", "sigma_x", "sigma_t", "s")
    if quick:
        grid = [dict(zip(names, v)) for v in itertools.product((20, 70), (0.25,), (1.0,), (48, 192))]
    else:
        grid = [dict(zip(names, v)) for v in itertools.product((1, 20, 50, 70), (0.15, 0.25, 0.5, 1.0), (0.5, 1.0),
                                                               (12, 48, 192))]
    start = time.process_time()
    rows = _rows(full, origins, grid, with_test=store is not None)
    mean = [float(np.mean(row["val"])) for row in rows]
    order = np.argsort(mean, kind="stable")
    print(f"{len(rows)} settings x {len(origins)} origins {origins}: {time.process_time() - start:.0f} s CPU")
    print("ten best by mean validation MSE: setting: per origin | mean")
    for i in order[:10]:
        setting = {k: v for k, v in rows[i].items() if k not in ("val", "test")}
        print(f"  {setting}: {' / '.join(f'{v:.0f}' for v in rows[i]['val'])} | {mean[i]:.0f}")
    best = rows[order[0]]
    setting = {k: best[k] for k in names}
    key = (best["preimage"], best.get("top_k", best.get("alpha")))
    rrkm_test = scores(full, (1000,), setting, (key,))[key][0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fits = {(p, q): ARIMA(train, order=(p, 0, q)).fit() for p in (2, 6, 10) for q in (0, 2)}
    order_arma = min(fits, key=lambda k: fits[k].aic)
    arma_test = _mse(fits[order_arma].forecast(HORIZON), test)
    print(f"test MSE (100 steps): tuned RRKM {rrkm_test:.0f}, ARMA{order_arma} {arma_test:.0f}, "
          f"training mean {_mse(np.full(HORIZON, train.mean()), test):.0f}; paper: RRKM 119.06, ARMA 2224.55")
    if store is not None:
        paper_grid = [dict(window=1, sigma_x=sx, sigma_t=st, s=s, lag_weights=family)
                      for sx in (0.05, 0.1, 0.25, 0.5, 1.0, 2.0)
                      for family, st in (("gaussian", 0.5), ("gaussian", 1.0), ("gaussian", 2.0), ("indicator", 1.0))
                      for s in (3, 12, 48, 192)]
        paper_rows = _rows(full, (), paper_grid, with_test=True)
        with open(store, "w") as handle:
            json.dump({"origins": list(origins), "horizon": HORIZON, "grid": rows, "paper_model": paper_rows,
                       "provenance": provenance()},
                      handle, indent=0, allow_nan=True)
        print(f"stored {len(rows)} + {len(paper_rows)} rows in {store}")
    return {"best": best, "rrkm_test": rrkm_test, "arma_test": arma_test}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a small grid")
    parser.add_argument("--origins", type=int, nargs="+", default=list(ORIGINS))
    parser.add_argument("--store", help="write every setting's validation and test MSEs to this JSON file")
    args = parser.parse_args()
    main(quick=args.quick, origins=tuple(args.origins), store=args.store)
