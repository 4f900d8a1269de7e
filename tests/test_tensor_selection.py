"""Part III model selection (simulated annealing + k-fold CV) and the committee of RKMs."""

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold

from rkmlearn import TensorMultiViewRKM
from rkmlearn.kernels import RBF
from rkmlearn.models.committee import CommitteeRKM
from rkmlearn.models.selection import SimulatedAnnealingSearch, cv_accuracy


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    Xs = [y[:, None] * rng.normal(size=(1, d)) + 0.9 * rng.normal(size=(n, d)) for d in (3, 2, 4)]
    return Xs, y


def test_cv_accuracy_is_the_mean_over_stratified_folds():
    Xs, y = _data()
    model = TensorMultiViewRKM("rbf", rho=0.3, lam=0.2)
    scores = []
    for a, b in StratifiedKFold(4, shuffle=True, random_state=3).split(Xs[0], y):
        fitted = TensorMultiViewRKM("rbf", rho=0.3, lam=0.2).fit([X[a] for X in Xs], y[a])
        scores.append(fitted.score([X[b] for X in Xs], y[b]))
    assert cv_accuracy(model, Xs, y, cv=4, random_state=3) == pytest.approx(np.mean(scores), abs=1e-15)
    assert cv_accuracy(model, Xs, y, cv=4, random_state=3, n_jobs=2) == pytest.approx(np.mean(scores), abs=1e-15)


def test_annealing_is_seeded_and_keeps_the_best():
    Xs, y = _data()
    space = {"rho": (0.0, 1.0), "lam": (1e-3, 10.0, "log"), "sigma": (0.3, 10.0, "log")}

    def build(p):
        return {"rho": p["rho"], "lam": p["lam"], "kernels": [RBF(sigma=p["sigma"])] * 3}

    search = SimulatedAnnealingSearch(TensorMultiViewRKM(), space, build, n_iter=6, cv=3, random_state=0)
    search.fit(Xs, y)
    again = SimulatedAnnealingSearch(TensorMultiViewRKM(), space, build, n_iter=6, cv=3, random_state=0).fit(Xs, y)
    assert search.best_params_ == again.best_params_ and search.best_score_ == again.best_score_
    assert len(search.history_) == 7
    assert search.best_score_ == max(score for _, score, _ in search.history_)
    for point, _, _ in search.history_:
        assert 0 <= point["rho"] <= 1 and 1e-3 <= point["lam"] <= 10 and 0.3 <= point["sigma"] <= 10
    # the refitted estimator uses the best point
    assert search.best_estimator_.rho == search.best_params_["rho"]
    assert search.score(Xs, y) == search.best_estimator_.score(Xs, y)


@pytest.mark.parametrize("space, match", [({}, "space"), ({"rho": (1.0, 0.0)}, "low < high"),
                                          ({"lam": (0.0, 1.0, "log")}, "log"), ({"rho": (0, 1, "cubic")}, "space")])
def test_annealing_rejects_bad_spaces(space, match):
    Xs, y = _data()
    with pytest.raises(ValueError, match=match):
        SimulatedAnnealingSearch(TensorMultiViewRKM(), space).fit(Xs, y)


def test_committee_of_views_weights_from_training_errors():
    Xs, y = _data()
    kernels = [RBF(sigma=s) for s in (1.0, 1.5, 2.0)]
    comm = CommitteeRKM(TensorMultiViewRKM(kernels, lam=0.3, coding="moc"), n_jobs=1).fit(Xs, y)
    members = [TensorMultiViewRKM([k], lam=0.3, coding="moc").fit([X], y) for k, X in zip(kernels, Xs)]
    target = members[0].codebook_[y]
    E = np.stack([(target - m.decision_function([X])).ravel() for m, X in zip(members, Xs)])
    C = E @ E.T / E.shape[1]
    beta = np.linalg.solve(C, np.ones(3))
    beta /= beta.sum()
    assert np.max(np.abs(comm.weights_ - beta)) <= 1e-10
    F = sum(b * m.decision_function([X]) for b, m, X in zip(beta, members, Xs))
    assert np.max(np.abs(comm.decision_function(Xs) - F)) <= 1e-10
    assert comm.score(Xs, y) > 0.6


def test_committee_on_random_subsets_is_seeded():
    Xs, y = _data(n=90)
    a = CommitteeRKM(TensorMultiViewRKM("rbf", rho=0.5), members=3, subset_size=45, random_state=1).fit(Xs, y)
    b = CommitteeRKM(TensorMultiViewRKM("rbf", rho=0.5), members=3, subset_size=45, random_state=1).fit(Xs, y)
    assert len(a.members_) == 3 and all(m.dual_coef_.shape[0] == 45 for m in a.members_)
    assert np.array_equal(a.decision_function(Xs), b.decision_function(Xs))
    assert a.weights_.sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="members"):
        CommitteeRKM(members="all").fit(Xs, y)
    with pytest.raises(ValueError, match="fitted on 3"):
        a.predict(Xs[:2])


def test_dask_route_spreads_members_and_folds_over_a_local_cluster():
    """joblib's Dask backend on a LocalCluster at 127.0.0.1 (2 workers: with 1, joblib runs sequentially)."""
    pytest.importorskip("distributed")
    import joblib
    from distributed import Client, LocalCluster, get_task_stream

    Xs, y = _data(n=90)
    local = CommitteeRKM(TensorMultiViewRKM("rbf", rho=0.5), members=3, subset_size=45, random_state=1).fit(Xs, y)
    model = TensorMultiViewRKM("rbf", rho=0.3, lam=0.2)
    cv_local = cv_accuracy(model, Xs, y, cv=3, random_state=0)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp://", host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        with joblib.parallel_backend("dask"), get_task_stream(client) as stream:
            remote = CommitteeRKM(TensorMultiViewRKM("rbf", rho=0.5), members=3, subset_size=45,
                                  random_state=1).fit(Xs, y)
            cv_remote = cv_accuracy(model, Xs, y, cv=3, random_state=0, n_jobs=-1)
        assert client.scheduler_info()["address"].startswith("tcp://127.0.0.1")
        assert len(stream.data) >= 3 + 3  # the members and the folds ran as cluster tasks
    assert np.array_equal(remote.weights_, local.weights_)
    assert np.array_equal(remote.decision_function(Xs), local.decision_function(Xs))
    assert cv_remote == cv_local
