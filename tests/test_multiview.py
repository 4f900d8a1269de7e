"""Tests of :mod:`rkmlearn.models.multiview`: the four algorithms of the duality paper, imputation, forecasting.

The numbers the issue asks for (Part I) are asserted here and again in the book's notebooks:
primal and dual agree to 1e-8, the linear sum-of-sines model forecasts exactly, the rotated Stiefel
solutions equal the eigendecomposition's, rescaling matters, and the dual imputation formula with
the sum over the *other* views equals the primal route.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.linalg import subspace_angles
from sklearn.base import clone

from rkmlearn import MultiViewKPCA, NARForecaster, choose_algorithm
from rkmlearn.datasets import load_santafe, sum_of_sines
from rkmlearn.features import IdentityFeatures, RandomFourierFeatures
from rkmlearn.kernels import RBF

LAG = 40


def identity_maps(n_views=2):
    return [IdentityFeatures() for _ in range(n_views)]


@pytest.fixture(scope="module")
def sines():
    return sum_of_sines()


@pytest.fixture(scope="module")
def sines_eig(sines):
    """Algorithms 1 and 2 on the sum of sines (s = 4, lag 40, linear kernels)."""
    primal = NARForecaster(MultiViewKPCA(4, setting="primal", feature_maps=identity_maps()), LAG).fit(sines.train)
    dual = NARForecaster(MultiViewKPCA(4, setting="dual"), LAG).fit(sines.train)
    return primal, dual


@pytest.fixture(scope="module")
def sines_stiefel(sines):
    """Algorithms 3 and 4 with the paper's Cayley-Adam, rotated and not, from the same seeds."""
    fits = {}
    for setting in ("primal", "dual"):
        for rotate in (True, False):
            model = MultiViewKPCA(
                4,
                setting=setting,
                solver="stiefel",
                optimizer="cayley_adam",
                rotate=rotate,
                feature_maps=identity_maps() if setting == "primal" else None,
                random_state=0,
            )
            fits[setting, rotate] = NARForecaster(model, LAG).fit(sines.train)
    return fits


