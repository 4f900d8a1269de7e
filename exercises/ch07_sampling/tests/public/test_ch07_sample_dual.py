"""Exercise 1: ``sample_dual(K_c, q, sigma2, u)``, kernel vectors k_c = B u.

References: rkmlearn's ProbabilisticKPCA (kernel_covariance, and sample with fixed latent
coordinates) and empirical covariances of many draws.
"""
import numpy as np
import pytest

SIGMA = 1.3


def _fitted(rng, q, n=30, fraction=None):
    from rkmlearn.kernels import RBF, GramCenterer
    from rkmlearn import ProbabilisticKPCA

    X = rng.normal(size=(n, 2))
    K_c = GramCenterer().fit_transform(RBF(SIGMA)(X))
    model = ProbabilisticKPCA(q, kernel_params={"sigma": SIGMA}).fit(X)
    if fraction is not None:
        sigma2 = fraction * model.eigenvalues_[-1] / n
        model = ProbabilisticKPCA(q, kernel_params={"sigma": SIGMA}, sigma2=sigma2).fit(X)
    return K_c, model


@pytest.mark.points(2)
def test_sample_dual_B_has_the_covariance_of_k_c(submission, rng):
    K_c, model = _fitted(rng, 3)
    n = K_c.shape[0]
    B = np.asarray(submission.sample_dual(K_c, 3, model.sigma2_, np.eye(n))).T   # columns of B
    assert B.shape == (n, n), f"sample_dual(K_c, q, sigma2, I_N) must have shape {(n, n)}, got {B.shape}"
    expected = model.kernel_covariance()       # K_c A A^T K_c + sigma2 K_c
    np.testing.assert_allclose(B @ B.T, expected, atol=1e-10 * np.abs(expected).max(),
                               err_msg="B B^T must equal K_c A A^T K_c + sigma2 K_c")


@pytest.mark.points(1)
def test_sample_dual_latent_part_is_kernel_pca_generation(submission, rng):
    K_c, model = _fitted(rng, 4, fraction=0.5)
    n = K_c.shape[0]
    latent = rng.uniform(-1, 1, size=(6, 4))
    u = np.zeros((6, n))
    u[:, :4] = latent                                   # noise coordinates 0
    got = submission.sample_dual(K_c, 4, model.sigma2_, u)
    np.testing.assert_allclose(got, model.sample(latent=latent, space="kernel"), atol=1e-10,
                               err_msg=("the first q coordinates of u must give E_q diag(lambda_p / "
                                        "sqrt(N)) u_q (check the order and the sign convention)"))


@pytest.mark.points(2)
def test_sample_dual_empirical_covariance(submission, rng):
    K_c, model = _fitted(rng, 2)
    n = K_c.shape[0]
    u = np.random.default_rng(7).standard_normal((20_000, n))
    samples = np.asarray(submission.sample_dual(K_c, 2, model.sigma2_, u))
    empirical = samples.T @ samples / len(samples)
    expected = model.kernel_covariance()
    error = np.linalg.norm(empirical - expected) / np.linalg.norm(expected)
    assert error < 0.05, f"empirical covariance of 20 000 samples is {100 * error:.1f} % off B B^T"


@pytest.mark.points(1)
def test_sample_dual_without_noise_stays_in_the_latent_subspace(submission, rng):
    K_c, model = _fitted(rng, 3)
    n = K_c.shape[0]
    samples = np.asarray(submission.sample_dual(K_c, 3, 0.0, rng.standard_normal((200, n))))
    sv = np.linalg.svd(samples, compute_uv=False)
    assert np.sum(sv > 1e-8 * sv[0]) == 3, "with sigma2 = 0 the samples must span only q directions"
