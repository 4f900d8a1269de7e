"""Exercise 4: ``kpca_transform(Kc_test, eigenvalues, H)``, hidden features h(x) of new points.

The eigenpairs passed in are computed here with a full ``numpy.linalg.eigh``, so this exercise is
graded independently of Exercise 3.
"""
import numpy as np
import pytest


def _rbf(A, B, sigma):
    return np.exp(-np.sum((A[:, None, :] - B[None, :, :]) ** 2, axis=-1) / (2 * sigma**2))


def _setup(rng, n=35, m=10, s=4, sigma=1.2):
    X, Xt = rng.normal(size=(n, 2)), rng.normal(size=(m, 2))
    K, Kt = _rbf(X, X, sigma), _rbf(Xt, X, sigma)
    M = np.eye(n) - np.ones((n, n)) / n
    Kc = M @ K @ M
    Kc_test = (Kt - np.ones((m, n)) @ K / n) @ M   # training statistics, in matrix form
    values, vectors = np.linalg.eigh(Kc)
    return X, Xt, Kc, Kc_test, values[::-1][:s], vectors[:, ::-1][:, :s]


@pytest.mark.points(2)
def test_training_points_give_the_rows_of_H(submission, rng):
    _, _, Kc, _, eigenvalues, H = _setup(rng)
    h = submission.kpca_transform(Kc, eigenvalues, H)
    assert np.shape(h) == H.shape, f"expected shape {H.shape} (points x components), got {np.shape(h)}"
    np.testing.assert_allclose(h, H, atol=1e-9,
                               err_msg="for the training points h(x_i) must be the i-th row of H")


@pytest.mark.points(2)
def test_matches_scikit_learn_kernel_pca_rescaled(submission, rng):
    from sklearn.decomposition import KernelPCA

    sigma = 1.2
    X, Xt, _, Kc_test, eigenvalues, H = _setup(rng, sigma=sigma)
    kpca = KernelPCA(n_components=4, kernel="rbf", gamma=1 / (2 * sigma**2),
                     eigen_solver="dense").fit(X)
    Z = kpca.transform(Xt)  # scikit-learn's scores are h(x) * sqrt(Lambda)
    h = np.asarray(submission.kpca_transform(Kc_test, eigenvalues, H))
    assert h.shape == Z.shape, f"expected shape {Z.shape}, got {h.shape}"
    scaled = h * np.sqrt(eigenvalues)
    signs = np.sign(np.sum(scaled * Z, axis=0))  # eigenvectors are defined up to sign
    np.testing.assert_allclose(scaled * signs, Z, rtol=1e-7, atol=1e-9,
                               err_msg="h(x) * sqrt(Lambda) differs from KernelPCA.transform")


@pytest.mark.points(1)
def test_rejects_non_positive_eigenvalues(submission, rng):
    _, _, _, Kc_test, eigenvalues, H = _setup(rng)
    for bad in (0.0, -1.0):
        broken = eigenvalues.copy()
        broken[-1] = bad
        with pytest.raises(ValueError, match="eigenvalues"):
            submission.kpca_transform(Kc_test, broken, H)
