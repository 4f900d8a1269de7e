"""DeepRKMClassifier (Part IV, Chapter 9): gradients, constraint, objective (monotone for the LS-SVM), special cases."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_moons
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks

from rkmlearn import KPCA, DeepRKMClassifier, View, solve_level
from rkmlearn.kernels import RBF, GramCenterer, Laplacian, Linear
from rkmlearn.models.deep import SMOOTHER_FRACTION
from rkmlearn.models.deep.objective import deep_objective, kernel_trace_gradient, lssvm_loss, mlp_loss
from rkmlearn.solvers.optimisers import projected_gradient
from rkmlearn.solvers.stiefel import project_stiefel

EPS = np.finfo(float).eps


def _numeric_gradient(fun, blocks, step=1e-6):
    grads = []
    for b, block in enumerate(blocks):
        g = np.zeros_like(block)
        for idx in np.ndindex(block.shape):
            plus = [x.copy() for x in blocks]
            minus = [x.copy() for x in blocks]
            plus[b][idx] += step
            minus[b][idx] -= step
            g[idx] = (fun(plus) - fun(minus)) / (2 * step)
        grads.append(g)
    return grads


def _relative_error(analytic, numeric):
    a = np.concatenate([g.ravel() for g in analytic])
    n = np.concatenate([g.ravel() for g in numeric])
    return np.linalg.norm(a - n) / np.linalg.norm(n)


def _problem(n=12, d=3, s=(3, 2), seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    K0_c = GramCenterer().fit_transform(RBF(1.5)(X))
    Hs = [project_stiefel(rng.normal(size=(n, sj))) for sj in s]
    return rng, X, K0_c, Hs


@pytest.mark.parametrize("kernel", [RBF(0.4), Linear()])
def test_kernel_trace_gradient_matches_finite_differences(kernel):
    rng = np.random.default_rng(1)
    Z, H = rng.normal(size=(10, 3)) * 0.3, project_stiefel(rng.normal(size=(10, 2)))
    Hc = H - H.mean(axis=0)

    def fun(blocks):
        return float(np.sum(GramCenterer().fit_transform(kernel(blocks[0])) * (H @ H.T)))

    analytic = kernel_trace_gradient(kernel, Z, kernel(Z), Hc @ Hc.T)
    assert _relative_error([analytic], _numeric_gradient(fun, [Z])) <= 1e-6


def test_kernel_trace_gradient_rejects_other_kernels():
    with pytest.raises(ValueError, match="level j >= 2"):
        kernel_trace_gradient(Laplacian(1.0), np.ones((3, 1)), np.ones((3, 3)), np.ones((3, 3)))


@pytest.mark.parametrize("level_kernel", [RBF(0.5), Linear()])
def test_lssvm_objective_gradient_matches_finite_differences(level_kernel):
    rng, X, K0_c, Hs = _problem()
    Y = np.where(rng.normal(size=(12, 1)) > 0, 1.0, -1.0)
    theta = rng.normal(size=(3, 1))
    fun, grad = deep_objective(K0_c, [level_kernel], [1.0, 0.7], head=lambda H, t: lssvm_loss(H, t, Y, 0.5, 1.3))
    blocks = Hs + [theta]
    assert _relative_error(grad(blocks), _numeric_gradient(fun, blocks)) <= 1e-6


def test_mlp_objective_gradient_matches_finite_differences():
    rng, X, K0_c, Hs = _problem(s=(3, 2, 2))
    labels = np.arange(12) % 3
    t1, t2 = rng.normal(size=(3, 4)), rng.normal(size=(5, 3))
    fun, grad = deep_objective(K0_c, [RBF(0.6), Linear()], [1.0, 2.0, 0.5],
                               head=lambda H, a, b: mlp_loss(H, a, b, labels, 0.5, 0.8))
    blocks = Hs + [t1, t2]
    assert _relative_error(grad(blocks), _numeric_gradient(fun, blocks)) <= 1e-6


def test_shallow_objective_is_equation_4():
    # one level: J_1 = -1/(2 eta_1) tr(H^T K_c H) + eta/2 w^T w + 1/(2 lam) sum (1 - y_i (w^T h_i + b))^2
    rng, X, K0_c, Hs = _problem(s=(3,))
    y = np.where(rng.normal(size=12) > 0, 1.0, -1.0)
    w, b = rng.normal(size=3), 0.3
    H = Hs[0]
    direct = -np.trace(H.T @ K0_c @ H) / (2 * 0.8) + 1.1 / 2 * w @ w + np.sum((1 - y * (H @ w + b)) ** 2) / (2 * 0.5)
    fun, _ = deep_objective(K0_c, [], [0.8], head=lambda H, t: lssvm_loss(H, t, y[:, None], 0.5, 1.1))
    assert abs(fun([H, np.append(w, b)[:, None]]) - direct) <= 1e-12 * abs(direct)


def _moons(n=60):
    return make_moons(n, noise=0.15, random_state=0)


def _model(**kw):
    params = dict(n_components=(4, 2), kernel_params=[{"sigma": 0.5}, {"sigma": 0.2}], smoother_sigma=0.2,
                  random_state=0)
    params.update(kw)
    return DeepRKMClassifier(**params)


@pytest.mark.parametrize("classifier", ["lssvm", "mlp"])
@pytest.mark.parametrize("init", ["random", "dkpca"])
def test_constraint_and_objective(classifier, init):
    X, y = _moons()
    # objective 7 weighs the cross-entropy by 1/(2 lam N): with the paper's lam = 0.5, eta = 1 the
    # KPCA terms and the weight decay dominate it on 60 points
    extra = {"lam": 0.01, "eta": 1e-4} if classifier == "mlp" else {}
    model = _model(classifier=classifier, init=init, **extra).fit(X, y)
    for H in model.H_:
        assert np.abs(H.T @ H - np.eye(H.shape[1])).max() <= 1e-10
    assert max(model.history_["constraint_violation"]) <= 1e-10
    f = np.asarray(model.history_["objective"])
    if classifier == "lssvm":  # one line search over all blocks: monotone (Adam's MLP steps are not searched)
        assert np.all(np.diff(f) <= 32 * EPS * np.maximum(1.0, np.abs(f[:-1])))
    assert f[-1] < f[0]
    assert model.score(X, y) >= 0.8


@pytest.mark.parametrize("init, fine_tune", [("random", True), ("dkpca", True), ("dkpca", False)])
def test_mlp_weights_trained_by_adam_learn(init, fine_tune):
    """The paper trains the MLP weights with Adam: on 150 moons the MLP level learns within max_iter."""
    X, y = make_moons(150, noise=0.15, random_state=1)
    model = _model(classifier="mlp", lam=0.01, eta=1e-4, init=init, fine_tune=fine_tune).fit(X, y)
    f = model.history_["objective"]
    assert model.n_iter_ == 100 and f[-1] < f[0] - 1.0
    assert model.score(X, y) >= 0.8  # chance: 0.5; the fixed DKPCA features alone reach about 0.85
    assert max(model.history_["constraint_violation"]) <= 1e-10
    # learning_rate is Adam's: another rate, another run
    other = _model(classifier="mlp", lam=0.01, eta=1e-4, init=init, fine_tune=fine_tune, learning_rate=0.003).fit(X, y)
    assert other.history_["objective"][-1] != f[-1]


@pytest.mark.parametrize("init, fine_tune, expected", [
    # history_["objective"][0, 10, -1] and coef_ on main before Adam came in (bit for bit on the same
    # machine; 40 non-convex steps amplify another BLAS kernel's rounding to about 1e-12 relative, so
    # rtol 1e-8: far below what any change of the optimiser would move)
    ("random", True, ([74.67182714224425, 6.697360965744718, -4.575002184680539], [4.939092543798685,
                                                                                    -1.5159956001659034])),
    ("dkpca-greedy", False, ([44.03770714006104, 13.601786807069686, 13.601215943621924], [-2.905726523360682,
                                                                                     -2.5807744731490443])),
])
def test_lssvm_training_is_unchanged_by_adam(init, fine_tune, expected):
    X, y = _moons()
    model = _model(init=init, fine_tune=fine_tune, max_iter=40).fit(X, y)
    f = model.history_["objective"]
    np.testing.assert_allclose([f[0], f[10], f[-1]], expected[0], rtol=1e-8)
    np.testing.assert_allclose(model.coef_[:, 0], expected[1], rtol=1e-8)
    assert np.all(np.diff(f) <= 32 * EPS * np.maximum(1.0, np.abs(f[:-1])))
    # the LS-SVM weights are line searched: Adam's learning_rate is not used
    other = _model(init=init, fine_tune=fine_tune, max_iter=40, learning_rate=0.5).fit(X, y)
    assert other.history_ == model.history_


def test_classifier_term_off_one_level_spans_kpca():
    rng, X, K0_c, _ = _problem(n=30, s=(3,))
    fun, grad = deep_objective(K0_c, [], [1.0])
    result = projected_gradient(fun, grad, [project_stiefel(rng.normal(size=(30, 3)))], blocks=("stiefel",),
                                max_iter=3000, tol=1e-12)
    H = result.X[0]
    H_kpca = KPCA(3, kernel=RBF(1.5)).fit(X).H_
    assert np.linalg.norm(H @ H.T - H_kpca @ H_kpca.T) <= 1e-6


def test_classifier_term_off_deep_levels_are_kpca_of_the_previous_level():
    rng, X, K0_c, Hs = _problem(n=30, s=(3, 2))
    fun, grad = deep_objective(K0_c, [RBF(0.3)], [1.0, 1.0])
    result = projected_gradient(fun, grad, Hs, blocks=("stiefel", "stiefel"), max_iter=5000, tol=1e-12)
    H1, H2 = result.X
    top = KPCA(2, kernel=RBF(0.3)).fit(H1).H_  # level 2: top eigenvectors of K_c(H_1)
    assert np.linalg.norm(H2 @ H2.T - top @ top.T) <= 1e-6


def test_dkpca_initialisation_without_fine_tuning_is_sequential_kpca_plus_ridge():
    X, y = _moons()
    model = _model(init="dkpca-greedy", fine_tune=False, max_iter=2000, tol=1e-13).fit(X, y)
    H1 = solve_level([View("rbf", kernel_params={"sigma": 0.5}).fit(X)], 4).H
    H2 = solve_level([View("rbf", kernel_params={"sigma": 0.2}).fit(H1)], 2).H
    assert np.abs(model.H_[0] - H1).max() <= 1e-12 and np.abs(model.H_[1] - H2).max() <= 1e-12
    # the classifier's stationarity: [H 1]^T [H 1] / lam + eta diag(1, 1, 0) times [w; b] = [H 1]^T y / lam
    A = np.hstack([H2, np.ones((60, 1))])
    Y = np.where(y == 1, 1.0, -1.0)
    M = A.T @ A / 0.5 + np.diag([1.0, 1.0, 0.0])
    wb = np.linalg.solve(M, A.T @ Y / 0.5)
    assert np.abs(np.append(model.coef_[:, 0], model.intercept_) - wb).max() <= 1e-7


def test_one_level_and_multiclass():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(loc=c, scale=0.3, size=(15, 2)) for c in ([0, 0], [3, 0], [0, 3])])
    y = np.repeat(["a", "b", "c"], 15)
    model = DeepRKMClassifier(3, kernel_params={"sigma": 1.0}, smoother_sigma=0.5, random_state=0).fit(X, y)
    assert len(model.H_) == 1 and model.coef_.shape == (3, 3)
    assert model.decision_function(X).shape == (45, 3)
    assert model.score(X, y) == 1.0
    mlp = DeepRKMClassifier((3, 2), kernel_params=[{"sigma": 1.0}, {"sigma": 0.2}], classifier="mlp",
                            lam=0.01, eta=1e-4, smoother_sigma=0.5, random_state=0).fit(X, y)
    assert set(mlp.predict(X)) <= {"a", "b", "c"} and mlp.score(X, y) >= 0.9


def test_determinism_under_random_state():
    X, y = _moons()
    a, b = _model(random_state=3).fit(X, y), _model(random_state=3).fit(X, y)
    assert all(np.array_equal(p, q) for p, q in zip(a.H_, b.H_))
    assert np.array_equal(a.decision_function(X), b.decision_function(X))
    g1 = _model(random_state=np.random.default_rng(5)).fit(X, y)
    g2 = _model(random_state=np.random.default_rng(5)).fit(X, y)
    assert np.array_equal(g1.H_[0], g2.H_[0])


def test_smoother_far_points_do_not_underflow():
    X, y = _moons()
    model = _model().fit(X, y)
    far = np.array([[1e3, 1e3]])
    H = model.transform(far)
    assert np.all(np.isfinite(H))


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_components": (70, 2)}, "n_components"),
        ({"n_components": ()}, "n_components"),
        ({"lam": 0.0}, "lam"),
        ({"eta": -1.0}, "eta"),
        ({"etas": [1.0, 0.0]}, "etas"),
        ({"etas": [1.0]}, "etas"),
        ({"smoother_sigma": 0.0}, "smoother_sigma"),
        ({"learning_rate": 0.0}, "learning_rate"),
        ({"learning_rate": "fast"}, "learning_rate"),
        ({"classifier": "svm"}, "classifier"),
        ({"init": "zeros"}, "init"),
        ({"kernels": ["rbf", "laplacian"], "kernel_params": None}, "kernels"),
    ],
)
def test_bad_parameters(params, match):
    X, y = _moons()
    with pytest.raises(ValueError, match=match):
        _model(**params).fit(X, y)


def test_bad_labels_and_unfitted():
    X, y = _moons()
    with pytest.raises(ValueError, match="two classes"):
        _model().fit(X, np.zeros(60))
    with pytest.raises(ValueError, match="y must"):
        _model().fit(X, y[:10])
    with pytest.raises(NotFittedError):
        _model().predict(X)
    model = _model().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :1])


@parametrize_with_checks([
    DeepRKMClassifier((2,), kernel_params={"sigma": 3.0}, random_state=0),
    # smoother_sigma=0.5: the MLP fits the training H exactly, but on the check's standardised blobs the
    # default smoother bandwidth 1.0 blurs the three classes' smoothed features (0.83 accuracy)
    DeepRKMClassifier((3,), kernel_params={"sigma": 3.0}, classifier="mlp", lam=0.01, eta=1e-4, smoother_sigma=0.5,
                      random_state=0),
])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_shared_outputs_underfit_when_s_last_is_small_one_vs_rest_does_not():
    """Part IV, Table 2: ``p`` one-vs-all outputs sharing an ``s_L < p - 1`` dimensional ``H_L`` cannot
    fit the labels (the least-squares term is flat over the subspaces of the label space), while the
    paper's one-vs-all, ``p`` binary DRKMs with their own levels, fits them."""
    from sklearn.datasets import load_digits
    from sklearn.multiclass import OneVsRestClassifier

    X, y = load_digits(return_X_y=True)
    X, y = X[:200] / 16.0, y[:200]
    model = DeepRKMClassifier((2, 2), kernels=["rbf", "linear"], kernel_params=[{"sigma": 3.0}, None],
                              smoother_sigma=0.5, max_iter=60, random_state=0)
    shared = model.fit(X, y).score(X, y)
    ova = OneVsRestClassifier(model).fit(X, y).score(X, y)
    assert shared < 0.8 and ova > 0.95, (shared, ova)