# -- Algorithms 1 and 2 -------------------------------------------------------------------------
def test_primal_and_dual_eig_agree_on_sum_of_sines(sines_eig, sines):
    primal, dual = sines_eig
    assert primal.model_.algorithm_ == 1 and dual.model_.algorithm_ == 2
    np.testing.assert_allclose(primal.model_.H_, dual.model_.H_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(primal.model_.eigenvalues_, dual.model_.eigenvalues_, rtol=1e-10)
    np.testing.assert_allclose(primal.model_.Gamma_, np.diag(primal.model_.eigenvalues_), rtol=0, atol=0)
    f_primal, f_dual = primal.forecast(100), dual.forecast(100)
    np.testing.assert_allclose(f_primal, f_dual, rtol=0, atol=1e-8)
    # the signal obeys a linear recursion of order 4: the linear 4-component model is exact
    for forecast in (f_primal, f_dual):
        assert np.mean((forecast - sines.test) ** 2) < 1e-20


def test_hidden_features_are_orthonormal_and_reproduced_by_transform(sines_eig, sines):
    for fitted in sines_eig:
        model = fitted.model_
        H = model.H_
        np.testing.assert_allclose(H.T @ H, np.eye(4), atol=1e-12)
        X, y = NARForecaster.windows((sines.train - fitted.mean_) / fitted.scale_, LAG)
        np.testing.assert_allclose(model.transform([X, y[:, None]]), H, atol=1e-10)


def test_dual_primal_weights_follow_stationarity(sines_eig):
    primal, dual = sines_eig
    # U_v = Phi_{v,c}^T H (dual, explicit maps) equals U~ Lambda^{1/2} (primal)
    for U_p, U_d in zip(primal.model_.U_, dual.model_.U_ or [None, None]):
        assert U_d is None  # linear *kernels* in the dual: no explicit U
    dual_fm = NARForecaster(MultiViewKPCA(4, feature_maps=identity_maps()), LAG).fit(sum_of_sines().train)
    for U_p, U_d in zip(primal.model_.U_, dual_fm.model_.U_):
        np.testing.assert_allclose(U_p, U_d, rtol=0, atol=1e-8 * np.abs(U_p).max())
    U = np.vstack(primal.model_.U_)
    np.testing.assert_allclose(U.T @ U, primal.model_.Gamma_, rtol=1e-10, atol=1e-8)


def test_forecast_improves_with_components(sines):
    errors = [
        np.mean((NARForecaster(MultiViewKPCA(s), LAG).fit(sines.train).forecast(100) - sines.test) ** 2)
        for s in (1, 2, 3, 4)
    ]
    assert errors[3] < 1e-20
    assert errors[1] < errors[0] and errors[3] < errors[2]


# -- rescaling ----------------------------------------------------------------------------------
def test_without_rescaling_components_are_scaled_and_forecasts_collapse(sines_eig, sines):
    primal, _ = sines_eig
    raw = NARForecaster(
        MultiViewKPCA(4, setting="primal", feature_maps=identity_maps(), rescale=False), LAG
    ).fit(sines.train)
    lam = primal.model_.eigenvalues_
    # same directions, but H scaled by Lambda^{-1/2} (Figure 7)
    np.testing.assert_allclose(raw.model_.H_, primal.model_.H_ / np.sqrt(lam), rtol=1e-8, atol=1e-14)
    good = np.mean((primal.forecast(100) - sines.test) ** 2)
    bad = np.mean((raw.forecast(100) - sines.test) ** 2)
    assert bad >= 100 * max(good, 1e-30)
    assert bad > 0.1 * np.var(sines.test)  # not a small degradation: the forecast collapses
    assert np.std(raw.forecast(100)) < 0.5 * np.std(sines.test)


def test_rescale_false_is_primal_only():
    with pytest.raises(ValueError, match="rescale=False only applies to setting='primal'"):
        MultiViewKPCA(2, rescale=False).fit([np.eye(5), np.eye(5)])


# -- Algorithms 3 and 4 -------------------------------------------------------------------------
@pytest.mark.parametrize("setting", ["primal", "dual"])
def test_rotated_stiefel_equals_eigendecomposition(sines_stiefel, sines_eig, setting):
    reference = sines_eig[1].model_
    fitted = sines_stiefel[setting, True]
    model = fitted.model_
    assert model.algorithm_ == (3 if setting == "primal" else 4)
    assert model.n_iter_ > 0 and len(model.history_["objective"]) == model.n_iter_ + 1
    assert subspace_angles(model.H_, reference.H_).max() <= 1e-6
    gamma = model.Gamma_
    assert np.abs(gamma - np.diag(np.diag(gamma))).max() == 0.0
    np.testing.assert_allclose(np.diag(gamma), reference.eigenvalues_, rtol=1e-6)
    # with the library's sign convention the components themselves agree
    np.testing.assert_allclose(model.H_, reference.H_, atol=1e-6)


@pytest.mark.parametrize("setting", ["primal", "dual"])
def test_unrotated_stiefel_gamma_is_not_diagonal_but_forecasts_agree(sines_stiefel, sines_eig, sines, setting):
    fitted = sines_stiefel[setting, False]
    gamma = fitted.model_.Gamma_
    off = np.linalg.norm(gamma - np.diag(np.diag(gamma))) / np.linalg.norm(gamma)
    assert off > 0.05  # Gamma' = O Lambda O^T carries off-diagonal mass (Figure 5)
    np.testing.assert_allclose(np.linalg.eigvalsh(gamma)[::-1], sines_eig[1].model_.eigenvalues_, rtol=1e-6)
    # the prediction is invariant under the rotation: same forecast as eig
    np.testing.assert_allclose(fitted.forecast(100), sines_eig[1].forecast(100), atol=1e-6)
    # and the latent components are a rotation of the eig ones
    assert subspace_angles(fitted.model_.H_, sines_eig[1].model_.H_).max() <= 1e-6


def test_stiefel_is_deterministic(sines):
    model = MultiViewKPCA(4, solver="stiefel", optimizer="cayley_adam", random_state=7)
    a = NARForecaster(model, LAG).fit(sines.train).model_
    b = NARForecaster(model, LAG).fit(sines.train).model_
    assert np.array_equal(a.H_, b.H_) and a.n_iter_ == b.n_iter_


def test_primal_stiefel_uses_factored_objective_when_features_are_wide():
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(40, 3))
    Xs = [Z @ rng.normal(size=(3, 60)), Z @ rng.normal(size=(3, 50))]  # d_f = 110 > n = 40
    maps = identity_maps()
    eig = MultiViewKPCA(3, setting="primal", feature_maps=maps).fit(Xs)
    st_ = MultiViewKPCA(3, setting="primal", solver="stiefel", optimizer="pg", feature_maps=maps, random_state=0).fit(Xs)
    np.testing.assert_allclose(st_.H_, eig.H_, atol=1e-8)


