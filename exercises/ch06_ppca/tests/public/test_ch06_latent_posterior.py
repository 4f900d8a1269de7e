"""Exercise 3: ``latent_posterior(Kc_test, K_c, A, sigma2)``, the posterior h | k_c.

References: rkmlearn's ProbabilisticKPCA.latent_posterior, and the conditional of the joint
Gaussian of (h, k_c) computed here from explicit features (independent of Bayes' rule by hand).
"""
import numpy as np
import pytest


@pytest.mark.points(2)
def test_latent_posterior_matches_rkmlearn(submission, rng):
    from rkmlearn.kernels import RBF, GramCenterer
    from rkmlearn import ProbabilisticKPCA

    X, X_new = rng.normal(size=(40, 2)), rng.normal(size=(7, 2))
    model = ProbabilisticKPCA(3, kernel_params={"sigma": 1.0}).fit(X)
    K_c = GramCenterer().fit_transform(RBF(1.0)(X))
    Kc_test = model.centerer_.transform(RBF(1.0)(X_new, X))
    mean, cov = submission.latent_posterior(Kc_test, K_c, model.A_, model.sigma2_)
    ref_mean, ref_cov = model.latent_posterior(X_new)
    np.testing.assert_allclose(mean, ref_mean, atol=1e-9, err_msg="posterior mean (h_MAP) is wrong")
    np.testing.assert_allclose(cov, ref_cov, atol=1e-12, err_msg=(
        "posterior covariance is wrong (it is sigma^2 M^{-1}, with the factor sigma^2)"))


@pytest.mark.points(2)
def test_latent_posterior_is_the_gaussian_conditional_for_any_A(submission, rng):
    # Explicit features Phi_c (N x D, D < N): h ~ N(0, I), phi_c = W h + zeta, W = Phi_c^T A,
    # zeta ~ N(0, sigma2 I_D), k_c = Phi_c phi_c. Condition the joint Gaussian of (h, k_c).
    n, D, q, sigma2 = 30, 12, 3, 0.05
    Phi_c = rng.normal(size=(n, D))
    Phi_c -= Phi_c.mean(axis=0)
    K_c = Phi_c @ Phi_c.T
    A = rng.normal(size=(n, q)) / n
    W = Phi_c.T @ A
    cov_kk = Phi_c @ (W @ W.T + sigma2 * np.eye(D)) @ Phi_c.T
    cov_hk = W.T @ Phi_c.T
    gain = cov_hk @ np.linalg.pinv(cov_kk, rcond=1e-12, hermitian=True)
    Kc_test = rng.normal(size=(5, D)) @ Phi_c.T
    mean, cov = submission.latent_posterior(Kc_test, K_c, A, sigma2)
    np.testing.assert_allclose(mean, Kc_test @ gain.T, atol=1e-8,
                               err_msg="the mean is not E[h | k_c] (check A^T, not A)")
    np.testing.assert_allclose(cov, np.eye(q) - gain @ cov_hk.T, atol=1e-8,
                               err_msg="the covariance is not Cov[h | k_c]")