def test_linear_deeper_level_term_is_bounded_by_its_components():
    """With a linear kernel on an orthonormal ``H_(j-1)``, ``K_c^(j-1)`` has eigenvalues <= 1, so the
    level-``j`` KPCA term of eq-deep-lssvm lies in ``[-s_j / (2 eta_j), 0]``."""
    rng = np.random.default_rng(0)
    H1, H2 = (project_stiefel(rng.normal(size=(50, s))) for s in (4, 3))
    K1 = GramCenterer().fit_transform(Linear()(H1))
    assert np.linalg.eigvalsh(K1).max() <= 1 + 1e-12
    fun, _ = deep_objective(np.zeros((50, 50)), [Linear()], [1.0, 1.0])
    assert -3 / 2 - 1e-12 <= fun([H1, H2]) <= 0.0


# -- the joint deep KPCA (the paper's initialisation) and the greedy levels ------------------------

def test_joint_dkpca_is_lower_than_greedy_with_an_rbf_level_and_equal_with_a_linear_one():
    X, y = _moons(80)
    kw = dict(n_components=(4, 2), kernels=None, fine_tune=False, max_iter=3)
    with pytest.warns(ConvergenceWarning):
        rbf = {init: _model(init=init, kernel_params=[{"sigma": 0.5}, {"sigma": 0.1}], **kw).fit(X, y)
               for init in ("dkpca", "dkpca-greedy")}
    # the greedy levels are not a minimiser of the joint objective: the joint one is lower, and stationary
    assert rbf["dkpca"].init_objective_ < rbf["dkpca-greedy"].init_objective_ - 1.0
    K0_c = GramCenterer().fit_transform(RBF(0.5)(X))
    fun, grad = deep_objective(K0_c, [RBF(0.1)], [1.0, 1.0])
    Hs = rbf["dkpca"].H_
    riemannian = [G - H @ (H.T @ G + G.T @ H) / 2 for H, G in zip(Hs, grad(Hs))]
    assert max(np.linalg.norm(R) for R in riemannian) <= 1e-6 * abs(fun(Hs))
    assert fun(Hs) == pytest.approx(rbf["dkpca"].init_objective_, rel=1e-12)
    # a linear level 2 is optimal anywhere inside the span of H_1: the greedy levels are already joint
    with pytest.warns(ConvergenceWarning):
        lin = {init: _model(init=init, kernel_params=[{"sigma": 0.5}, None], **kw).fit(X, y)
               for init in ("dkpca", "dkpca-greedy")}
    assert lin["dkpca"].dkpca_n_iter_ <= 1
    assert lin["dkpca"].init_objective_ == pytest.approx(lin["dkpca-greedy"].init_objective_, rel=1e-10)