# -- the SantaFe-type setting: explicit random Fourier features ---------------------------------
def test_primal_and_dual_forecasts_agree_with_random_fourier_features():
    train = load_santafe().train[:400]  # the real Santa Fe series, shortened to keep the test fast
    maps = [RandomFourierFeatures(sigma=2.1856, n_features=300, random_state=0), IdentityFeatures()]
    forecasts, models = [], []
    for setting in ("primal", "dual"):
        fitted = NARForecaster(MultiViewKPCA(40, setting=setting, feature_maps=maps), 20).fit(train)
        forecasts.append(fitted.forecast(30))
        models.append(fitted.model_)
    np.testing.assert_allclose(forecasts[0], forecasts[1], rtol=0, atol=1e-8 * np.abs(forecasts[0]).max())
    np.testing.assert_allclose(models[0].H_, models[1].H_, atol=1e-8)
    for U_p, U_d in zip(models[0].U_, models[1].U_):
        np.testing.assert_allclose(U_p, U_d, atol=1e-8 * np.abs(U_p).max())


# -- imputation (eq. 15 / 16) -------------------------------------------------------------------
@pytest.fixture(scope="module")
def three_views():
    rng = np.random.default_rng(3)
    Z = rng.normal(size=(80, 3))
    Xs = [np.tanh(Z @ rng.normal(size=(3, d))) + 0.01 * rng.normal(size=(80, d)) for d in (4, 3, 2)]
    return Xs


@pytest.mark.parametrize("target", [0, 1, 2])
def test_dual_imputation_sums_over_the_other_views_and_matches_primal(three_views, target):
    Xs = three_views
    maps = [RandomFourierFeatures(sigma=1.5, n_features=200, random_state=v) for v in range(3)]
    primal = MultiViewKPCA(5, setting="primal", feature_maps=maps).fit(Xs)
    dual = MultiViewKPCA(5, setting="dual", feature_maps=maps).fit(Xs)
    query = [X[:10] for X in Xs]
    query[target] = None
    _, h_primal = primal.predict_view(query, target, return_latent=True)
    _, h_dual = dual.predict_view(query, target, return_latent=True)
    np.testing.assert_allclose(h_dual, h_primal, rtol=0, atol=1e-8 * np.abs(h_primal).max())

    # eq-mv-impute-dual written out with the sum over w != v ...
    view_fm = dual.views_  # the fitted View objects (public)
    k_rows = [view_fm[w].centred_kernel_rows(X) for w, X in enumerate(query) if w != target]
    K_v_c = view_fm[target].centred_features() @ view_fm[target].centred_features().T
    H, Gamma = dual.H_, dual.Gamma_
    h = np.linalg.solve(Gamma - H.T @ K_v_c @ H, H.T @ sum(k_rows).T).T
    np.testing.assert_allclose(h, h_dual, atol=1e-8 * np.abs(h).max())
    # ... and its imputed kernel vector equals the primal route Phi_{v,c} U_v h
    k_dual = h @ (K_v_c @ H).T
    k_primal = (h_primal @ primal.U_[target].T) @ view_fm[target].centred_features().T
    np.testing.assert_allclose(k_dual, k_primal, atol=1e-8 * np.abs(k_primal).max())

    # the formula as printed (k_v of the *target* view inside the sum) is a different map: with
    # the target's own kernel vector it returns something else than the imputation above
    k_target = view_fm[target].centred_kernel_rows([X[:10] for X in Xs][target])
    h_printed = np.linalg.solve(Gamma - H.T @ K_v_c @ H, H.T @ ((len(Xs) - 1) * k_target).T).T
    assert np.abs(h_printed - h_dual).max() > 1e-3 * np.abs(h_dual).max()


