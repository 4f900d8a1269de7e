"""TensorMultiViewRKM (Part III, Chapter 8): reductions, primal = dual, output codes, bad input."""

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from rkmlearn import TensorMultiViewRKM
from rkmlearn.features import IdentityFeatures, RandomFourierFeatures
from rkmlearn.kernels import RBF
from rkmlearn.models.coding import decode_outputs, encode_labels, output_codebook
from rkmlearn.models.tensor import coupled_kernel


def _data(n=40, n_classes=3, seed=0, dims=(3, 2, 4)):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    Xs = [y[:, None] * rng.normal(size=(1, d)) + 0.7 * rng.normal(size=(n, d)) for d in dims]
    return Xs, y


def _rbf_grams(Xs, sigmas):
    return [RBF(sigma=s)(X) for X, s in zip(Xs, sigmas)]


def _dense_solve(K, Y, lam, eta, tau):
    """Independent dense solve of the bordered system [[K/eta + lam I, tau 1], [1^T, 0]]."""
    n = K.shape[0]
    A = np.zeros((n + 1, n + 1))
    A[:n, :n] = K / eta + lam * np.eye(n)
    A[:n, n] = tau
    A[n, :n] = 1.0
    rhs = np.vstack([tau * Y, np.zeros((1, Y.shape[1]))])
    sol = np.linalg.solve(A, rhs)
    return sol[:n], sol[n]


SIGMAS = (2.0, 1.5, 3.0)


@pytest.mark.parametrize("rho", [0.0, 0.3, 1.0])
def test_matches_dense_solve_of_the_rho_system(rho):
    Xs, y = _data()
    model = TensorMultiViewRKM([RBF(sigma=s) for s in SIGMAS], rho=rho, lam=0.3, eta=0.7).fit(Xs, y)
    grams = _rbf_grams(Xs, SIGMAS)
    V = len(Xs)
    K = (1 - rho) * sum(grams) + rho * np.prod(grams, axis=0)
    Y = output_codebook(3, "ova")[y]
    alpha, b = _dense_solve(K, Y, 0.3, 0.7, (1 - rho) * V + rho)
    assert np.max(np.abs(model.dual_coef_ - alpha)) <= 1e-10
    assert np.max(np.abs(model.intercept_ - b)) <= 1e-10
    assert model.tau_ == (1 - rho) * V + rho


def test_rho_zero_is_mv_rkm_and_rho_one_is_tmv_rkm():
    Xs, y = _data()
    grams = _rbf_grams(Xs, SIGMAS)
    Y = output_codebook(3, "ova")[y]
    kernels = [RBF(sigma=s) for s in SIGMAS]
    # MV-RKM, eq. (7): summed kernels, border V
    mv = TensorMultiViewRKM(kernels, rho=0.0, lam=0.5).fit(Xs, y)
    alpha, b = _dense_solve(sum(grams), Y, 0.5, 1.0, len(Xs))
    assert np.max(np.abs(mv.dual_coef_ - alpha)) <= 1e-10 and np.max(np.abs(mv.intercept_ - b)) <= 1e-10
    # TMV-RKM, eq. (10): Hadamard product, border 1
    tmv = TensorMultiViewRKM(kernels, rho=1.0, lam=0.5).fit(Xs, y)
    alpha, b = _dense_solve(grams[0] * grams[1] * grams[2], Y, 0.5, 1.0, 1.0)
    assert np.max(np.abs(tmv.dual_coef_ - alpha)) <= 1e-10 and np.max(np.abs(tmv.intercept_ - b)) <= 1e-10
    # the coupled kernel at the ends is exactly the sum / the product
    assert np.array_equal(coupled_kernel(grams, 0.0), grams[0] + grams[1] + grams[2])
    assert np.array_equal(coupled_kernel(grams, 1.0), grams[0] * grams[1] * grams[2])


def _lssvm(K, y, gamma):
    """Textbook LS-SVM classifier dual: [[0, y^T], [y, Omega + I/gamma]] [b; alpha] = [0; 1]."""
    n = len(y)
    A = np.zeros((n + 1, n + 1))
    A[0, 1:] = y
    A[1:, 0] = y
    A[1:, 1:] = np.outer(y, y) * K + np.eye(n) / gamma
    sol = np.linalg.solve(A, np.concatenate([[0.0], np.ones(n)]))
    return sol[1:], sol[0]