# -- issue 19: clear errors and warnings instead of silent failures --------------------------------

@pytest.mark.parametrize("params, match", [
    ({"kernel_params": [{"sigma": 0.5}, {"sigma": 1e-300}]}, r"kernel_params\[1\]\['sigma'\]"),
    ({"kernel_params": [{"sigma": 0.5}, {"sigma": 1e300}]}, r"kernel_params\[1\]\['sigma'\]"),
    ({"kernel_params": [{"sigma": -1.0}, {"sigma": 0.2}]}, r"kernel_params\[0\]\['sigma'\]"),
    ({"smoother_sigma": 1e-300}, "smoother_sigma"),
    ({"smoother_sigma": 1e300}, "smoother_sigma"),
    ({"dkpca_max_iter": -1}, "dkpca_max_iter"),
    ({"init": "greedy"}, "init"),
])
def test_extreme_bandwidths_are_refused_by_name(params, match):
    X, y = _moons()
    with pytest.raises(ValueError, match=match):
        _model(**params).fit(X, y)


def test_mlp_collapse_and_unconverged_runs_warn():
    X, y = make_moons(80, noise=0.1, random_state=0)
    mlp = DeepRKMClassifier((4, 2), kernel_params=[{"sigma": 0.5}, {"sigma": 0.2}], smoother_sigma=0.2,
                            classifier="mlp", random_state=0)
    with pytest.warns(ConvergenceWarning, match="predicts one class.*lam=0.01") as record:
        mlp.fit(X, y)
    assert not mlp.converged_ and np.unique(mlp.predict(X)).size == 1
    assert any("max_iter=100" in str(w.message) for w in record)
    with pytest.warns(ConvergenceWarning, match="max_iter=5"):
        DeepRKMClassifier((4, 2), max_iter=5, random_state=0).fit(X, y)
    with warnings.catch_warnings():  # a converged run is silent
        warnings.simplefilter("error")
        DeepRKMClassifier((2,), max_iter=2000, tol=1e-6, random_state=0).fit(X, y)


