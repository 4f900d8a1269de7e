"""A wider search of the recurrent RKM on Santa Fe (Chapter 10, Table 1), tuned on rolling origins.

Not a timing (``run_all.py`` does not run it; about 3 minutes on one core, ``--quick`` under one).
Every setting is fitted on the training values ``1..o`` and forecasts ``o+1..o+100`` recursively,
for each origin ``o`` (default 700, 800, 900: all inside the 1000 training values, as in the
chapter); its validation MSE is the mean over the origins. The best setting is then refitted on the
1000 training values and forecasts the 100 test values, beside ARMA (order by AIC on the training
part) fitted in the same run. The test part chooses nothing. The grid: Gaussian weights with
``p = 1``; ``window`` (delay embedding) 1, 10, 20, 32, 50, 70; ``sigma_x`` (per standardised value)
0.15, 0.25, 0.5, 1; ``sigma_t`` 0.5, 1, 2; ``s`` 12, 48, 192, 384; both pre-images, the kernel ridge
one with ridge 1e-3 and 1e-2 (the two pre-images share a fit).

``python benchmarks/experiment_rrkm_santafe.py [--quick] [--origins 500 600 700 800 900]``.
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings

import numpy as np
from statsmodels.tsa.arima.model import ARIMA

from rkmlearn import RecurrentRKM
from rkmlearn.datasets import load_santafe
from rkmlearn.models.latent_dynamics import krr_fit

HORIZON = 100


def _mse(forecast, truth):
    value = float(np.mean((np.asarray(forecast) - truth) ** 2))
    return value if np.isfinite(value) else np.inf


def scores(series, origins, window, sigma_x, sigma_t, s, alphas):
    """{(preimage, alpha): [MSE per origin]} of one fit per origin (all pre-images share it)."""
    keys = [("smoother", None)] + [("krr", alpha) for alpha in alphas]
    out = {key: [] for key in keys}
    for o in origins:
        truth = series[o:o + HORIZON]
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                model = RecurrentRKM(s, kernel_params={"sigma": sigma_x * np.sqrt(window)}, lag_weights="gaussian",
                                     p=1, sigma_t=sigma_t, window=window, preimage="krr",
                                     preimage_alpha=alphas[0] if alphas else 1e-3).fit(series[:o])
            except ValueError:  # e.g. s too large for the fit part
                for key in keys:
                    out[key].append(np.inf)
                continue
            for preimage, alpha in keys[1:]:  # only the ridge weights of the pre-image change
                model.preimage_weights_ = krr_fit(model.H_, model.view_.X_, model.preimage_kernel_, alpha)
                out[(preimage, alpha)].append(_mse(model.forecast(HORIZON), truth))
            model.set_params(preimage="smoother")
            out[keys[0]].append(_mse(model.forecast(HORIZON), truth))
    return out


def main(quick=False, origins=(700, 800, 900)):
    santafe = load_santafe()
    train, test = santafe.train, santafe.test
    full = np.concatenate([train, test])
    if quick:
        grid = itertools.product((20, 70), (0.15, 0.25), (0.5, 1.0), (48, 192))
        alphas = (1e-3,)
    else:
        grid = itertools.product((1, 10, 20, 32, 50, 70), (0.15, 0.25, 0.5, 1.0), (0.5, 1.0, 2.0), (12, 48, 192, 384))
        alphas = (1e-3, 1e-2)
    start = time.process_time()
    table = {}
    for window, sigma_x, sigma_t, s in grid:
        for (preimage, alpha), values in scores(train, origins, window, sigma_x, sigma_t, s, alphas).items():
            table[(window, sigma_x, sigma_t, s, preimage, alpha)] = values
    mean = {key: float(np.mean(v)) for key, v in table.items()}
    order = sorted(mean, key=mean.get)
    print(f"{len(table)} settings x {len(origins)} origins {origins}: {time.process_time() - start:.0f} s CPU")
    print("ten best by mean validation MSE: (window, sigma_x, sigma_t, s, preimage, alpha): per origin | mean")
    for key in order[:10]:
        print(f"  {key}: {' / '.join(f'{v:.0f}' for v in table[key])} | {mean[key]:.0f}")
    best = order[0]
    test_scores = scores(full, (train.size,), *best[:4], (best[5],) if best[5] is not None else ())
    rrkm_test = test_scores[(best[4], best[5])][0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fits = {(p, q): ARIMA(train, order=(p, 0, q)).fit() for p in (2, 6, 10) for q in (0, 2)}
    order_arma = min(fits, key=lambda k: fits[k].aic)
    arma_test = _mse(fits[order_arma].forecast(HORIZON), test)
    print(f"test MSE (100 steps): tuned RRKM {rrkm_test:.0f}, ARMA{order_arma} {arma_test:.0f}, "
          f"training mean {_mse(np.full(HORIZON, train.mean()), test):.0f}; paper: RRKM 119.06, ARMA 2224.55")
    return {"best": best, "rrkm_test": rrkm_test, "arma_test": arma_test}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a small grid")
    parser.add_argument("--origins", type=int, nargs="+", default=[700, 800, 900])
    args = parser.parse_args()
    main(quick=args.quick, origins=tuple(args.origins))
