"""Exercise 2: ``impute_target(U_x, U_y, Gamma, phi_x)``, and the forecasting experiment of
Chapter 3: with the rescaled weights the sum-of-sines forecast is exact, without it collapses.

The sum of sines and the eigendecomposition are computed here with plain numpy (a full ``eigh``
of the small 42 x 42 cross-covariance), independent of the submission. As in Chapter 5
(``eq-mv-nar``) and the paper, lag ``p`` means windows of ``p + 1`` past values ``x_{l-p}, ..., x_l``.
"""
import numpy as np
import pytest

LAG = 40
N_IN = LAG + 1  # values per window: x_{l-p}, ..., x_l


def _sines():
    t = 0.01 * np.arange(500)
    x = np.sin(2 * np.pi * t) + 0.2 * np.sin(2 * np.pi * 20 * t)
    return x[:400], x[400:]


def _windows(z, lag):
    """Windows ``(T - lag - 1, lag + 1)`` and their next values ``(T - lag - 1,)``."""
    X = np.lib.stride_tricks.sliding_window_view(z, lag + 1)[:-1]
    return np.ascontiguousarray(X), z[lag + 1:].copy()


def _fit(train, s):
    """Standardise, window, centre, eigendecompose C (Algorithm 1 steps 3-5)."""
    mean, scale = train.mean(), train.std()
    X, y = _windows((train - mean) / scale, LAG)
    Phi = np.hstack([X, y[:, None]])
    mu = Phi.mean(axis=0)
    Phi = Phi - mu
    w, V = np.linalg.eigh(Phi.T @ Phi)
    return dict(mean=mean, scale=scale, mu=mu, U_tilde=V[:, ::-1][:, :s], lam=w[::-1][:s])


def _forecast(submission, fit, U, train, steps):
    Ux, Uy = U[:N_IN], U[N_IN:]
    z = (train[-N_IN:] - fit["mean"]) / fit["scale"]
    out = np.empty(steps)
    for t in range(steps):  # recursion in time: each step needs the previous prediction
        phi_y = np.asarray(submission.impute_target(Ux, Uy, fit["lam"], (z - fit["mu"][:N_IN])[None, :]))
        out[t] = phi_y[0, 0] + fit["mu"][N_IN]
        z = np.append(z[1:], out[t])
    return out * fit["scale"] + fit["mean"]


@pytest.mark.points(2)
def test_impute_matches_rkmlearn_predict_view(submission, rng):
    from rkmlearn import MultiViewKPCA
    from rkmlearn.features import IdentityFeatures

    Z = rng.normal(size=(80, 3))
    Xs = [Z @ rng.normal(size=(3, 6)) + 0.05 * rng.normal(size=(80, 6)), np.tanh(Z @ rng.normal(size=(3, 2)))]
    model = MultiViewKPCA(4, setting="primal", feature_maps=[IdentityFeatures(), IdentityFeatures()]).fit(Xs)
    X_new = rng.normal(size=(7, 3)) @ rng.normal(size=(3, 6))
    expected = model.predict_view([X_new, None], target=1)
    mx, my = Xs[0].mean(axis=0), Xs[1].mean(axis=0)
    got = np.asarray(submission.impute_target(model.U_[0], model.U_[1], model.Gamma_, X_new - mx)) + my
    assert got.shape == (7, 2)
    np.testing.assert_allclose(got, expected, atol=1e-9 * np.abs(expected).max())


@pytest.mark.points(1)
def test_impute_accepts_the_diagonal_of_Gamma(submission, rng):
    U_x, U_y = rng.normal(size=(5, 3)), 0.3 * rng.normal(size=(2, 3))
    lam = np.array([9.0, 5.0, 2.0])
    phi_x = rng.normal(size=(4, 5))
    full = submission.impute_target(U_x, U_y, np.diag(lam), phi_x)
    diag = submission.impute_target(U_x, U_y, lam, phi_x)
    h = np.linalg.solve(np.diag(lam) - U_y.T @ U_y, U_x.T @ phi_x.T)
    np.testing.assert_allclose(np.asarray(full), (U_y @ h).T, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.asarray(diag), np.asarray(full), rtol=1e-12, atol=1e-14)


@pytest.mark.points(3)
def test_impute_forecast_rescaled_is_exact_unrescaled_collapses(submission):
    train, test = _sines()
    fit = _fit(train, 4)
    U = np.asarray(submission.rescale(fit["U_tilde"], fit["lam"]))
    good = _forecast(submission, fit, U, train, test.size)
    bad = _forecast(submission, fit, fit["U_tilde"], train, test.size)  # step 6 omitted: U = U~
    mse_good, mse_bad = np.mean((good - test) ** 2), np.mean((bad - test) ** 2)
    assert mse_good < 1e-20, f"the rescaled 4-component forecast must be exact, MSE = {mse_good:.2e}"
    assert mse_bad >= 100 * max(mse_good, 1e-30) and mse_bad > 0.5 * np.var(test), (
        f"without rescaling the forecast should collapse: MSE {mse_bad:.3e}")
    assert np.std(bad) < 0.01 * np.std(test)
