"""The recurrent RKM (Part V, Chapter 10): A, eq. (4), the latent recursion, the pre-images, bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge

from rkmlearn import RecurrentRKM
from rkmlearn.datasets import sine_wave
from rkmlearn.kernels import RBF
from rkmlearn.models.recurrent.latent_dynamics import (
    is_psd,
    krr_fit,
    krr_predict,
    lag_matrix,
    lag_weights,
    latent_step,
    recursion_roots,
)
from rkmlearn.models.recurrent.forecaster import MAX_STEPS, UnstableRecursionWarning
from rkmlearn.preimage import kernel_smoother

# most tests use p = 3 on purpose (a wrong index of eq. (8) shows there); its recursion grows, and
# fit says so: the warning is tested on its own below
pytestmark = pytest.mark.filterwarnings("ignore::rkmlearn.models.recurrent.UnstableRecursionWarning")


@pytest.fixture(scope="module")
def series():
    rng = np.random.default_rng(0)
    t = np.arange(150)
    return np.sin(2 * np.pi * t / 17) + 0.5 * np.sin(2 * np.pi * t / 7) + 0.05 * rng.normal(size=t.size)


def fit(series, n_components=4, **kw):
    params = dict(kernel_params={"sigma": 1.0}, lag_weights="gaussian", p=3, sigma_t=1.5)
    params.update(kw)
    return RecurrentRKM(n_components, **params).fit(series)


# -- A -----------------------------------------------------------------------------------------
def test_lag_weights_both_families():
    assert np.array_equal(lag_weights("indicator", 4), [0.0, 1.0, 1.0, 1.0, 1.0])
    a = lag_weights("gaussian", 5, sigma_t=2.0)
    assert np.allclose(a, [np.exp(-(l ** 2) / (2 * 2.0 ** 2)) for l in range(6)], rtol=1e-15)


@pytest.mark.parametrize("family", ["gaussian", "indicator"])
def test_lag_matrix_is_banded_toeplitz(family):
    a = lag_weights(family, 3, sigma_t=1.3)
    A = lag_matrix(a, 12)
    for i in range(12):
        for j in range(12):
            assert A[i, j] == (a[abs(i - j)] if abs(i - j) <= 3 else 0.0)
    model = RecurrentRKM(2, lag_weights=family, p=3, sigma_t=1.3).fit(np.sin(np.arange(12.0)))
    assert np.array_equal(model.A_, A)


def test_psd_statement():
    # untruncated Gaussian weights: A is the Gaussian Gram matrix of the times, PSD; so is K + A
    T = 40
    A = lag_matrix(lag_weights("gaussian", T - 1, sigma_t=2.0), T)
    assert is_psd(A)
    x = np.sin(0.4 * np.arange(T))
    # truncated where the weights are negligible against the symbol's minimum: still PSD
    assert is_psd(lag_matrix(lag_weights("gaussian", 5, sigma_t=1.0), T))
    model = RecurrentRKM(2, lag_weights="gaussian", p=5, sigma_t=1.0, psd="raise").fit(x)
    assert model.psd_ is True and np.all(model.eigenvalues_ > 0)
    # the untruncated weights cannot be forecast: the recursion needs 2p <= T latents
    with pytest.raises(ValueError, match="2p"):
        RecurrentRKM(2, lag_weights="gaussian", p=T - 1, sigma_t=20.0).fit(x)
    # the indicator has a_0 = 0, so trace(A) = 0 and A is indefinite
    assert not is_psd(lag_matrix(lag_weights("indicator", 2), T))
    # truncated Gaussian, p = 1: symbol 1 + 2 exp(-1/(2 sigma_t^2)) cos(w) < 0 for sigma_t = 2
    assert not is_psd(lag_matrix(lag_weights("gaussian", 1, sigma_t=2.0), T))
    with pytest.raises(ValueError, match="indefinite"):
        RecurrentRKM(2, lag_weights="indicator", p=5, psd="raise").fit(x)
    with pytest.warns(UserWarning, match="indefinite"):
        m = RecurrentRKM(2, lag_weights="indicator", p=5, psd="warn").fit(x)
    assert m.psd_ is False
    assert RecurrentRKM(2, lag_weights="indicator", p=5).fit(x).psd_ is None


# -- training, eq. (4) -------------------------------------------------------------------------
@pytest.mark.parametrize("family", ["gaussian", "indicator"])
def test_eigenproblem_residual(series, family):
    model = fit(series, lag_weights=family)
    K = model.view_.centred_gram()
    KA = K + model.A_
    H, lam = model.H_, model.eigenvalues_
    residual = np.linalg.norm(KA @ H - H * lam) / np.linalg.norm(KA)
    assert residual <= 1e-10
    assert np.allclose(H.T @ H, np.eye(H.shape[1]), atol=1e-12)
    # the s leading eigenvalues: no other eigenvalue is larger
    assert np.isclose(lam[0], np.linalg.eigvalsh(KA)[-1], rtol=1e-10)
    # scores are K H (the centred kernel values of the pre-image)
    assert np.allclose(model.level_.scores[0], K @ H, atol=1e-10 * np.abs(K).max())


def test_teacher_forced_stationarity_reproduces_training_latents(series):
    """Eq. (3) at time c, solved for its newest latent h_{c+p} with the training scores K H."""
    model = fit(series)
    a, H, lam, E = model.a_, model.H_, model.eigenvalues_, model.level_.scores[0]
    p, T = a.size - 1, H.shape[0]
    worst = 0.0
    for c in range(p, T - p):
        rest = sum(a[abs(l)] * H[c + l] for l in range(-p, p))  # l = -p .. p - 1
        h_new = (lam * H[c] - E[c] - rest) / a[p]
        worst = max(worst, np.abs(h_new - H[c + p]).max())
    assert worst <= 1e-8 * np.abs(H).max()


def test_recursion_matrix_identity(series):
    """M = H^T A H = Lambda - H^T K H: the two forms of eq. (8)'s matrix."""
    model = fit(series)
    K = model.view_.centred_gram()
    H = model.H_
    assert np.allclose(model.M_, np.diag(model.eigenvalues_) - H.T @ K @ H, atol=1e-10 * np.abs(K).max())