@pytest.mark.parametrize("rho", [0.0, 0.6, 1.0])
def test_one_view_is_the_rkm_classifier_and_an_lssvm(rho):
    Xs, y = _data(n_classes=2)
    X = Xs[0]
    model = TensorMultiViewRKM([RBF(sigma=2.0)], rho=rho, lam=0.25, eta=1.0).fit([X], y)
    alpha, b = _lssvm(RBF(sigma=2.0)(X), np.where(y == 1, 1.0, -1.0), gamma=1 / 0.25)
    # the LS-SVM's alpha is the RKM's h; RKM's dual_coef_ = y * h
    ypm = np.where(y == 1, 1.0, -1.0)
    assert np.max(np.abs(model.h_[:, 0] - alpha)) <= 1e-10
    assert np.max(np.abs(model.dual_coef_[:, 0] - ypm * alpha)) <= 1e-10
    assert abs(model.intercept_[0] - b) <= 1e-10
    f_lssvm = RBF(sigma=2.0)(X[:7], X) @ (ypm * alpha) + b
    assert np.max(np.abs(model.decision_function([X[:7]]) - f_lssvm)) <= 1e-10
    # a bare 2-D array is one view
    assert np.array_equal(TensorMultiViewRKM([RBF(sigma=2.0)], rho=rho, lam=0.25).fit(X, y).decision_function(X),
                          model.decision_function([X]))


@pytest.mark.parametrize("decision", ["add", "mean"])
@pytest.mark.parametrize("rho", [0.0, 0.4, 1.0])
def test_primal_equals_dual_identity_features(decision, rho):
    Xs, y = _data(dims=(3, 2, 2))
    model = TensorMultiViewRKM(rho=rho, lam=0.5, eta=2.0, decision=decision,
                               feature_maps=[IdentityFeatures()] * 3).fit(Xs, y)
    test = [X[:9] + 0.1 for X in Xs]
    gap = np.max(np.abs(model.primal_decision_function(test) - model.decision_function(test)))
    assert gap <= 1e-8
    w, W = model.primal_weights()
    assert [wv.shape for wv in w] == [(3, 3), (2, 3), (2, 3)] and W.shape == (3, 2, 2, 3)


def test_primal_equals_dual_rff_and_the_tensor_stationarity():
    Xs, y = _data(dims=(2, 3))
    fmaps = [RandomFourierFeatures(sigma=2.0, n_features=6, random_state=v) for v in range(2)]
    model = TensorMultiViewRKM(rho=0.7, lam=0.1, feature_maps=fmaps, coding="moc").fit(Xs, y)
    gap = np.max(np.abs(model.primal_decision_function(Xs) - model.decision_function(Xs)))
    assert gap <= 1e-8
    # W_{ij} = (1/eta) sum_k phi1(x_k)_i phi2(x_k)_j y_k h_k, written out
    Phis = [view.feature_map_.transform(X) for view, X in zip(model.views_, Xs)]
    _, W = model.primal_weights()
    direct = sum(np.multiply.outer(np.outer(Phis[0][k], Phis[1][k]), model.dual_coef_[k]) for k in range(len(y)))
    assert np.max(np.abs(W - direct)) <= 1e-10
    # the tensor is skipped when too large
    assert model.primal_weights(max_tensor_size=10)[1] is None
    with pytest.raises(ValueError, match="max_tensor_size"):
        model.primal_decision_function(Xs, max_tensor_size=10)


def test_primal_needs_feature_maps():
    Xs, y = _data()
    model = TensorMultiViewRKM("rbf").fit(Xs, y)
    with pytest.raises(ValueError, match="feature_maps"):
        model.primal_weights()


