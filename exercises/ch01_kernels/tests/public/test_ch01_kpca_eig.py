"""Exercise 3: ``kpca_eig(Kc, n_components)``, the leading eigenpairs of a centred Gram matrix.

The references are a full ``numpy.linalg.eigh`` of the (small) matrix, done here in the test.
"""
import numpy as np
import pytest


def _centred_rbf_gram(rng, n=40, d=3, sigma=1.5):
    X = rng.normal(size=(n, d))
    sq = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = np.exp(-sq / (2 * sigma**2))
    M = np.eye(n) - np.ones((n, n)) / n
    return K, M @ K @ M


def _result(submission, Kc, s):
    out = submission.kpca_eig(Kc, s)
    assert isinstance(out, tuple) and len(out) == 2, "kpca_eig must return (eigenvalues, H)"
    eigenvalues, H = np.asarray(out[0]), np.asarray(out[1])
    assert eigenvalues.shape == (s,), f"eigenvalues must have shape ({s},), got {eigenvalues.shape}"
    assert H.shape == (Kc.shape[0], s), f"H must have shape ({Kc.shape[0]}, {s}), got {H.shape}"
    return eigenvalues, H


@pytest.mark.points(2)
def test_solves_the_eigen_equation(submission, rng):
    _, Kc = _centred_rbf_gram(rng)
    eigenvalues, H = _result(submission, Kc, 5)
    np.testing.assert_allclose(np.linalg.norm(H, axis=0), 1.0, atol=1e-8, err_msg=(
        "the columns of H must have unit norm (H = 0 solves Kc H = H Lambda trivially)"))
    residual = np.linalg.norm(Kc @ H - H * eigenvalues) / np.linalg.norm(Kc)
    assert residual < 1e-10, f"||Kc H - H Lambda|| / ||Kc|| = {residual:.2e}, should be ~1e-15"


@pytest.mark.points(1)
def test_columns_are_orthonormal(submission, rng):
    _, Kc = _centred_rbf_gram(rng)
    _, H = _result(submission, Kc, 6)
    np.testing.assert_allclose(H.T @ H, np.eye(6), atol=1e-10, err_msg="H^T H must equal I")
    # Orthonormal columns alone (identity columns are) are not the answer: they must be
    # eigenvectors of Kc.
    residual = np.linalg.norm(Kc @ H - H * np.diag(H.T @ Kc @ H))
    assert residual <= 1e-8 * np.linalg.norm(Kc), "the columns of H must be eigenvectors of Kc"


@pytest.mark.points(1)
def test_eigenvalues_are_the_largest_in_descending_order(submission, rng):
    _, Kc = _centred_rbf_gram(rng)
    eigenvalues, _ = _result(submission, Kc, 5)
    top = np.linalg.eigvalsh(Kc)[::-1][:5]
    np.testing.assert_allclose(
        eigenvalues, top, rtol=1e-9, atol=1e-12 * top[0],
        err_msg="expected the 5 largest eigenvalues of Kc itself (not divided by N), descending")


@pytest.mark.points(1)
def test_spans_the_leading_eigenspace(submission, rng):
    _, Kc = _centred_rbf_gram(rng)
    _, H = _result(submission, Kc, 4)
    _, U = np.linalg.eigh(Kc)
    U = U[:, ::-1][:, :4]
    # Compare projectors: independent of the sign (and basis) of the eigenvectors.
    np.testing.assert_allclose(H @ H.T, U @ U.T, atol=1e-8,
                               err_msg="H does not span the leading eigenspace of Kc")


@pytest.mark.points(1)
def test_sign_convention_largest_entry_positive(submission, rng):
    _, Kc = _centred_rbf_gram(rng)
    _, H = _result(submission, Kc, 6)
    # The sign convention only means something for the right eigenvectors (value check first).
    top = np.linalg.eigh(Kc)[1][:, ::-1][:, :6]
    np.testing.assert_allclose(H @ H.T, top @ top.T, atol=1e-7,
                               err_msg="H must span the leading eigenspace of Kc")
    magnitude = np.abs(H)
    first = np.argmax(magnitude >= (1.0 - 1e-8) * magnitude.max(axis=0), axis=0)
    largest = H[first, np.arange(6)]
    assert np.all(largest > 0), (
        "each column of H must be flipped so that its first entry whose absolute value is within "
        f"a relative 1e-8 of the column's largest is positive; those entries are {np.round(largest, 4)}")


@pytest.mark.points(1)
def test_eigenvalues_match_scikit_learn_kernel_pca(submission, rng):
    from sklearn.decomposition import KernelPCA

    K, Kc = _centred_rbf_gram(rng)
    kpca = KernelPCA(n_components=5, kernel="precomputed", eigen_solver="dense").fit(K)
    eigenvalues, _ = _result(submission, Kc, 5)
    np.testing.assert_allclose(eigenvalues, kpca.eigenvalues_, rtol=1e-8,
                               err_msg="eigenvalues differ from scikit-learn's KernelPCA")
