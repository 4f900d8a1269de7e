"""Extreme and awkward inputs of the eigen-models: constant data, extreme bandwidths, overflowing
kernel values, sign ties between primal and dual, long forecasts, Generators as random_state,
pre-image bounds, kernel values near overflow. Each gives the right result or an error that names
the parameter; where a message gives advice, the test follows it."""

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rkmlearn import KPCA, MultiViewKPCA, NARForecaster, ProbabilisticKPCA, View, solve_level
from rkmlearn.features import IdentityFeatures, NystroemFeatures, RandomFourierFeatures
from rkmlearn.kernels import GramCenterer, Polynomial
from rkmlearn.preimage import kernel_smoother

X20 = np.random.default_rng(3).normal(size=(20, 3))


@pytest.mark.parametrize(
    "make",
    [
        lambda: KPCA(1, kernel="linear"),
        lambda: KPCA(1, setting="primal", feature_map=IdentityFeatures()),
        lambda: KPCA(1, kernel="cosine"),
        lambda: KPCA(1, kernel="polynomial"),
        lambda: ProbabilisticKPCA(1, kernel="linear"),
    ],
    ids=["linear", "primal-identity", "cosine", "polynomial", "ppca"],
)
def test_zero_variance_data_raise_the_rank_error(make):
    """Constant data: every eigenvalue is rounding noise of the data's scale, the largest included."""
    for c in [0.3, *np.random.default_rng(0).uniform(-100, 100, size=40)]:
        with pytest.raises(ValueError, match="exceeds the numerical rank 0"):
            make().fit(np.full((3, 1), c))
    with pytest.raises(ValueError, match="exceeds the numerical rank 0"):
        MultiViewKPCA(1).fit([np.full((3, 1), 0.3), np.full((3, 2), 0.3)])


@pytest.mark.parametrize("model", [KPCA, ProbabilisticKPCA])
@pytest.mark.parametrize("kernel", ["rbf", "laplacian"])
def test_extreme_bandwidths_give_a_result_or_an_error_naming_sigma(model, kernel):
    # sigma = 1e300: every kernel value is 1, K_c = 0 -- a ValueError that names sigma
    with pytest.raises(ValueError, match=r"sigma=1e\+300.*sigma"):
        model(2, kernel=kernel, kernel_params={"sigma": 1e300}).fit(X20)
    # sigma = 1e-300: the kernel is the identity (K = I), a correct, fitted model
    fitted = model(2, kernel=kernel, kernel_params={"sigma": 1e-300}).fit(X20)
    np.testing.assert_allclose(fitted.eigenvalues_, 1.0, rtol=1e-12)


@pytest.mark.parametrize(
    "model, X",
    [
        (KPCA(kernel="linear"), X20 * 1e160),
        (KPCA(kernel=Polynomial(degree=400)), X20),
        (KPCA(setting="primal", feature_map=IdentityFeatures()), X20 * 1e160),
        (MultiViewKPCA(2), [X20 * 1e160, X20]),
    ],
    ids=["linear", "polynomial-400", "primal-identity", "multiview"],
)
def test_overflowing_kernel_values_say_so_and_to_rescale(model, X):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning on the way either
        with pytest.raises(ValueError, match=r"overflowed.*Rescale X") as info:
            model.fit(X)
    assert "SimpleImputer" not in str(info.value) and "NaN or infinite" not in str(info.value)


def primal_and_dual(X, s=1):
    dual = KPCA(s, kernel="linear").fit(X)
    primal = KPCA(s, setting="primal", feature_map=IdentityFeatures()).fit(X)
    return primal, dual


@pytest.mark.parametrize(
    "X",
    [np.array([[100.0], [0.0]]), np.array([[1.0, 2.0], [-1.0, -2.0], [3.0, 0.5], [-3.0, -0.5]])],
    ids=["two-points", "plus-minus-x"],
)
def test_primal_and_dual_agree_in_sign_on_ties(X):
    primal, dual = primal_and_dual(X)
    np.testing.assert_allclose(primal.H_, dual.H_, atol=1e-12)  # no sign fixing


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 6), d=st.integers(1, 3))
def test_property_symmetric_data_primal_equals_dual(seed, n, d):
    """+-x data: every hidden feature has exactly tied entries h_i = -h_{i+n}."""
    half = np.random.default_rng(seed).normal(size=(n, d))
    X = np.vstack([half, -half])
    s = min(d, 2 * n - 1)
    lam = np.linalg.svd(X - X.mean(0), compute_uv=False) ** 2
    if s > 1 and np.min(-np.diff(lam[:s])) <= 1e-6 * lam[0] or lam[s - 1] <= 1e-8 * lam[0]:
        return  # repeated or vanishing eigenvalues: H is not unique up to sign
    primal, dual = primal_and_dual(X, s)
    np.testing.assert_allclose(primal.H_, dual.H_, atol=1e-8)


