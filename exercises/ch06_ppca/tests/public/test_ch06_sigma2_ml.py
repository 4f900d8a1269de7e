"""Exercise 1: ``sigma2_ml(eigenvalues, n_samples, q, rank)``, the maximum-likelihood noise variance.

References: rkmlearn's ProbabilisticKPCA (which computes the tail by a pivoted Cholesky factor,
not from the spectrum) and the closed-form likelihood in sigma^2 of eq-ppca-likelihood-sigma.
"""
import numpy as np
import pytest


def _centred_rbf(rng, n=30, d=2, sigma=1.5):
    X = rng.normal(size=(n, d))
    K = np.exp(-np.sum((X[:, None] - X[None]) ** 2, axis=-1) / (2 * sigma**2))
    M = np.eye(n) - np.ones((n, n)) / n
    return X, M @ K @ M


@pytest.mark.points(2)
def test_sigma2_ml_matches_rkmlearn(submission, rng):
    from rkmlearn import ProbabilisticKPCA

    X, K_c = _centred_rbf(rng)
    spectrum = np.clip(np.linalg.eigvalsh(K_c)[::-1], 0.0, None)
    for q in (1, 4, 10):
        model = ProbabilisticKPCA(q, kernel_params={"sigma": 1.5}).fit(X)
        got = submission.sigma2_ml(spectrum, X.shape[0], q, model.rank_)
        np.testing.assert_allclose(got, model.sigma2_, rtol=1e-8,
                                   err_msg=f"sigma2_ML differs from rkmlearn's for q = {q}")


@pytest.mark.points(2)
def test_sigma2_ml_uses_the_rank_not_n(submission, rng):
    # Linear PCA of 3-D data that lie in a plane: dim(H_E) = 2, far below N - 1 = 39.
    from rkmlearn.features import IdentityFeatures
    from rkmlearn import ProbabilisticKPCA

    Z = rng.normal(size=(40, 2))
    X = np.column_stack([Z, Z @ np.array([0.5, -1.0])])
    model = ProbabilisticKPCA(1, feature_map=IdentityFeatures(), setting="primal").fit(X)
    assert model.rank_ == 2
    Xc = X - X.mean(axis=0)
    spectrum = np.clip(np.linalg.eigvalsh(Xc @ Xc.T)[::-1], 0.0, None)
    got = submission.sigma2_ml(spectrum, 40, 1, 2)
    np.testing.assert_allclose(got, model.sigma2_, rtol=1e-8, err_msg=(
        "with rank r = 2 the discarded variance is shared by r - q = 1 direction, not N - q"))


@pytest.mark.points(1)
def test_sigma2_ml_maximises_the_likelihood(submission, rng):
    _, K_c = _centred_rbf(rng, n=25)
    spectrum = np.clip(np.linalg.eigvalsh(K_c)[::-1], 0.0, None)
    n, q, r = 25, 3, 24
    tail = spectrum[q:r].sum()
    best = submission.sigma2_ml(spectrum, n, q, r)

    def likelihood(s2):  # the sigma^2-dependent part of the log-likelihood
        return -n / 2 * ((r - q) * np.log(s2) + tail / (n * s2))

    grid = np.linspace(0.01, 1.0, 200) * spectrum[q - 1] / n
    assert likelihood(best) >= likelihood(grid).max() - 1e-9, \
        "sigma2_ml does not maximise the likelihood L(sigma^2)"
    assert best <= spectrum[q] / n, "sigma2_ML must not exceed lambda_(q+1) / N"