def test_recursion_equals_direct_solve(series):
    """The recursion (eq. 8) = the stacked stationarity conditions (eq. 7 with phi = V h) solved at once."""
    model = fit(series)
    a, M, H = model.a_, model.M_, model.H_
    p, T, s = a.size - 1, H.shape[0], H.shape[1]
    n = 6
    # unknowns h_T .. h_{T+n-1} (0-based); condition at centre c = T - p + j for j = 0..n-1:
    # sum_{|l| <= p} a_|l| h_{c+l} - M h_c = 0
    G = np.zeros((n * s, n * s))
    b = np.zeros(n * s)
    for j in range(n):
        c = T - p + j
        for l in range(-p, p + 1):
            t = c + l
            coef = a[abs(l)] * np.eye(s) - (M if l == 0 else 0.0)
            if t < T:
                b[j * s:(j + 1) * s] -= coef @ H[t]
            else:
                k = t - T
                G[j * s:(j + 1) * s, k * s:(k + 1) * s] += coef
    direct = np.linalg.solve(G, b).reshape(n, s)
    recursive = model.forecast_latents(n)
    assert np.allclose(recursive, direct, rtol=0, atol=1e-8 * np.abs(direct).max())


def test_latent_step_formula():
    rng = np.random.default_rng(1)
    p, s = 3, 2
    a = rng.uniform(0.5, 1.0, p + 1)
    M = rng.normal(size=(s, s))
    M = M + M.T
    W = rng.normal(size=(2 * p, s))
    h = latent_step(W, M, a)
    # check the full relation at the centre (row p of the window): sum_{|l|<=p} a_|l| h_{c+l} = M h_c
    full = np.vstack([W, h])
    lhs = sum(a[abs(l)] * full[p + l] for l in range(-p, p + 1))
    assert np.allclose(lhs, M @ W[p], atol=1e-12)