def test_long_forecasts_show_progress_and_do_not_revalidate_each_step(capsys, monkeypatch):
    series = np.sin(0.3 * np.arange(120))
    f = NARForecaster(MultiViewKPCA(2), 5).fit(series)
    checks = []
    original = MultiViewKPCA._check_views_in
    monkeypatch.setattr(MultiViewKPCA, "_check_views_in", lambda self, *a, **k: checks.append(1) or original(self, *a, **k))
    out = f.forecast(NARForecaster.PROGRESS_FROM)
    assert out.shape == (NARForecaster.PROGRESS_FROM,) and np.all(np.isfinite(out))
    assert checks == []  # the model's inputs are validated once, not once per step
    assert "NARForecaster.forecast" in capsys.readouterr().err  # the progress bar, shown by default
    assert "Cost per step" in NARForecaster.__doc__


def advised(pattern, message):
    return float(re.search(pattern, message).group(1))


def test_every_message_gives_advice_that_works():
    series = np.sin(0.05 * np.arange(400)) + 0.1 * np.random.default_rng(0).normal(size=400)
    for lag in (399, 398):  # too long for 400 values; the advice must name a lag that fits
        with pytest.raises(ValueError, match="lag=") as info:
            NARForecaster(MultiViewKPCA(2), lag).fit(series)
        assert "Xs" not in str(info.value)
        NARForecaster(MultiViewKPCA(2), int(advised(r"Use lag <= (\d+)", str(info.value)))).fit(series)
    with pytest.raises(ValueError, match="series has 1 value") as info:
        NARForecaster(MultiViewKPCA(2), 0).fit(series[:1])
    assert "lag <= -1" not in str(info.value)
    length, lag = advised(r"at least (\d+) values", str(info.value)), advised(r"lag=(\d+)", str(info.value))
    NARForecaster(MultiViewKPCA(2), int(lag)).fit(series[: int(length)]).forecast(3)

    X = np.random.default_rng(0).normal(size=(40, 2))
    with pytest.raises(ValueError, match="leaves no discarded direction") as info:
        ProbabilisticKPCA(1).fit(X[:2])
    assert "n_components <= 0" not in str(info.value)
    ProbabilisticKPCA(1, sigma2=advised(r"sigma2=([0-9.e-]+)\)", str(info.value))).fit(X[:2])

    bound = ProbabilisticKPCA(2, kernel="linear").fit(X20).eigenvalues_[-1] / 20
    with pytest.raises(ValueError, match="exceeds the bound") as info:
        ProbabilisticKPCA(2, kernel="linear", sigma2=np.nextafter(bound, 1.0)).fit(X20)
    shown = re.search(r"sigma2=(\S+) exceeds the bound sigma2 <= lambda_q / N = (\S+) ", str(info.value)).groups()
    assert shown[0] != shown[1]  # the two numbers differ as printed
    ProbabilisticKPCA(2, kernel="linear", sigma2=advised(r"Pass sigma2 <= (\S+),", str(info.value))).fit(X20)


@pytest.mark.parametrize(
    "make, data, result",
    [
        (lambda rng: KPCA(2, random_state=rng), X20, "H_"),
        (lambda rng: KPCA(2, solver="stiefel", random_state=rng), X20, "H_"),
        (lambda rng: MultiViewKPCA(2, solver="stiefel", random_state=rng), [X20, X20[:, :2]], "H_"),
        (lambda rng: ProbabilisticKPCA(2, solver="stiefel", random_state=rng), X20, "E_"),
        (lambda rng: KPCA(2, setting="primal", feature_map=RandomFourierFeatures(n_features=10, random_state=rng)),
         X20, "H_"),
        (lambda rng: KPCA(2, setting="primal", feature_map=NystroemFeatures(n_components=10, random_state=rng)),
         X20, "H_"),
    ],
    ids=["kpca", "kpca-stiefel", "multiview", "ppca", "rff", "nystroem"],
)
def test_a_numpy_generator_is_accepted_as_random_state(make, data, result):
    a = getattr(make(np.random.default_rng(0)).fit(data), result)
    b = getattr(make(np.random.default_rng(0)).fit(data), result)
    np.testing.assert_array_equal(a, b)  # reproducible from the same generator state
    level = solve_level([View().fit(X20)], 2, solver="stiefel", random_state=np.random.default_rng(0))
    assert level.H.shape == (20, 2)


def test_preimage_top_k_above_n_samples_is_rejected_at_fit():
    Xs = [X20, X20[:, :2]]
    with pytest.raises(ValueError, match=r"preimage_top_k must be in \[1, 20\]; got 1000"):
        MultiViewKPCA(2, kernels=["rbf", "rbf"], preimage_top_k=1000).fit(Xs)
    model = MultiViewKPCA(2, kernels=["rbf", "rbf"], preimage_top_k=20).fit(Xs)  # the advised bound
    assert model.predict_view([X20[:3], None], target=1).shape == (3, 2)


def test_kernel_smoother_with_kernel_values_near_overflow():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 2))
    K = X @ X.T + 10.0  # positive kernel values
    centerer = GramCenterer()
    K_c = centerer.fit_transform(K)
    reference = kernel_smoother(K_c[:2], X, centerer)
    huge = GramCenterer()
    huge.row_means_, huge.grand_mean_, huge.n_samples_fit_ = centerer.row_means_ * 1e306, centerer.grand_mean_ * 1e306, 6
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow RuntimeWarning
        out = kernel_smoother(K_c[:2] * 1e306, X, huge)
    np.testing.assert_allclose(out, reference, rtol=1e-12)
    assert np.abs(out).max() > 0.0  # not the origin