def test_linear_imputation_is_exact_for_data_in_the_model_subspace():
    rng = np.random.default_rng(4)
    Z = rng.normal(size=(60, 2))
    Xs = [Z @ rng.normal(size=(2, 5)) + 1.0, Z @ rng.normal(size=(2, 3)) - 2.0]
    for setting in ("primal", "dual"):
        maps = identity_maps() if setting == "primal" else None
        model = MultiViewKPCA(2, setting=setting, feature_maps=maps).fit(Xs)
        np.testing.assert_allclose(model.predict_view([Xs[0], None], 1), Xs[1], atol=1e-10)
        np.testing.assert_allclose(model.predict_view([None, Xs[1]], 0), Xs[0], atol=1e-10)


def test_kernel_view_imputation_uses_the_kernel_smoother(three_views):
    Xs = three_views
    model = MultiViewKPCA(5, kernels=[RBF(sigma=1.5), RBF(sigma=1.5), RBF(sigma=1.0)]).fit(Xs)
    pred = model.predict_view([Xs[0][:20], Xs[1][:20], None], target=2)
    assert pred.shape == (20, 2) and np.all(np.isfinite(pred))
    # a kernel smoother returns convex combinations of training points: inside their bounding box
    assert np.all(pred >= Xs[2].min(axis=0) - 1e-12) and np.all(pred <= Xs[2].max(axis=0) + 1e-12)
    # and it helps: closer to the truth than predicting the mean
    err = np.mean((pred - Xs[2][:20]) ** 2)
    assert err < 0.5 * np.mean((Xs[2][:20] - Xs[2].mean(axis=0)) ** 2)


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(20, 60),
    dims=st.lists(st.integers(1, 6), min_size=2, max_size=3),
    s=st.integers(1, 4),
    seed=st.integers(0, 10_000),
)
def test_property_primal_equals_dual(n, dims, s, seed):
    rng = np.random.default_rng(seed)
    Xs = [rng.normal(size=(n, d)) for d in dims]
    assume(s <= min(sum(dims), n - 1))
    C = np.hstack([X - X.mean(0) for X in Xs])
    lam = np.linalg.svd(C, compute_uv=False) ** 2
    lam = np.append(lam, 0.0)
    assume(lam[s - 1] > 1e-6 * lam[0])
    assume(np.min(-np.diff(lam[: s + 1])) > 1e-3 * lam[0])  # distinct eigenvalues: unique H up to sign
    primal = MultiViewKPCA(s, setting="primal", feature_maps=identity_maps(len(dims))).fit(Xs)
    dual = MultiViewKPCA(s).fit(Xs)
    np.testing.assert_allclose(primal.H_, dual.H_, atol=1e-8)
    np.testing.assert_allclose(primal.eigenvalues_, dual.eigenvalues_, rtol=1e-9)
    new = [rng.normal(size=(5, d)) for d in dims]
    np.testing.assert_allclose(primal.transform(new), dual.transform(new), atol=1e-8)