@pytest.mark.parametrize("family, p", [("gaussian", 2), ("indicator", 2), ("gaussian", 3)])
def test_recursion_growth_is_the_largest_characteristic_root(series, family, p):
    """For p >= 2 the latents of eq. (8) grow at the rate of the largest root of the palindromic
    characteristic polynomial sum_{|l| <= p} a_|l| z^(l+p) - mu z^p (mu: eigenvalues of M), whose
    roots pair as z, 1/z: the divergence is the model's, not the implementation's."""
    model = fit(series, lag_weights=family, p=p)
    a = model.a_
    rho = 0.0
    for mu in np.linalg.eigvalsh(model.M_):
        coeffs = np.concatenate([a[::-1], a[1:]]) - mu * (np.arange(2 * p + 1) == p)
        r = np.abs(np.roots(coeffs))
        assert np.allclose(np.sort(r), np.sort(1 / r), rtol=1e-6)
        rho = max(rho, r.max())
    assert rho > 1.05
    with np.errstate(all="ignore"):
        h = model.forecast_latents(80)
    rate = (np.linalg.norm(h[79]) / np.linalg.norm(h[39])) ** (1 / 40)
    assert abs(rate / rho - 1) < 0.01

# -- pre-images --------------------------------------------------------------------------------
def test_krr_preimage_matches_sklearn(series):
    model = fit(series, preimage="krr", preimage_alpha=1e-2, preimage_sigma=0.1)
    Z = (series[:, None] - model.mean_) / model.scale_
    ref = KernelRidge(alpha=1e-2, kernel="rbf", gamma=1 / (2 * 0.1 ** 2)).fit(model.H_, Z)
    Hq = model.H_[::7] * 1.1
    got = model.preimage_of(Hq)
    assert np.allclose(got, ref.predict(Hq) * model.scale_ + model.mean_, rtol=1e-8, atol=1e-8)
    B = krr_fit(model.H_, Z, RBF(0.1), 1e-2)
    assert np.allclose(krr_predict(Hq, model.H_, B, RBF(0.1)), ref.predict(Hq), atol=1e-8)


def test_krr_default_bandwidth_is_median(series):
    model = fit(series, preimage="krr")
    D = np.sqrt(((model.H_[:, None, :] - model.H_[None, :, :]) ** 2).sum(-1))
    assert np.isclose(model.preimage_kernel_.sigma, np.median(D[np.triu_indices(D.shape[0], 1)]), rtol=1e-8)


def test_smoother_preimage_is_eq9(series):
    """phi = sum_t phi(x_t) h_t^T h: centred kernel values K_c H h, mean term (r - g)^T H h."""
    model = fit(series)
    h = model.H_[[10, 50]] * 0.9
    view = model.view_
    K_c = view.centred_gram()
    r, g = view.centerer_.row_means_, view.centerer_.grand_mean_
    alpha = h @ model.H_.T
    ref = kernel_smoother(alpha @ K_c, view.X_, view.centerer_, mean_term=alpha @ (r - g))
    assert np.allclose(model.preimage_of(h), ref * model.scale_ + model.mean_, atol=1e-10)


# -- forecasting -------------------------------------------------------------------------------
@pytest.mark.parametrize("preimage", ["smoother", "krr"])
def test_forecast_shape_and_determinism(series, preimage):
    a = fit(series, preimage=preimage).forecast(25)
    b = fit(series, preimage=preimage).forecast(25)
    assert a.shape == (25,) and np.all(np.isfinite(a))
    assert np.array_equal(a, b)
    latents = fit(series, preimage=preimage).forecast_latents(25)
    assert latents.shape == (25, 4)


def test_forecast_multivariate(series):
    X = np.column_stack([series, np.roll(series, 3)])
    f = RecurrentRKM(3, kernel_params={"sigma": 1.5}, p=2).fit(X).forecast(7)
    assert f.shape == (7, 2)


def test_sine_forecast_follows_the_wave():
    data = sine_wave()
    model = RecurrentRKM(2, kernel_params={"sigma": 1.0}, lag_weights="indicator", p=1).fit(data.train)
    f = model.forecast(20)
    assert np.corrcoef(f, data.test[:20])[0, 1] > 0.9


