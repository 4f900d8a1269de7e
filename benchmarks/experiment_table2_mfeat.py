"""The Digits column of the paper's Table 2 at full size: 1600 / 400 digits, 3 splits, tuned by annealing.

Not a timing (``run_all.py`` does not run it; a few minutes on one core). For each split
``load_mfeat(random_state=s)``, ``s = 0, 1, 2``: views standardised with training statistics, RBF
kernels ``sigma_v = f sqrt(d_v)`` with one factor ``f`` for all views, and

* rho-TMV-RKM (``add`` and ``mean``): :class:`~rkmlearn.models.SimulatedAnnealingSearch` over
  ``rho in [0, 1]``, ``lambda in [1e-3, 10]`` and ``f in [0.25, 4]`` (log scales), 5-fold CV
  accuracy, 25 candidates after the centre;
  with ``--per-view``, one factor ``f_v`` per view instead (the paper's ``theta^[1:V]`` of Algorithm
  2: 8 parameters, 40 candidates);
* BSV: the same search per view over ``(lambda, f)`` (10 candidates), the view with the best CV
  accuracy; BSV b=0: the search again on that view without bias (``fit_intercept=False``); FC: the
  search on all views concatenated; Comm: :class:`~rkmlearn.models.CommitteeRKM` of the per-view
  models with their tuned parameters; Comm, weights tuned: its weights searched instead (the paper's
  "committee approach + weights tuned"); with ``--mvlssvm`` (always with ``--quick``)
  :class:`~rkmlearn.models.MultiViewLSSVM` (eq. 4) over ``gamma``, the coupling and ``f``: its
  system has ``(N + 1) V`` rows, slow at 1600 digits.

Prints mean (std) test accuracy per method beside the paper's numbers.
``python benchmarks/experiment_table2_mfeat.py [--quick] [--per-view] [--mvlssvm]``; ``--quick``: one
split, 200 training digits, 3 folds, a few candidates (a smoke run, used by the tests).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from rkmlearn import TensorMultiViewRKM
from rkmlearn.datasets import load_mfeat
from rkmlearn.kernels import RBF
from rkmlearn.models import CommitteeRKM, MultiViewLSSVM, SimulatedAnnealingSearch

PAPER = {"BSV": (74.25, 10.03), "BSV b=0": (78.67, 0.88), "FC": (9.25, 2.18), "Comm": (12.25, 21.22),
         "MV-LSSVM": (74.42, 15.46), "add": (94.92, 1.04), "mean": (84.83, 11.27)}


def _split(seed, n_train=None):
    data = load_mfeat(random_state=seed)
    train, y = data.views_train, data.y_train
    if n_train is not None:  # a stratified subset of the training digits
        idx, _ = train_test_split(np.arange(len(y)), train_size=n_train, stratify=y, random_state=seed)
        train, y = [X[np.sort(idx)] for X in train], y[np.sort(idx)]
    scalers = [StandardScaler().fit(X) for X in train]
    return ([s.transform(X) for s, X in zip(scalers, train)], y,
            [s.transform(X) for s, X in zip(scalers, data.views_test)], data.y_test)


def _builder(dims, per_view=False, **fixed):
    def build(p):
        factors = [p[f"f{v}"] for v in range(len(dims))] if per_view else [p["f"]] * len(dims)
        params = {"lam": p["lam"], "kernels": [RBF(sigma=f * np.sqrt(d)) for f, d in zip(factors, dims)], **fixed}
        if "rho" in p:
            params["rho"] = p["rho"]
        return params
    return build


def _mvlssvm_builder(dims):
    def build(p):  # one gamma and one bandwidth factor for all views, the coupling rho < gamma / 2
        return {"gamma": p["gamma"], "rho": p["c"] * p["gamma"] / 2,
                "kernels": [RBF(sigma=p["f"] * np.sqrt(d)) for d in dims]}
    return build


def main(quick=False, per_view=False, mvlssvm=None):
    mvlssvm = quick if mvlssvm is None else mvlssvm  # its system is (N + 1) V: on request at full size
    # --quick: one split, 200 training digits, 3 folds, a few candidates (a smoke run: seconds)
    n_iter, n_iter_small, splits, cv = (3, 2, 1, 3) if quick else (40 if per_view else 25, 10, 3, 5)
    space2 = {"lam": (1e-3, 10.0, "log"), "f": (0.25, 4.0, "log")}
    space3 = {"rho": (0.0, 1.0), **space2}
    if per_view:  # one bandwidth factor per view (6 mfeat views)
        space3 = {"rho": (0.0, 1.0), "lam": (1e-3, 10.0, "log"), **{f"f{v}": (0.25, 4.0, "log") for v in range(6)}}
    keys = ["BSV", "BSV b=0", "FC", "Comm", "Comm, weights tuned", "add", "mean"] + (["MV-LSSVM"] if mvlssvm else [])
    acc = {k: [] for k in keys}
    rhos = {"add": [], "mean": []}
    start = time.perf_counter()
    for seed in range(splits):
        train, y, test, y_test = _split(seed, n_train=200 if quick else None)
        dims = [X.shape[1] for X in train]
        base = TensorMultiViewRKM(coding="moc")
        # one search per view (a list of its own: `per_view` is the flag of the tensor model's search)
        view_searches = [SimulatedAnnealingSearch(base, space2, _builder([d]), n_iter=n_iter_small, cv=cv,
                                                  random_state=seed).fit([X], y)
                         for d, X in zip(dims, train)]
        best = int(np.argmax([s.best_score_ for s in view_searches]))
        acc["BSV"].append(view_searches[best].score([test[best]], y_test))
        bsv0 = SimulatedAnnealingSearch(TensorMultiViewRKM(coding="moc", fit_intercept=False), space2,
                                        _builder([dims[best]]), n_iter=n_iter_small, cv=cv,
                                        random_state=seed).fit([train[best]], y)
        acc["BSV b=0"].append(bsv0.score([test[best]], y_test))
        fc = SimulatedAnnealingSearch(base, space2, _builder([sum(dims)]), n_iter=n_iter_small, cv=cv,
                                      random_state=seed)
        acc["FC"].append(fc.fit([np.hstack(train)], y).score([np.hstack(test)], y_test))
        kernels = [s.best_estimator_.kernels[0] for s in view_searches]
        lam = float(np.exp(np.mean([np.log(s.best_params_["lam"]) for s in view_searches])))
        comm = CommitteeRKM(TensorMultiViewRKM(kernels, lam=lam, coding="moc")).fit(train, y)
        acc["Comm"].append(comm.score(test, y_test))
        tuned = SimulatedAnnealingSearch(comm, {f"w{v}": (0.01, 1.0, "log") for v in range(len(dims))},
                                         lambda p: {"weights": [p[f"w{v}"] for v in range(len(dims))]},
                                         n_iter=n_iter_small, cv=cv, random_state=seed).fit(train, y)
        acc["Comm, weights tuned"].append(tuned.score(test, y_test))
        if mvlssvm:
            mv = SimulatedAnnealingSearch(MultiViewLSSVM(coding="moc"), {"gamma": (0.1, 1e3, "log"), "c": (0.0, 0.9),
                                          "f": (0.25, 4.0, "log")}, _mvlssvm_builder(dims), n_iter=n_iter_small,
                                          cv=cv, random_state=seed).fit(train, y)
            acc["MV-LSSVM"].append(mv.score(test, y_test))
        for rule in ("add", "mean"):
            search = SimulatedAnnealingSearch(base, space3, _builder(dims, per_view, decision=rule), n_iter=n_iter,
                                              cv=cv, random_state=seed).fit(train, y)
            acc[rule].append(search.score(test, y_test))
            rhos[rule].append(search.best_params_["rho"])
        print(f"split {seed}: " + ", ".join(f"{k} {100 * v[-1]:.2f}" for k, v in acc.items())
              + f"  ({time.perf_counter() - start:.0f} s)", flush=True)
    print(f"\n{'method':18s} {'here: mean (std) %':>20s} {'paper: mean (std) %':>21s}")
    names = {"add": "rhoTMV-RKM_add", "mean": "rhoTMV-RKM_mean"}
    for key in acc:
        a = 100 * np.array(acc[key])
        paper = f"{PAPER[key][0]:14.2f} ({PAPER[key][1]:5.2f})" if key in PAPER else f"{'-':>22s}"
        print(f"{names.get(key, key):20s} {a.mean():10.2f} ({a.std():4.2f}) {paper}")
    print("tuned rho, add:", [f"{r:.2f}" for r in rhos["add"]], " mean:", [f"{r:.2f}" for r in rhos["mean"]])
    print("bandwidths:", "one factor per view" if per_view else "one factor f for all views")
    return {key: 100 * np.array(v) for key, v in acc.items()}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--per-view", action="store_true", help="one bandwidth factor per view")
    parser.add_argument("--mvlssvm", action="store_true", help="also MV-LSSVM (always with --quick)")
    args = parser.parse_args()
    main(quick=args.quick, per_view=args.per_view, mvlssvm=args.mvlssvm or None)