def test_codebooks():
    assert np.array_equal(output_codebook(4, "ova"), 2 * np.eye(4) - 1)
    C = output_codebook(10, "moc")
    assert C.shape == (10, 4) and len({tuple(r) for r in C}) == 10
    assert not np.any(np.all(C == C[0], axis=0))  # no constant output column
    assert output_codebook(2, "ova").tolist() == output_codebook(2, "moc").tolist() == [[-1.0], [1.0]]
    for n_c in (3, 5, 8, 9, 17):
        C = output_codebook(n_c, "moc")
        assert C.shape[1] == int(np.ceil(np.log2(n_c)))
        # every codeword decodes to itself, also with noise smaller than 1 per output
        idx = np.arange(n_c)
        assert np.array_equal(decode_outputs(encode_labels(idx, C), C), idx)
        noise = 0.9 * np.random.default_rng(n_c).uniform(-1, 1, size=C.shape)
        assert np.array_equal(decode_outputs(C + noise, C), idx)
    # OVA decoding is the largest output
    F = np.random.default_rng(0).normal(size=(20, 4))
    assert np.array_equal(decode_outputs(F, output_codebook(4, "ova")), F.argmax(axis=1))


@pytest.mark.parametrize("coding", ["ova", "moc"])
def test_one_factorisation_equals_per_output_solves(coding):
    Xs, y = _data(n_classes=5)
    model = TensorMultiViewRKM("rbf", rho=0.5, lam=0.2, coding=coding).fit(Xs, y)
    assert model.dual_coef_.shape[1] == (5 if coding == "ova" else 3)
    for l in range(model.dual_coef_.shape[1]):
        # a two-class problem with the targets of output l gives the same column
        labels = model.codebook_[np.searchsorted(model.classes_, y), l]
        single = TensorMultiViewRKM("rbf", rho=0.5, lam=0.2).fit(Xs, labels)
        assert np.max(np.abs(single.dual_coef_[:, 0] - model.dual_coef_[:, l])) <= 1e-10
    assert model.score(Xs, y) > 0.8


def test_string_labels_and_binary_decision_sign():
    Xs, y = _data(n_classes=2)
    labels = np.array(["neg", "pos"])[y]
    model = TensorMultiViewRKM("rbf", lam=0.1).fit(Xs, labels)
    f = model.decision_function(Xs)
    assert f.ndim == 1
    assert np.array_equal(model.predict(Xs), np.where(f > 0, "pos", "neg"))


def test_mean_decision_is_the_view_average():
    Xs, y = _data()
    model = TensorMultiViewRKM([RBF(sigma=s) for s in SIGMAS], rho=0.4, lam=0.3, decision="mean").fit(Xs, y)
    rows = [RBF(sigma=s)(X[:5], X) for X, s in zip(Xs, SIGMAS)]
    expected = sum(rows) / 3 @ model.dual_coef_ + model.intercept_
    assert np.max(np.abs(model.decision_function([X[:5] for X in Xs]) - expected)) <= 1e-10


@pytest.mark.parametrize(
    "params, match",
    [
        ({"rho": 1.5}, "rho"),
        ({"rho": -0.1}, "rho"),
        ({"lam": 0.0}, "lam"),
        ({"lam": -1.0}, "lam"),
        ({"eta": 0.0}, "eta"),
        ({"decision": "max"}, "decision"),
        ({"coding": "ecoc"}, "coding"),
        ({"kernels": ["rbf", "rbf"]}, "kernels"),
    ],
)
def test_bad_parameters(params, match):
    Xs, y = _data()
    with pytest.raises(ValueError, match=match):
        TensorMultiViewRKM(**params).fit(Xs, y)


def test_bad_data():
    Xs, y = _data()
    with pytest.raises(ValueError, match="only one class"):
        TensorMultiViewRKM().fit(Xs, np.zeros(len(y)))
    with pytest.raises(ValueError, match="y has 39 labels"):
        TensorMultiViewRKM().fit(Xs, y[:-1])
    with pytest.raises(ValueError, match=r"Xs\[1\] has 39 samples"):
        TensorMultiViewRKM().fit([Xs[0], Xs[1][:-1], Xs[2]], y)
    with pytest.raises(ValueError, match="Unknown label type"):
        TensorMultiViewRKM().fit(Xs, y + 0.5)
    model = TensorMultiViewRKM().fit(Xs, y)
    with pytest.raises(ValueError, match="fitted on 3"):
        model.predict(Xs[:2])
    with pytest.raises(ValueError, match=r"Xs\[2\] has 3 features"):
        model.predict([Xs[0], Xs[1], Xs[0]])


