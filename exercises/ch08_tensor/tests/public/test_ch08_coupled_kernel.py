"""Exercise 1: ``coupled_kernel(kernels, rho)``, the rho-coupled kernel of eq-tensor-rho-system."""
import numpy as np
import pytest


def _grams(rng, n=12, V=3):
    from rkmlearn.kernels import RBF

    return [RBF(sigma=1.0 + v)(rng.normal(size=(n, 2))) for v in range(V)]


@pytest.mark.points(2)
def test_coupled_kernel_interpolates_sum_and_product(submission, rng):
    grams = _grams(rng)
    total, product = grams[0] + grams[1] + grams[2], grams[0] * grams[1] * grams[2]
    for rho in (0.0, 0.3, 1.0):
        K = np.asarray(submission.coupled_kernel(grams, rho))
        np.testing.assert_allclose(K, (1 - rho) * total + rho * product, rtol=1e-12, atol=1e-14,
                                   err_msg=f"K_rho is wrong at rho = {rho}")


@pytest.mark.points(1)
def test_coupled_kernel_is_the_tensor_gram_matrix(submission, rng):
    # explicit features: <phi1(x) (x) phi2(x), phi1(z) (x) phi2(z)> = K1(x, z) K2(x, z)
    P1, P2 = rng.normal(size=(7, 3)), rng.normal(size=(7, 2))
    T = np.einsum("ki,kj->kij", P1, P2).reshape(7, -1)
    K = np.asarray(submission.coupled_kernel([P1 @ P1.T, P2 @ P2.T], 1.0))
    np.testing.assert_allclose(K, T @ T.T, rtol=1e-12, atol=1e-12,
                               err_msg="at rho = 1, K must be the Gram matrix of the outer-product features")