@pytest.mark.parametrize("init", ["random", "dkpca", "dkpca-greedy"])
def test_constant_x_is_refused_by_every_init(init):
    with pytest.raises(ValueError, match="constant X"):
        DeepRKMClassifier((2,), init=init, random_state=0).fit(np.ones((20, 3)), np.arange(20) % 2)


def test_defaults_use_the_median_distance_and_a_linear_level_two():
    X, y = _moons(80)
    with pytest.warns(ConvergenceWarning):
        model = DeepRKMClassifier(random_state=0).fit(X, y)
    D = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    median = np.median(D[np.triu_indices(80, 1)])
    assert model.level_sigma_ == pytest.approx(median, rel=1e-12)
    assert model.smoother_sigma_ == pytest.approx(SMOOTHER_FRACTION * median, rel=1e-12)
    assert isinstance(model.kernels_[1], Linear)
    assert model.score(X, y) >= 0.95


def test_smoother_set_after_fit_is_used_and_checked():
    X, y = _moons()
    model = _model(smoother_sigma=0.2).fit(X, y)
    wide = model.transform(X[:5])
    model.set_params(smoother_sigma=5.0)  # the smoother acts at prediction only: no refit needed
    refit = _model(smoother_sigma=5.0).fit(X, y)
    assert np.array_equal(model.transform(X[:5]), refit.transform(X[:5]))
    assert not np.allclose(model.transform(X[:5]), wide)
    model.set_params(smoother_sigma=1e-300)
    with pytest.raises(ValueError, match="smoother_sigma"):
        model.predict(X[:5])