def test_progress_bar(series, capsys):
    model = fit(series)
    f = model.forecast(3, progress=True)
    assert f.shape == (3,)


# -- bad input ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "params, match",
    [
        (dict(sigma_t=0.0), "sigma_t"),
        (dict(sigma_t=-1.0), "sigma_t"),
        (dict(p=0), "p must"),
        (dict(n_components=500), "n_components"),
        (dict(lag_weights="box"), "lag_weights"),
        (dict(preimage="nearest"), "preimage"),
        (dict(psd="maybe"), "psd"),
        (dict(lag_weights=[1.0, 0.5, 0.0]), "a_p"),
        (dict(lag_weights="gaussian", p=40, sigma_t=0.1), "a_p"),
        (dict(preimage="krr", preimage_alpha=0.0), "preimage_alpha"),
        (dict(lag_weights="indicator", p=100), "2p"),
    ],
)
def test_bad_parameters(series, params, match):
    n = params.pop("n_components", 2)
    with pytest.raises(ValueError, match=match):
        RecurrentRKM(n, **params).fit(series)


def test_bad_series_and_steps(series):
    bad = series.copy()
    bad[3] = np.nan
    with pytest.raises(ValueError, match="series"):
        RecurrentRKM(2).fit(bad)
    with pytest.raises(ValueError, match="constant"):
        RecurrentRKM(2).fit(np.ones(20))
    model = fit(series)
    for steps in (0, -1, 2.5):
        with pytest.raises(ValueError, match="steps"):
            model.forecast(steps)
    with pytest.raises(ValueError, match="steps"):
        model.forecast_latents(0)
    with pytest.raises(ValueError, match="history"):
        model.forecast(3, history=series)
    with pytest.raises(ValueError, match="n_components"):
        model.preimage_of(np.zeros((2, 1)))


def test_no_warning_on_clean_fit(series):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = fit(series, p=1)
        model.forecast(10)
    assert model.growth_rate_ <= 1 + 1e-6


WAVE = np.sin(2 * np.pi * np.arange(120) / 20)


def test_recursion_roots_are_the_characteristic_polynomial_roots():
    for a in (lag_weights("gaussian", 3, 1.5), lag_weights("indicator", 2), np.array([0.2, 1.0])):
        p = a.size - 1
        mu = np.array([-1.0, 0.3, 2.5])
        got = recursion_roots(a, mu)
        assert got.shape == (3, 2 * p)
        for m, row in zip(mu, got):
            ref = np.roots(np.concatenate([a[::-1], a[1:]]) - m * (np.arange(2 * p + 1) == p))
            assert np.allclose(np.sort(np.abs(row)), np.sort(np.abs(ref)), rtol=1e-8)
    with pytest.raises(ValueError, match="a_p"):
        recursion_roots([1.0, 0.0], [0.5])


@pytest.mark.parametrize("family, p", [("gaussian", 2), ("gaussian", 3), ("indicator", 2), ("indicator", 3)])
def test_unstable_recursion_warns_at_fit(family, p):
    """Issue 19: p >= 2 latents grew to 1e13 with no warning; fit now checks the roots and names p."""
    with pytest.warns(UnstableRecursionWarning, match=f"p={p}"):
        model = RecurrentRKM(2, kernel_params={"sigma": 1.0}, lag_weights=family, p=p).fit(WAVE)
    assert model.growth_rate_ > 1.05
    h = model.forecast_latents(20)
    assert np.abs(h).max() > 100 * np.abs(model.H_).max()  # the warning is about a real growth


@pytest.mark.parametrize("family", ["gaussian", "indicator"])
def test_p1_recursion_is_stable_and_silent(family):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = RecurrentRKM(2, kernel_params={"sigma": 1.0}, lag_weights=family, p=1).fit(WAVE)
    assert abs(model.growth_rate_ - 1) <= 1e-6


