"""Tables 2 and 3 of Tonin et al. (paper 003) on real MNIST digits, the protocol of the paper.

Data: :func:`rkmlearn.datasets.load_mnist_5k` (5,000 MNIST digits shipped with rkmlearn).

* **Table 2** (``table2``): 2,000 held-out test images; ``N`` stratified training images drawn
  from the other 3,000 by each of 5 seeds; one-vs-all (``p`` binary DRKMs, each with its own levels,
  ``OneVsRestClassifier``); ``6 | 3+3 | 2+2+2`` components; ``lambda = 0.5``, ``eta_j = eta = 1``;
  100 iterations from a random start (end-to-end, as the paper's Table 2); RBF level 1 at the
  median distance, linear deeper levels; the smoother ``sigma~`` chosen per draw and depth on a
  validation split (a fifth of the draw, stratified): the largest candidate within one validation
  image of the best. Beside it the 1-nearest-neighbour accuracy.
* **Depth with the joint DKPCA** (``depth``): ``N = 500``, 3 seeds, the same one-vs-all DRKMs with
  RBF deeper levels (bandwidth ``sqrt(2 s_(j-1) / N)``, the typical distance between two rows of an
  orthonormal ``H``), started from the paper's joint deep KPCA (``init="dkpca"``) or from the greedy
  levels (``"dkpca-greedy"``), each without and with fine-tuning; the DKPCA objectives of both.
* **Table 3** (``table3``): 4,000 training / 1,000 test images; LS-SVM (RBF at the median
  distance, ``gamma = 10``, one-vs-all), scikit-learn's MLP (10 ReLU units), and the two-level DRKM
  with the MLP level (``s_1 = s_2 = 10``) at the paper's ``lambda = 0.5, eta = 1`` (100 iterations)
  and at ``lambda = 0.01, eta = 1e-4`` trained until its objective converges (the relative change
  of the objective over 50 iterations below 1e-4; at most 500 iterations), for the three
  initialisations.

The results go to ``book/deep/mnist_<part>.json`` (Chapter 9 shows them and recomputes one cell).
``python benchmarks/experiment_table2_mnist.py [--quick] [--part table2|depth|table3|all]``; the
CPU time of each part is printed (``--quick``: a smoke run of every part in seconds, one seed,
Table 2 at ``N = 50``, the depth runs at ``N = 100``, Table 3 on 300 / 200 images with short
trainings; nothing written). Each file records the command and the commit that made it
(``"provenance"``, :mod:`_provenance`). Each
part writes its file after every finished unit (a size, a seed, a model), so a stopped run keeps
what it finished; Chapter 9 shows the sizes whose five draws are all stored.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import time
import sys
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.multiclass import OneVsRestClassifier  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier  # noqa: E402
from sklearn.neural_network import MLPClassifier  # noqa: E402

from rkmlearn import DeepRKMClassifier  # noqa: E402
from rkmlearn.datasets import load_mnist_5k  # noqa: E402
from rkmlearn.kernels import RBF  # noqa: E402
from rkmlearn.models.deep.training import median_distance  # noqa: E402
from rkmlearn.solvers.linear import BorderedSolver  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from _provenance import provenance  # noqa: E402  (benchmarks/_provenance.py)

OUT = pathlib.Path(__file__).resolve().parents[1] / "book" / "deep"  # mnist_<part>.json, one per part
ARCHITECTURES = {"1 level": (6,), "2 levels": (3, 3), "3 levels": (2, 2, 2)}
SIZES = (50, 100, 250, 500, 750, 1000)
#: candidate smoother bandwidths, as fractions of the median distance between two training images
SMOOTHER_FRACTIONS = (0.1, 0.15, 0.25, 0.4, 0.6)
PAPER_TABLE2 = {  # Tonin et al., Table 2: MNIST, mean (std) accuracy in %, N = 50, 100, 250, 500, 750, 1000
    "1 level": ((57.27, 5.75), (59.76, 4.51), (71.24, 5.74), (75.15, 7.47), (79.68, 7.01), (80.59, 7.64)),
    "2 levels": ((61.05, 1.24), (65.97, 1.03), (75.74, 0.50), (81.11, 1.22), (83.89, 0.23), (85.29, 0.45)),
    "3 levels": ((61.02, 1.23), (65.64, 1.70), (75.69, 0.49), (81.35, 0.43), (83.90, 0.20), (85.29, 0.69)),
}
PAPER_TABLE3 = {"LS-SVM": 91.75, "MLP": 87.33, "DRKM-MLP, DKPCA init, no fine-tuning": 92.72,
                "DRKM-MLP, DKPCA init, fine-tuning": 92.73, "DRKM-MLP, random init, end-to-end": 92.78}


def drkm(s, seed, median, **kw):
    """The Table 2 binary DRKM: RBF level 1 at the median distance, linear deeper levels (the defaults,
    with the median computed once per draw instead of once per binary model)."""
    kw = {"kernel_params": [{"sigma": median}] + [None] * (len(s) - 1), "smoother_sigma": 0.25 * median, **kw}
    return DeepRKMClassifier(s, random_state=seed, **kw)


def ova_predict(ova, X, smoother_sigma):
    """``ova.predict(X)`` with the smoother bandwidth ``smoother_sigma``, the distances computed once.

    The same arithmetic as ``DeepRKMClassifier.transform`` and ``decision_function`` of each binary
    model (all share the training images), without recomputing the test-to-training distances
    for each of the ten models and each candidate bandwidth.
    """
    from rkmlearn.kernels import squared_euclidean_distances

    D = squared_euclidean_distances(X, ova.estimators_[0].X_fit_)
    D -= D.min(axis=1, keepdims=True)
    weights = np.exp(-D / (2.0 * smoother_sigma**2))
    weights /= weights.sum(axis=1, keepdims=True)
    scores = np.column_stack([(weights @ m.H_[-1]) @ m.coef_[:, 0] + m.intercept_[0] for m in ova.estimators_])
    return ova.classes_[np.argmax(scores, axis=1)]


def fit_quiet(model, X, y):
    with warnings.catch_warnings():  # the paper's fixed budget of 100 iterations does not converge
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X, y)


def choose_smoother(s, seed, X, y):
    """The fraction of the median distance that a validation split of the draw picks (see module doc)."""
    X_fit, X_val, y_fit, y_val = train_test_split(X, y, test_size=0.2, stratify=y, random_state=seed)
    median = median_distance(X_fit)
    ova = fit_quiet(OneVsRestClassifier(drkm(s, seed, median)), X_fit, y_fit)
    # the smoother acts at prediction only: one fit serves every candidate
    right = [int(np.sum(ova_predict(ova, X_val, f * median) == y_val)) for f in SMOOTHER_FRACTIONS]
    return max(f for f, r in zip(SMOOTHER_FRACTIONS, right) if r >= max(right) - 1)


def table2_cell(N, seed, name):
    """Correct test images (of 2,000) of one draw and depth, with the smoother fraction chosen."""
    data = load_mnist_5k(N, random_state=seed)
    s = ARCHITECTURES[name]
    fraction = choose_smoother(s, seed, data.X_train, data.y_train)
    median = median_distance(data.X_train)
    ova = fit_quiet(OneVsRestClassifier(drkm(s, seed, median)), data.X_train, data.y_train)
    return int(np.sum(ova_predict(ova, data.X_test, fraction * median) == data.y_test)), fraction


def _merge(old, new):
    for key, value in new.items():
        if isinstance(value, dict) and isinstance(old.get(key), dict):
            _merge(old[key], value)
        elif isinstance(value, list) and isinstance(old.get(key), list):
            old[key] = sorted(set(old[key]) | set(value))
        else:
            old[key] = value
    return old


def save(name, result):
    """Merge what a part has so far into its file (a stopped run keeps its finished cells; several
    processes, e.g. one per training size, can fill one file: a lock serialises them)."""
    if not SAVE:
        return
    import fcntl

    path = OUT / f"mnist_{name}.json"
    import tempfile

    with open(pathlib.Path(tempfile.gettempdir()) / f"rkmlearn_mnist_{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        merged = _merge(json.loads(path.read_text()) if path.exists() else {}, {**result, "provenance": provenance()})
        path.write_text(json.dumps(merged, indent=1, sort_keys=True) + "\n")


def table2(sizes, seeds):
    out = {"correct": {}, "fraction": {}, "nn1": {}, "n_test": 2000, "sizes": []}
    for N in sizes:
        for seed in seeds:
            data = load_mnist_5k(N, random_state=seed)
            nn = KNeighborsClassifier(1).fit(data.X_train, data.y_train)
            out["nn1"][f"{N},{seed}"] = int(np.sum(nn.predict(data.X_test) == data.y_test))
            for name in ARCHITECTURES:
                c, f = table2_cell(N, seed, name)
                out["correct"][f"{N},{seed},{name}"], out["fraction"][f"{N},{seed},{name}"] = c, f
            print(f"  N = {N}, seed {seed}: " + ", ".join(
                f"{name} {out['correct'][f'{N},{seed},{name}']}" for name in ARCHITECTURES)
                  + f", 1-NN {out['nn1'][f'{N},{seed}']}", flush=True)
        out["sizes"].append(N)  # every seed of this N is done
        save("table2", out)
    return out


def depth(seeds, N=500):
    """Depth with the paper's joint DKPCA (and the greedy levels) as the start, RBF deeper levels.

    One level has no deeper level, so its joint and greedy DKPCA are the same (KPCA): only "dkpca".
    """
    out = {"correct": {}, "objective": {}, "n_iter": {}, "seeds": []}
    for seed in seeds:
        data = load_mnist_5k(N, random_state=seed)
        sigma_x = median_distance(data.X_train)
        for name, s in ARCHITECTURES.items():
            params = [{"sigma": sigma_x}] + [{"sigma": float(np.sqrt(2 * sj / N))} for sj in s[:-1]]
            for init in ("dkpca",) if len(s) == 1 else ("dkpca", "dkpca-greedy"):
                # the DKPCA levels do not see the labels: computed once, shared by the ten binary models
                unsupervised = fit_quiet(drkm(s, seed, sigma_x, kernels="rbf", kernel_params=params, init=init,
                                              fine_tune=False, max_iter=0), data.X_train, data.y_train == 0)
                out["objective"][f"{seed},{name},{init}"] = unsupervised.init_objective_
                out["n_iter"][f"{seed},{name},{init}"] = unsupervised.dkpca_n_iter_
                for fine_tune in (False, True):
                    kw = dict(kernels="rbf", kernel_params=params, init=unsupervised.H_, fine_tune=fine_tune)
                    ova = fit_quiet(OneVsRestClassifier(drkm(s, seed, sigma_x, **kw)), data.X_train, data.y_train)
                    key = f"{seed},{name},{init},{fine_tune}"
                    out["correct"][key] = int(np.sum(ova_predict(ova, data.X_test, 0.25 * sigma_x) == data.y_test))
            print(f"  depth, seed {seed}, {name}: " + ", ".join(
                f"{k.split(',', 2)[2]} {v}" for k, v in out["correct"].items() if k.startswith(f"{seed},{name},")),
                flush=True)
        out["seeds"].append(seed)
        save("depth", out)
    return out


def drkm_mlp_until_converged(X, y, seed, lam, eta, init, fine_tune, window=50, rtol=1e-4, max_iter=500):
    """Train until the objective changes by less than ``rtol`` (relative) over ``window`` iterations."""
    sigma = median_distance(X)
    kw = dict(kernels=["rbf", "linear"], kernel_params=[{"sigma": sigma}, None], classifier="mlp", lam=lam,
              eta=eta, init=init, fine_tune=fine_tune, smoother_sigma=0.25 * sigma, random_state=seed)
    # train in chunks of `window` iterations, continuing from where the last stopped, is not offered by
    # the estimator; instead: one run of max_iter, and the iteration at which the criterion first held
    model = fit_quiet(DeepRKMClassifier((10, 10), max_iter=max_iter, **kw), X, y)
    f = np.asarray(model.history_["objective"])
    k = np.arange(window, f.size)
    ok = np.abs(f[k] - f[k - window]) <= rtol * np.abs(f[k])
    return model, (int(k[ok][0]) if ok.any() else None)


TABLE3_INITS = {"random": ("random init, end-to-end", "random", True),
                "dkpca": ("DKPCA init, fine-tuning", "dkpca", True),
                "dkpca-fixed": ("DKPCA init, no fine-tuning", "dkpca", False)}


def table3(seed=0, max_iter=500, tags=("baselines", "paper", "chapter"), inits=tuple(TABLE3_INITS), n_train=4000,
           n_test=1000, paper_iter=100):
    data = load_mnist_5k(n_train, n_test=n_test, random_state=seed, test_random_state=seed)
    X, y, Xt, yt = data.X_train, data.y_train, data.X_test, data.y_test
    out = {"accuracy": {}, "converged_at": {}, "train_accuracy": {}, "n_test": n_test, "max_iter": max_iter}
    if "baselines" in tags:
        table3_baselines(X, y, Xt, yt, seed, out)
    for tag, lam, eta, iters in (("paper", 0.5, 1.0, paper_iter), ("chapter", 0.01, 1e-4, max_iter)):
        if tag not in tags:
            continue
        for name, init, fine_tune in (TABLE3_INITS[k] for k in inits):
            model, at = drkm_mlp_until_converged(X, y, seed, lam, eta, init, fine_tune, max_iter=iters)
            key = f"DRKM-MLP, {name}, {tag}"
            out["accuracy"][key] = int(np.sum(model.predict(Xt) == yt))
            out["train_accuracy"][key] = float(np.mean(model.predict(X) == y))
            out["converged_at"][key] = at
            print(f"  {key}: {out['accuracy'][key]} of {n_test} (train {out['train_accuracy'][key]:.3f}), "
                  f"objective converged at {at}", flush=True)
            save("table3", out)
    return out


def table3_baselines(X, y, Xt, yt, seed, out):
    sigma = median_distance(X)
    classes = np.arange(10)
    Y = np.where(y[:, None] == classes[None, :], 1.0, -1.0)
    kernel = RBF(sigma)
    alpha, b = BorderedSolver(kernel(X) + np.eye(len(y)) / 10.0, np.ones(len(y))).solve(Y)
    out["accuracy"]["LS-SVM"] = int(np.sum(np.argmax(kernel(Xt, X) @ alpha + b, axis=1) == yt))
    mlp = MLPClassifier((10,), max_iter=2000, random_state=seed).fit(X, y)
    out["accuracy"]["MLP"] = int(np.sum(mlp.predict(Xt) == yt))
    print(f"  LS-SVM {out['accuracy']['LS-SVM']}, MLP {out['accuracy']['MLP']} of {len(yt)}", flush=True)
    save("table3", out)


SAVE = True


def main(part="all", quick=False, sizes=None, seeds=None, tags=None, inits=None):
    global SAVE
    SAVE = not quick
    sizes = sizes or ((50,) if quick else SIZES)
    t3 = {k: v for k, v in (("tags", tags), ("inits", inits)) if v}
    if quick:  # a smoke run of every part (seconds): the smallest size, one seed, short trainings
        t3.update(n_train=300, n_test=200, paper_iter=10)
    for name, run in (("table2", lambda: table2(sizes, seeds or ((0,) if quick else range(5)))),
                      ("depth", lambda: depth(seeds or ((0,) if quick else range(3)), N=100 if quick else 500)),
                      ("table3", lambda: table3(max_iter=20 if quick else 500, **t3))):
        if part not in ("all", name):
            continue
        t0 = time.process_time()
        print(f"{name}:", flush=True)
        run()
        print(f"{name}: {time.process_time() - t0:.0f} s CPU", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="table2 N = 50, depth N = 100, table3 300 / 200 images, one seed, short runs; nothing written")
    parser.add_argument("--part", default="all", choices=("all", "table2", "depth", "table3"))
    parser.add_argument("--sizes", type=int, nargs="+", help="table2: these N only")
    parser.add_argument("--seeds", type=int, nargs="+", help="table2, depth: these seeds only")
    parser.add_argument("--tags", nargs="+", choices=("baselines", "paper", "chapter"), help="table3: these runs")
    parser.add_argument("--inits", nargs="+", choices=tuple(TABLE3_INITS), help="table3: these DRKM-MLP starts")
    args = parser.parse_args()
    main(args.part, args.quick, args.sizes, args.seeds, args.tags, args.inits)
