"""Exercise 2: ``kernel_smoother(k_centred, X_train, row_means, grand_mean, mean_term, top_k)``.

References: rkmlearn.preimage.kernel_smoother, and explicit computations with training points.
"""
import numpy as np
import pytest


def _rbf_setup(rng, n=25, sigma=1.0):
    from rkmlearn.kernels import RBF, GramCenterer

    X = rng.normal(size=(n, 2))
    K = RBF(sigma)(X)
    centerer = GramCenterer().fit(K)
    return X, K, centerer


@pytest.mark.points(2)
def test_kernel_smoother_matches_rkmlearn(submission, rng):
    from rkmlearn.preimage import kernel_smoother
    from rkmlearn import ProbabilisticKPCA

    X, _, centerer = _rbf_setup(rng)
    model = ProbabilisticKPCA(3, kernel_params={"sigma": 1.0}, random_state=0).fit(X)
    # reconstructions of new points: phi_c = Phi_c^T A h, so mu^T phi_c = (r - g)^T A h
    X_new = rng.normal(size=(8, 2))
    h = model.transform(X_new)
    k_c = model.decode(h, space="kernel")
    mean_term = (h @ model.A_.T) @ (centerer.row_means_ - centerer.grand_mean_)
    for top_k in (None, 5):
        expected = kernel_smoother(k_c, X, centerer, mean_term=mean_term, top_k=top_k)
        got = submission.kernel_smoother(k_c, X, centerer.row_means_, centerer.grand_mean_,
                                         mean_term=mean_term, top_k=top_k)
        np.testing.assert_allclose(got, expected, atol=1e-12, err_msg=f"wrong pre-images (top_k={top_k})")


@pytest.mark.points(1)
def test_kernel_smoother_training_points_are_their_own_preimages(submission, rng):
    X, K, centerer = _rbf_setup(rng)
    K_c = centerer.transform(K)
    offsets = centerer.row_means_ - centerer.grand_mean_    # alpha = e_i: mu^T phi_c = r_i - g
    got = submission.kernel_smoother(K_c, X, centerer.row_means_, centerer.grand_mean_,
                                     mean_term=offsets, top_k=1)
    np.testing.assert_allclose(got, X, atol=1e-12,
                               err_msg="with top_k = 1 a training point must come back as itself")


@pytest.mark.points(1)
def test_kernel_smoother_weights_are_uncentred_kernel_values(submission, rng):
    X, K, centerer = _rbf_setup(rng)
    K_c = centerer.transform(K)
    offsets = centerer.row_means_ - centerer.grand_mean_
    got = submission.kernel_smoother(K_c[:4], X, centerer.row_means_, centerer.grand_mean_,
                                     mean_term=offsets[:4])
    expected = (K[:4] / K[:4].sum(axis=1, keepdims=True)) @ X
    np.testing.assert_allclose(got, expected, atol=1e-12, err_msg=(
        "the weights must be k(x_i, x) / sum_j k(x_j, x): undo the centring with row_means and "
        "mean_term before normalising"))