# -- forecaster details -------------------------------------------------------------------------
def test_windows_have_lag_plus_one_inputs():
    # x_{l+1} = f(x_l, ..., x_{l-p}): p + 1 inputs, T - p - 1 pairs (the paper's l = p+1..T-1)
    z = np.arange(10.0)
    X, y = NARForecaster.windows(z, 3)
    assert X.shape == (6, 4) and y.shape == (6,)
    np.testing.assert_array_equal(X[0], [0, 1, 2, 3])
    assert y[0] == 4 and y[-1] == 9
    np.testing.assert_array_equal(X[-1], [5, 6, 7, 8])
    f = NARForecaster(MultiViewKPCA(1), 3).fit(np.sin(np.arange(30.0)))
    assert f.n_inputs_ == 4 and f.model_.n_features_in_ == [4, 1] and f.model_.H_.shape[0] == 30 - 3 - 1


def test_forecast_from_history_and_standardisation(sines):
    f = NARForecaster(MultiViewKPCA(4), LAG).fit(sines.train)
    assert f.mean_ == pytest.approx(sines.train.mean()) and f.scale_ == pytest.approx(sines.train.std())
    np.testing.assert_allclose(f.forecast(5, history=sines.train), f.forecast(5), atol=0)
    one_step = f.predict(sines.train[-(LAG + 1):][None, :])
    assert one_step[0] == pytest.approx(f.forecast(1)[0], abs=1e-14)


# -- the flowchart ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "args, expected",
    [
        ((1000, [5000, 1], True, False), (2, "dual", "eig", False)),
        ((1000, [40, 1], True, False), (1, "primal", "eig", False)),
        ((1000, [40, 1], True, True), (3, "primal", "stiefel", True)),
        ((1000, [5000, 1], True, True), (4, "dual", "stiefel", True)),
        ((1000, None, False, False), (2, "dual", "eig", False)),
        ((1000, None, False, True), (4, "dual", "stiefel", True)),
    ],
)
def test_choose_algorithm_follows_the_flowchart(args, expected):
    choice = choose_algorithm(*args)
    assert (choice.algorithm, choice.setting, choice.solver, choice.augmented_loss) == expected
    assert choice.reason


def test_choose_algorithm_validates():
    with pytest.raises(ValueError, match="feature_dims"):
        choose_algorithm(100, [0, 3])
    with pytest.raises(ValueError, match="parametric"):
        choose_algorithm(100, [3], parametric="yes")


# -- bad input ----------------------------------------------------------------------------------
def test_bad_input_messages():
    rng = np.random.default_rng(0)
    Xs = [rng.normal(size=(20, 3)), rng.normal(size=(20, 2))]
    with pytest.raises(ValueError, match=r"Xs\[1\] has 19 samples but Xs\[0\] has 20"):
        MultiViewKPCA(2).fit([Xs[0], Xs[1][:19]])
    model = MultiViewKPCA(2).fit(Xs)
    with pytest.raises(ValueError, match="Xs has 1 view.*pass a list of 2 entries with None at position target=1"):
        model.predict_view([Xs[0]], target=1)
    with pytest.raises(ValueError, match="target=2 is not a view index"):
        model.predict_view([Xs[0], None], target=2)
    with pytest.raises(ValueError, match="target="):
        model.predict_view([Xs[0], None], target=-1)
    with pytest.raises(ValueError, match=r"Xs\[0\]"):
        model.predict_view([Xs[0][:, :2], None], target=1)
    with pytest.raises(ValueError, match="n_components=6 exceeds the numerical rank"):
        MultiViewKPCA(6).fit(Xs)  # linear views: rank of K is 3 + 2 = 5
    with pytest.raises(ValueError, match="n_components"):
        MultiViewKPCA(20).fit(Xs)
    with pytest.raises(ValueError, match=r"feature_maps\[1\] is None"):
        MultiViewKPCA(2, setting="primal", feature_maps=[IdentityFeatures(), None]).fit(Xs)
    with pytest.raises(ValueError, match="kernels has 1 entries but Xs has 2 views"):
        MultiViewKPCA(2, kernels=["rbf"]).fit(Xs)
    with pytest.raises(ValueError, match=r"both kernels\[0\]"):
        MultiViewKPCA(2, kernels=["rbf", None], feature_maps=[IdentityFeatures(), None]).fit(Xs)
    with pytest.raises(ValueError, match="setting="):
        MultiViewKPCA(2, setting="both").fit(Xs)
    bad = Xs[0].copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"Xs\[0\]"):
        MultiViewKPCA(2).fit([bad, Xs[1]])