@pytest.mark.parametrize("factor", [1e300, 1e-300])
def test_extreme_scales_are_standardised(factor):
    """Issue 19: w * 1e300 forecast NaN, w * 1e-300 was called constant; the forecast scales."""
    ref = RecurrentRKM(2, kernel_params={"sigma": 1.0}).fit(WAVE).forecast(3)
    got = RecurrentRKM(2, kernel_params={"sigma": 1.0}).fit(WAVE * factor).forecast(3)
    assert np.all(np.isfinite(got))
    assert np.allclose(got / factor, ref, rtol=1e-10, atol=1e-12)


def test_window_too_long_names_window():
    with pytest.raises(ValueError, match="window=119.*n_components=2.*at most 118"):
        RecurrentRKM(2, window=119).fit(WAVE)


def test_overflowing_forecast_names_p_and_steps():
    """Issue 19: p = 3 forecast(10_000) said 'k_centred contains NaN ... SimpleImputer'."""
    with pytest.warns(UnstableRecursionWarning):
        model = RecurrentRKM(2, kernel_params={"sigma": 1.0}, p=3).fit(WAVE)
    for preimage in ("smoother", "krr"):
        with pytest.warns(UnstableRecursionWarning):
            model = RecurrentRKM(2, kernel_params={"sigma": 1.0}, p=3, preimage=preimage).fit(WAVE)
        with pytest.raises(ValueError, match=r"p=3 overflowed.*steps <= \d+.*p=1") as info:
            model.forecast(10_000, progress=False)
        limit = int(str(info.value).split("steps <= ")[1].split()[0])
        assert np.all(np.isfinite(model.forecast(limit)))  # the advice works
    with pytest.raises(ValueError, match="overflowed at step"):
        model.forecast_latents(10_000)


def test_too_many_steps_is_refused_before_allocating():
    """Issue 19: forecast(10**13) raised MemoryError '72.8 TiB'."""
    model = RecurrentRKM(2, kernel_params={"sigma": 1.0}).fit(WAVE)
    for call in (model.forecast, model.forecast_latents):
        with pytest.raises(ValueError, match=f"steps=10000000000000 .*steps <= {MAX_STEPS:_}"):
            call(10**13)


def test_preimage_top_k():
    """The smoother keeps the top_k most similar training steps (the authors' MV-RKM code: ~10)."""
    full = RecurrentRKM(2, kernel_params={"sigma": 1.0}).fit(WAVE)
    model = RecurrentRKM(2, kernel_params={"sigma": 1.0}, preimage_top_k=10).fit(WAVE)
    h = model.forecast_latents(5)
    view = model.view_
    k = h @ model.level_.scores[0].T
    ref = kernel_smoother(k, view.X_, view.centerer_, mean_term=h @ (model.H_.T @ (view.centerer_.row_means_
                          - view.centerer_.grand_mean_)), top_k=10)
    assert np.allclose(model.forecast(5), ref[:, 0] * model.scale_[0] + model.mean_[0], atol=1e-12)
    assert not np.allclose(model.forecast(5), full.forecast(5))
    one = RecurrentRKM(2, kernel_params={"sigma": 1.0}, preimage_top_k=1).fit(WAVE).forecast(5)
    assert np.all(np.isin(one, WAVE))  # top_k = 1: the most similar training value itself
    for bad in (0, 121, 2.5):
        with pytest.raises(ValueError, match="preimage_top_k"):
            RecurrentRKM(2, preimage_top_k=bad).fit(WAVE)