def test_clone_and_determinism():
    from sklearn.base import clone

    Xs, y = _data()
    model = TensorMultiViewRKM("rbf", rho=0.3)
    a = clone(model).fit(Xs, y).decision_function(Xs)
    b = clone(model).fit(Xs, y).decision_function(Xs)
    assert np.array_equal(a, b)


def _expected_failures(estimator):
    if estimator.coding != "moc":
        return {}
    why = ("minimum output coding: decision_function has ceil(log2 n_classes) columns, one per bit of "
           "the code, not one per class, so argmax over its columns is not the prediction")
    return {"check_classifiers_classes": why, "check_classifiers_train": why}


@parametrize_with_checks(
    [TensorMultiViewRKM(), TensorMultiViewRKM("rbf", rho=0.5, coding="moc", decision="mean")],
    expected_failed_checks=_expected_failures,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_view_sizes_make_scikit_learn_cv_tools_work():
    from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score

    Xs, y = _data(n=60)
    X = np.hstack(Xs)
    sizes = [X_v.shape[1] for X_v in Xs]
    kernels = [RBF(sigma=s) for s in SIGMAS]
    model = TensorMultiViewRKM(kernels, rho=0.4, lam=0.3, view_sizes=sizes)
    fitted = model.fit(X, y)
    reference = TensorMultiViewRKM(kernels, rho=0.4, lam=0.3).fit(Xs, y)
    assert np.array_equal(fitted.dual_coef_, reference.dual_coef_)
    assert np.array_equal(fitted.decision_function(X), reference.decision_function(Xs))
    folds = StratifiedKFold(3, shuffle=True, random_state=0)
    scores = cross_val_score(model, X, y, cv=folds)
    by_hand = [TensorMultiViewRKM(kernels, rho=0.4, lam=0.3).fit([V[a] for V in Xs], y[a]).score([V[b] for V in Xs], y[b])
               for a, b in folds.split(X, y)]
    assert np.array_equal(scores, by_hand)
    search = GridSearchCV(model, {"rho": [0.0, 0.5, 1.0]}, cv=folds).fit(X, y)
    assert search.best_params_["rho"] in (0.0, 0.5, 1.0)
    with pytest.raises(ValueError, match="view_sizes sum to"):
        TensorMultiViewRKM(view_sizes=[2, 2]).fit(X, y)
    with pytest.raises(ValueError, match="view_sizes must be"):
        TensorMultiViewRKM(view_sizes=[0, 9]).fit(X, y)


def test_coupled_kernel_streams_a_generator_and_never_writes_its_inputs():
    rng = np.random.default_rng(3)
    Ks = [rng.uniform(0.1, 1.0, size=(5, 4)) for _ in range(3)]
    kept = [K.copy() for K in Ks]
    for rho in (0.0, 0.3, 1.0):
        from_list = coupled_kernel(Ks, rho)
        assert np.array_equal(coupled_kernel((K for K in Ks), rho), from_list)
        expected = (1 - rho) * (Ks[0] + Ks[1] + Ks[2]) + rho * Ks[0] * Ks[1] * Ks[2]
        np.testing.assert_allclose(from_list, expected, rtol=1e-15)
        single = coupled_kernel(iter([Ks[0]]), rho)  # one view: (1 - rho) K + rho K = K
        np.testing.assert_allclose(single, Ks[0], rtol=1e-15)
        assert single is not Ks[0]
    assert all(np.array_equal(K, k) for K, k in zip(Ks, kept))
    with pytest.raises(ValueError, match="at least one kernel matrix"):
        coupled_kernel(iter([]), 0.5)


@pytest.mark.parametrize("rho", [0.0, 0.3, 1.0])
@pytest.mark.parametrize("n_views", [1, 3])
def test_coupled_kernel_overwrite_same_bits_and_fewer_n_by_n_arrays(rho, n_views):
    import tracemalloc

    from rkmlearn.models.tensor import coupled_kernel

    rng = np.random.default_rng(0)
    Ks = [np.abs(rng.normal(size=(400, 400))) for _ in range(n_views)]
    expected = coupled_kernel(Ks, rho)
    copies = [K.copy() for K in Ks]
    np.testing.assert_array_equal(copies[0], Ks[0])  # the caller's arrays were not written
    tracemalloc.start()
    out = coupled_kernel((K.copy() for K in Ks), rho, overwrite=True)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    np.testing.assert_array_equal(out, expected)
    assert peak <= 3.05 * Ks[0].nbytes  # sum, product and the view being added


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("kernels", ["rbf", [RBF(1.5), "laplacian", "polynomial"], None])
def test_fit_holds_one_n_by_n_array_and_matches_the_dense_system(kernels, fit_intercept, monkeypatch):
    """The system is built tile by tile (no per-view n x n Gram matrix) and factored in place: the
    peak of a fit is about ONE n x n array (was 3 when the views' Gram matrices were combined)."""
    import tracemalloc

    import rkmlearn.models.tensor as tensor

    monkeypatch.setattr(tensor, "_TILE", 32)  # tiles small beside n = 600, as 128 is beside n = 4000

    Xs, y = _data(n=600, seed=4)
    model = TensorMultiViewRKM(kernels=kernels, rho=0.4, lam=0.3, eta=1.7, fit_intercept=fit_intercept)
    tracemalloc.start()
    model.fit(Xs, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak <= 1.6 * 8 * 600**2
    grams = [view.gram() for view in model.views_]
    K = coupled_kernel(grams, 0.4)
    Y = encode_labels(np.searchsorted(model.classes_, y), model.codebook_)
    if fit_intercept:
        alpha, b = _dense_solve(K, Y, 0.3, 1.7, model.tau_)
        np.testing.assert_allclose(model.intercept_, b, rtol=1e-8, atol=1e-10)
    else:
        alpha = np.linalg.solve(K / 1.7 + 0.3 * np.eye(600), model.tau_ * Y)
    np.testing.assert_allclose(model.dual_coef_, alpha, rtol=1e-8, atol=1e-10 * np.abs(alpha).max())


@pytest.mark.parametrize("decision", ["add", "mean"])
@pytest.mark.parametrize("kernels", ["rbf", [RBF(1.5), "laplacian", None]])
def test_decision_values_tile_by_tile_match_the_whole_test_kernel(kernels, decision, monkeypatch):
    """``decision_function`` combines the views' test kernel a tile at a time (tiles smaller than the
    data here, so that edges inside and at the end are crossed): the same values as the whole coupled
    test kernel times ``y (.) h`` (:eq:`eq-tensor-decision-add`, :eq:`eq-tensor-decision-mean`)."""
    import rkmlearn.models.tensor as tensor

    Xs, y = _data(n=90, seed=7)
    test = [X[:37] + 0.1 for X in Xs]
    model = TensorMultiViewRKM(kernels=kernels, rho=0.3, lam=0.2, eta=1.3, decision=decision).fit(Xs, y)
    rows = [view.kernel_rows(X) for view, X in zip(model.views_, test)]
    K = coupled_kernel(rows, 0.3) if decision == "add" else coupled_kernel(rows, 0.0) / 3
    expected = K @ model.dual_coef_ / 1.3 + model.intercept_
    monkeypatch.setattr(tensor, "_PREDICT_ROWS", 16)
    monkeypatch.setattr(tensor, "_PREDICT_COLS", 32)
    np.testing.assert_allclose(model.decision_function(test), expected, rtol=1e-12, atol=1e-12)


def test_fit_parses_the_views_once(monkeypatch):
    """The rule of fit parses ``Xs`` into its views and fit uses them: one array with ``view_sizes``
    is split once (before, the rule split it, stacked it again, and fit split it a second time)."""
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(30, 5)), np.repeat([0, 1], 15)
    splits, split = [], np.split
    monkeypatch.setattr(np, "split", lambda *args, **kwargs: splits.append(1) or split(*args, **kwargs))
    model = TensorMultiViewRKM("rbf", view_sizes=[3, 2]).fit(X, y)
    assert len(splits) == 1 and model.n_views_ == 2