def test_forecaster_bad_input():
    series = np.sin(np.arange(50) * 0.3)
    with pytest.raises(ValueError, match="lag=50 is too large for the series length 50"):
        NARForecaster(MultiViewKPCA(2), 50).fit(series)
    with pytest.raises(ValueError, match="lag=49 is too large"):
        NARForecaster(MultiViewKPCA(2), 49).fit(series)
    with pytest.raises(ValueError, match="lag"):
        NARForecaster(MultiViewKPCA(2), -1).fit(series)
    nan_series = series.copy()
    nan_series[10] = np.nan
    with pytest.raises(ValueError, match="series"):
        NARForecaster(MultiViewKPCA(2), 5).fit(nan_series)
    f = NARForecaster(MultiViewKPCA(2), 5).fit(series)
    with pytest.raises(ValueError, match="history must have at least lag \\+ 1 = 6 values"):
        f.forecast(3, history=series[:5])
    with pytest.raises(ValueError, match="steps"):
        f.forecast(0)
    with pytest.raises(ValueError, match="windows must have lag \\+ 1 = 6 columns"):
        f.predict(np.zeros((2, 5)))


def test_unconverged_stiefel_warns():
    from sklearn.exceptions import ConvergenceWarning

    rng = np.random.default_rng(0)
    Xs = [rng.normal(size=(30, 3)), rng.normal(size=(30, 2))]
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        MultiViewKPCA(2, solver="stiefel", max_iter=3, random_state=0).fit(Xs)


def test_clone_and_params_roundtrip():
    model = MultiViewKPCA(3, setting="primal", feature_maps=identity_maps(), rescale=False)
    params = clone(model).get_params()
    assert params["rescale"] is False and params["n_components"] == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clone(model)


def test_imputation_from_views_without_information_is_a_clear_error():
    # Views with zero cross-covariance: the two leading components live in view 0 alone, so view 1
    # says nothing about them and Gamma - U_0^T U_0 = U_1^T U_1 = 0 cannot be inverted.
    rng = np.random.default_rng(8)
    A = rng.normal(size=(40, 5))
    Q, _ = np.linalg.qr(A - A.mean(axis=0))
    Xs = [Q[:, :3] * [10.0, 9.0, 8.0], Q[:, 3:] * [1.0, 0.5]]
    for setting in ("primal", "dual"):
        maps = identity_maps() if setting == "primal" else None
        model = MultiViewKPCA(2, setting=setting, feature_maps=maps).fit(Xs)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no stray LinAlgWarning: the singularity is reported once
            with pytest.raises(ValueError, match=r"Gamma - U_0\^T U_0 \(target=0\) is singular"):
                model.predict_view([None, Xs[1]], target=0)


def test_attributes_are_reset_on_every_fit():
    """A refit with solver='eig' leaves no Stiefel attributes of an earlier fit behind."""
    rng = np.random.default_rng(2)
    Xs = [rng.normal(size=(30, 3)), rng.normal(size=(30, 2))]
    model = MultiViewKPCA(2, solver="stiefel", rotate=False, random_state=0).fit(Xs)
    assert model.Gamma_prime_ is not None and model.history_ is not None and model.n_iter_ > 0
    model.set_params(solver="eig").fit(Xs)
    assert model.Gamma_prime_ is None and model.history_ is None and model.n_iter_ is None
    np.testing.assert_array_equal(model.Gamma_, np.diag(model.eigenvalues_))