def test_window_embedding(series):
    """window=q: the kernel sees windows (y_{t-q+1}, ..., y_t); the forecast is a window's last value."""
    q = 4
    model = fit(series, window=q, kernel_params={"sigma": 2.0})
    Z = (series - model.mean_[0]) / model.scale_[0]
    windows = np.lib.stride_tricks.sliding_window_view(Z, q)
    assert np.array_equal(model.view_.X_, windows)
    assert model.H_.shape == (series.size - q + 1, 4)
    f = model.forecast(5)
    assert f.shape == (5,) and np.all(np.isfinite(f))
    # the pre-image of a training latent is the last value of a weighted mean of training windows
    h = model.H_[[20]]
    view = model.view_
    r, g = view.centerer_.row_means_, view.centerer_.grand_mean_
    alpha = h @ model.H_.T
    ref = kernel_smoother(alpha @ view.centred_gram(), view.X_, view.centerer_, mean_term=alpha @ (r - g))
    assert np.allclose(model.preimage_of(h)[:, 0], ref[:, -1] * model.scale_[0] + model.mean_[0], atol=1e-10)
    with pytest.raises(ValueError, match="window"):
        RecurrentRKM(2, window=0).fit(series)
    with pytest.raises(ValueError, match="window"):
        RecurrentRKM(2, lag_weights="indicator", p=3, window=146).fit(series)


def test_estimator_parameters_and_clone(series):
    from sklearn.base import clone

    model = RecurrentRKM(3, lag_weights="indicator", p=2, preimage="krr", window=2, preimage_top_k=5)
    assert model.get_params()["p"] == 2 and model.get_params()["window"] == 2
    copy = clone(model)
    assert copy.get_params() == model.get_params()
    assert np.array_equal(clone(model).fit(series).forecast(5), model.fit(series).forecast(5))


def test_the_fit_keeps_A_banded_and_the_automatic_solver_matches_dense_on_the_cluster():
    """Santa Fe, T = 1000: eigenvalues 9-12 of K + A lie within 1e-4 (ARPACK stalled there, issue 24)."""
    import tracemalloc

    from rkmlearn.datasets import load_santafe
    from rkmlearn.models.recurrent.latent_dynamics import lag_matrix

    x = load_santafe(source="bundled").series[:1000]
    models = {}
    for solver in ("auto", "dense"):
        tracemalloc.start()
        models[solver] = RecurrentRKM(12, kernel_params={"sigma": 1.0}, lag_weights="gaussian", p=1,
                                      eigen_solver=solver).fit(x)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak <= 1.1 * 1000 * 1000 * 8 + 4e6  # K + A in place: one T x T matrix
    auto, dense = models["auto"], models["dense"]
    np.testing.assert_allclose(auto.eigenvalues_, dense.eigenvalues_, rtol=1e-12)
    np.testing.assert_allclose(np.abs(auto.H_.T @ dense.H_), np.eye(12), atol=1e-6)
    np.testing.assert_array_equal(auto.A_, lag_matrix(auto.a_, 1000))


def test_from_band_min_n_on_the_low_rank_plus_band_solver_matches_dense(monkeypatch):
    """Santa Fe, T = 1600 (>= BAND_MIN_N): K + A is solved as low rank + band (the dense driver's
    O(T^3) is avoided), with the same eigenpairs and forecasts as the dense fit, one T x T matrix."""
    import tracemalloc

    from rkmlearn.datasets import load_santafe
    from rkmlearn.solvers import block_krylov, eigen

    calls = []
    original = block_krylov.lowrank_band_eigenpairs

    def spy(*args, **kwargs):
        result = original(*args, **kwargs)
        calls.append(args[0].shape[0])
        return result

    monkeypatch.setattr(eigen, "lowrank_band_eigenpairs", spy)
    T = max(eigen.BAND_MIN_N, 1600)
    x = load_santafe(source="bundled").series[:T]
    tracemalloc.start()
    auto = RecurrentRKM(12, kernel_params={"sigma": 1.0}, lag_weights="gaussian", p=1).fit(x)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert calls == [T] and peak <= 1.1 * T * T * 8 + 4e6
    dense = RecurrentRKM(12, kernel_params={"sigma": 1.0}, lag_weights="gaussian", p=1, eigen_solver="dense").fit(x)
    np.testing.assert_allclose(auto.eigenvalues_, dense.eigenvalues_, rtol=1e-12)
    np.testing.assert_allclose(np.abs(auto.H_.T @ dense.H_), np.eye(12), atol=1e-9)
    np.testing.assert_allclose(auto.forecast(50), dense.forecast(50), rtol=1e-8, atol=1e-8 * np.abs(x).max())
