"""The baselines of the paper's Table 2 (Chapter 8): MV-LSSVM (eq. 4), BSV with b = 0, and the
committee with tuned weights."""

from __future__ import annotations

import numpy as np
import pytest

from rkmlearn import TensorMultiViewRKM
from rkmlearn.kernels import RBF, Linear
from rkmlearn.models import CommitteeRKM, MultiViewLSSVM, SimulatedAnnealingSearch


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    y = np.arange(45) % 3
    Xs = [y[:, None] * rng.normal(size=(1, d)) + 0.8 * rng.normal(size=(45, d)) for d in (3, 2, 2)]
    return Xs, y


def test_mvlssvm_equals_the_primal_of_eq4(data):
    """Linear kernels: the dual solution gives the decision values of eq. (4) solved in the primal."""
    Xs, y = data
    gamma, rho, V, n = np.array([2.0, 1.5, 3.0]), 0.4, 3, 45
    model = MultiViewLSSVM("linear", gamma=list(gamma), rho=rho, coding="ova").fit(Xs, y)
    G = np.full((V, V), 2 * rho)
    G[np.diag_indices(V)] = gamma
    Y = np.where(y[:, None] == np.arange(3), 1.0, -1.0)
    X_test = [X[:10] + 0.1 for X in Xs]
    for out in range(3):
        t = Y[:, out]
        # e_v = 1 - D_v theta_v, D_v = [diag(t) X_v, t]; minimise 1/2 sum |w_v|^2 + 1/2 e^T (G kron I) e
        D = np.zeros((V * n, sum(X.shape[1] + 1 for X in Xs)))
        R = np.zeros(D.shape[1])
        col = 0
        for v, X in enumerate(Xs):
            D[v * n:(v + 1) * n, col:col + X.shape[1]] = t[:, None] * X
            D[v * n:(v + 1) * n, col + X.shape[1]] = t
            R[col:col + X.shape[1]] = 1.0
            col += X.shape[1] + 1
        W = np.kron(G, np.eye(n))
        theta = np.linalg.solve(np.diag(R) + D.T @ W @ D, D.T @ W @ np.ones(V * n))
        f, col = 0.0, 0
        for X in X_test:
            f = f + X @ theta[col:col + X.shape[1]] + theta[col + X.shape[1]]
            col += X.shape[1] + 1
        assert np.allclose(model.decision_function(X_test)[:, out], f / V, atol=1e-9)


def test_mvlssvm_one_view_is_the_lssvm(data):
    Xs, y = data
    a = MultiViewLSSVM([RBF(2.0)], gamma=4.0).fit(Xs[:1], y)
    b = TensorMultiViewRKM([RBF(2.0)], lam=0.25).fit(Xs[:1], y)
    assert np.allclose(a.decision_function(Xs[:1]), b.decision_function(Xs[:1]), atol=1e-10)


def test_mvlssvm_uncoupled_is_the_mean_of_view_lssvms(data):
    Xs, y = data
    model = MultiViewLSSVM("rbf", gamma=2.0, rho=0.0).fit(Xs, y)
    single = [TensorMultiViewRKM("rbf", lam=0.5).fit([X], y).decision_function([X]) for X in Xs]
    assert np.allclose(model.decision_function(Xs), np.mean(single, axis=0), atol=1e-10)
    coupled = MultiViewLSSVM("rbf", gamma=2.0, rho=0.5).fit(Xs, y)
    assert not np.allclose(coupled.decision_function(Xs), model.decision_function(Xs))
    assert coupled.score(Xs, y) > 0.8


@pytest.mark.parametrize("params, match", [(dict(rho=1.0, gamma=2.0), "rho"), (dict(gamma=[1.0, 2.0]), "gamma"),
                                           (dict(gamma=-1.0), "gamma"), (dict(rho=-0.1), "rho"),
                                           (dict(coding="gray"), "coding")])
def test_mvlssvm_bad_parameters(data, params, match):
    Xs, y = data
    with pytest.raises(ValueError, match=match):
        MultiViewLSSVM("rbf", **params).fit(Xs, y)


def test_mvlssvm_checks_views_at_predict(data):
    Xs, y = data
    model = MultiViewLSSVM("rbf").fit(Xs, y)
    with pytest.raises(ValueError, match="view"):
        model.predict(Xs[:2])


def test_bsv_without_bias(data):
    """fit_intercept=False: b = 0 and (K / eta + lam I) alpha = tau y, no border (the paper's BSV_{b=0})."""
    Xs, y = data
    model = TensorMultiViewRKM([RBF(2.0)], lam=0.3, eta=0.7, fit_intercept=False, coding="ova").fit(Xs[:1], y)
    K = RBF(2.0)(Xs[0])
    Y = np.where(y[:, None] == np.arange(3), 1.0, -1.0)
    alpha = np.linalg.solve(K / 0.7 + 0.3 * np.eye(45), Y)
    assert np.array_equal(model.intercept_, np.zeros(3))
    assert np.allclose(model.dual_coef_, alpha, atol=1e-10)
    with_bias = TensorMultiViewRKM([RBF(2.0)], lam=0.3, eta=0.7, coding="ova").fit(Xs[:1], y)
    assert not np.allclose(with_bias.intercept_, 0.0)
    with pytest.raises(ValueError, match="fit_intercept"):
        TensorMultiViewRKM("rbf", fit_intercept="no").fit(Xs, y)


def test_committee_with_given_weights(data):
    Xs, y = data
    base = TensorMultiViewRKM([RBF(2.0), RBF(1.5), RBF(1.5)], lam=0.3)
    fixed = CommitteeRKM(base, weights=[2.0, 1.0, 1.0]).fit(Xs, y)
    assert np.allclose(fixed.weights_, [0.5, 0.25, 0.25])
    outputs = [m.decision_function([X]) for m, X in zip(fixed.members_, Xs)]
    assert np.allclose(fixed.decision_function(Xs), sum(w * o for w, o in zip(fixed.weights_, outputs)))
    default = CommitteeRKM(base).fit(Xs, y)
    assert not np.allclose(default.weights_, fixed.weights_)
    for bad in ([1.0, 1.0], [1.0, -1.0, 1.0], [0.0, 0.0, 0.0], "tuned"):
        with pytest.raises(ValueError, match="weights"):
            CommitteeRKM(base, weights=bad).fit(Xs, y)


def test_committee_weights_tuned_by_annealing(data):
    """The paper's "committee approach + weights tuned": the weights as hyperparameters of Algorithm 2."""
    Xs, y = data
    base = TensorMultiViewRKM([RBF(2.0), RBF(1.5), RBF(1.5)], lam=0.3)
    space = {f"w{v}": (0.01, 1.0, "log") for v in range(3)}
    search = SimulatedAnnealingSearch(CommitteeRKM(base), space, lambda p: {"weights": [p[f"w{v}"] for v in range(3)]},
                                      n_iter=4, cv=3, random_state=0).fit(Xs, y)
    w = np.array([search.best_params_[f"w{v}"] for v in range(3)])
    assert np.allclose(search.best_estimator_.weights_, w / w.sum())
    assert search.best_score_ == max(score for _, score, _ in search.history_)
