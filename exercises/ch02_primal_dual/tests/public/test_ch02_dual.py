"""Exercise 1: ``dual_eig(Xs, n_components)``, Algorithm 2 (the dual eigenproblem).

References: a full ``numpy.linalg.eigh`` of the small summed centred Gram matrix, computed here,
and ``rkmlearn.MultiViewKPCA`` (imported inside the tests that use it).
"""
import numpy as np
import pytest


def _views(rng, n=60, dims=(5, 3, 1)):
    Z = rng.normal(size=(n, 3))
    return [np.tanh(Z @ rng.normal(size=(3, d))) + 0.1 * rng.normal(size=(n, d)) for d in dims]


def _summed_centred_gram(Xs):
    n = Xs[0].shape[0]
    M = np.eye(n) - np.ones((n, n)) / n
    return sum(M @ X @ X.T @ M for X in Xs)


def _result(submission, Xs, s):
    out = submission.dual_eig(Xs, s)
    assert isinstance(out, tuple) and len(out) == 2, "dual_eig must return (H, eigenvalues)"
    H, eigenvalues = np.asarray(out[0]), np.asarray(out[1])
    n = Xs[0].shape[0]
    assert H.shape == (n, s), f"H must have shape ({n}, {s}), got {H.shape}"
    assert eigenvalues.shape == (s,), f"eigenvalues must have shape ({s},), got {eigenvalues.shape}"
    return H, eigenvalues


@pytest.mark.points(2)
def test_dual_solves_the_summed_kernel_eigenproblem(submission, rng):
    Xs = _views(rng)
    K = _summed_centred_gram(Xs)
    H, lam = _result(submission, Xs, 4)
    residual = np.linalg.norm(K @ H - H * lam) / np.linalg.norm(K)
    assert residual < 1e-10, f"||K H - H Lambda|| / ||K|| = {residual:.2e}: K must be sum_v M_c K_v M_c"
    np.testing.assert_allclose(H.T @ H, np.eye(4), atol=1e-10, err_msg="H^T H must equal I")


@pytest.mark.points(1)
def test_dual_eigenvalues_are_the_largest_descending(submission, rng):
    Xs = _views(rng)
    top = np.linalg.eigvalsh(_summed_centred_gram(Xs))[::-1][:5]
    _, lam = _result(submission, Xs, 5)
    np.testing.assert_allclose(lam, top, rtol=1e-9,
                               err_msg="expected the 5 largest eigenvalues of K (not divided by n), descending")


@pytest.mark.points(1)
def test_dual_sign_convention(submission, rng):
    H, _ = _result(submission, _views(rng), 5)
    largest = H[np.argmax(np.abs(H), axis=0), np.arange(5)]
    assert np.all(largest > 0), f"flip each column so its largest-|entry| is positive; got {largest}"


@pytest.mark.points(2)
def test_dual_matches_rkmlearn(submission, rng):
    from rkmlearn import MultiViewKPCA

    Xs = _views(rng)
    model = MultiViewKPCA(4).fit(Xs)
    H, lam = _result(submission, Xs, 4)
    np.testing.assert_allclose(lam, model.eigenvalues_, rtol=1e-9)
    np.testing.assert_allclose(H, model.H_, atol=1e-8, err_msg="H differs from rkmlearn.MultiViewKPCA")