def test_defaults_are_competitive_on_digits():
    """Issues 19 and 24: with the old defaults the shared (3, 3) outputs scored 58 % on ten digits.
    ``n_components="auto"`` gives both levels ``p - 1 = 9`` components: competitive with scikit-learn's
    ``MLPClassifier()`` and ``SVC()`` on the same split, and the paper's one-vs-all (binary problems:
    the book's (3, 3)) still works."""
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.svm import SVC

    from rkmlearn.datasets import load_digits_split

    d = load_digits_split(300, n_test=300, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = DeepRKMClassifier(random_state=0).fit(d.X_train, d.y_train)
        ova = OneVsRestClassifier(DeepRKMClassifier(random_state=0)).fit(d.X_train, d.y_train)
    svc = SVC().fit(d.X_train, d.y_train).score(d.X_test, d.y_test)
    assert model.n_components_ == (9, 9)
    assert ova.estimators_[0].n_components_ == (3, 3)
    assert model.score(d.X_test, d.y_test) > svc - 0.04, (model.score(d.X_test, d.y_test), svc)
    assert ova.score(d.X_test, d.y_test) > 0.93, ova.score(d.X_test, d.y_test)
    assert "OneVsRestClassifier(DeepRKMClassifier())" in DeepRKMClassifier.__doc__


@pytest.mark.parametrize("n_classes, n, expected", [(2, 50, (3, 3)), (3, 50, (3, 3)), (10, 50, (9, 9)),
                                                    (10, 6, (5, 5))])
def test_auto_components(n_classes, n, expected):
    from rkmlearn.models.deep.training import auto_components

    assert auto_components(n_classes, n) == expected


def test_n_components_string_other_than_auto_is_an_error():
    X, y = _moons()
    with pytest.raises(ValueError, match="n_components must be 'auto'"):
        DeepRKMClassifier("three").fit(X, y)


def test_given_levels_as_init():
    X, y = _moons()
    base = _model(init="dkpca", fine_tune=False, max_iter=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        given = _model(init=base.H_, fine_tune=False, max_iter=50).fit(X, y)
        again = _model(init="dkpca", fine_tune=False, max_iter=50).fit(X, y)
    # the given levels are projected onto the Stiefel manifold again: equal up to rounding
    assert all(np.abs(a - b).max() <= 1e-12 for a, b in zip(given.H_, again.H_))
    np.testing.assert_allclose(given.coef_, again.coef_, rtol=1e-8, atol=1e-10)
    assert given.init_objective_ == pytest.approx(again.init_objective_, rel=1e-12)
    with pytest.raises(ValueError, match="one array per level"):
        _model(init=base.H_[:1]).fit(X, y)
    with pytest.raises(ValueError, match=r"init\[1\]"):
        _model(init=[base.H_[0], base.H_[1][:10]]).fit(X, y)


def test_gradient_at_the_objectives_point_reuses_its_products():
    """Issue 24: the optimiser evaluates ``fun`` at a point and then ``grad`` at the same arrays; the
    level-1 product ``K0_c H_1`` is formed once for both (one pass over the n x n matrix per
    iteration), a new point forms it again, and the values are those of a fresh objective."""

    class CountingMatrix(np.ndarray):
        products = 0

        def __matmul__(self, other):
            CountingMatrix.products += 1
            return np.asarray(self) @ other

    X, _ = _moons()
    K0_c = GramCenterer().fit_transform(RBF(0.5)(X))
    rng = np.random.default_rng(0)
    point = [project_stiefel(rng.normal(size=(len(X), 3))) for _ in range(2)] + [rng.normal(size=(4, 2))]
    Y = np.where(rng.random((len(X), 2)) < 0.5, -1.0, 1.0)
    head = lambda H, t: lssvm_loss(H, t, Y, 0.5, 1.0)  # noqa: E731
    fun, grad = deep_objective(K0_c.view(CountingMatrix), [Linear()], [1.0, 2.0], head=head)
    value, gradient = fun(point), grad(point)
    assert CountingMatrix.products == 1
    fresh_fun, fresh_grad = deep_objective(K0_c, [Linear()], [1.0, 2.0], head=head)
    assert value == fresh_fun(point)
    for g, h in zip(gradient, fresh_grad([P.copy() for P in point])):
        np.testing.assert_array_equal(g, h)
    gradient[-1][:] = 0.0  # the caller's arrays: changing them leaves the objective's memo alone
    np.testing.assert_array_equal(grad(point)[-1], fresh_grad(point)[-1])
    fun([P.copy() for P in point])
    assert CountingMatrix.products == 2
