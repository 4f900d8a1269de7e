"""Hidden tests of the Chapter 4 exercises: rkmlearn's own Stiefel fit, edge cases, validation.

Names say which function they grade; the sign-convention tests have ``sign`` in their names.
"""
import numpy as np
import pytest


def _flip(V):
    rows = np.argmax(np.abs(V), axis=0)
    return V * np.sign(V[rows, np.arange(V.shape[1])])


@pytest.mark.points(2)
def test_rotate_matches_rkmlearn_stiefel_model_with_signs(submission, rng):
    from rkmlearn import MultiViewKPCA

    Z = rng.normal(size=(60, 3))
    Xs = [Z @ rng.normal(size=(3, 5)) + 0.05 * rng.normal(size=(60, 5)), Z[:, :1] + 0.05 * rng.normal(size=(60, 1))]
    unrotated = MultiViewKPCA(3, solver="stiefel", optimizer="pg", rotate=False, random_state=0).fit(Xs)
    rotated = MultiViewKPCA(3, solver="stiefel", optimizer="pg", rotate=True, random_state=0).fit(Xs)
    K = sum((X - X.mean(0)) @ (X - X.mean(0)).T for X in Xs)
    H, lam, _ = submission.rotate_solution(unrotated.H_, K)
    np.testing.assert_allclose(np.asarray(lam), rotated.eigenvalues_, rtol=1e-9)
    np.testing.assert_allclose(np.asarray(H), rotated.H_, atol=1e-9)
    np.testing.assert_allclose(np.asarray(submission.gamma_prime(unrotated.H_, K)), unrotated.Gamma_prime_,
                               rtol=1e-9, atol=1e-9 * rotated.eigenvalues_[0])


@pytest.mark.points(1)
def test_rotate_any_orthonormal_basis_gives_ritz_values_with_sign(submission, rng):
    # H' need not span an eigenspace: the rotation still diagonalises H^T K H (Rayleigh-Ritz).
    A = rng.normal(size=(30, 30))
    K = A + A.T
    H_prime, _ = np.linalg.qr(rng.normal(size=(30, 5)))
    H, lam, O = (np.asarray(a) for a in submission.rotate_solution(H_prime, K))
    G = H_prime.T @ K @ H_prime
    values, vectors = np.linalg.eigh(0.5 * (G + G.T))
    np.testing.assert_allclose(lam, values[::-1], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(H, _flip(H_prime @ vectors[:, ::-1]), atol=1e-10)
    np.testing.assert_allclose(H_prime @ O, H, atol=1e-12)


@pytest.mark.points(1)
def test_rotate_single_component_with_sign(submission, rng):
    K = np.diag([5.0, 1.0, 0.5, 0.1])
    H_prime = np.array([[-1.0], [0.0], [0.0], [0.0]])
    H, lam, O = (np.asarray(a) for a in submission.rotate_solution(H_prime, K))
    np.testing.assert_allclose(H, [[1.0], [0.0], [0.0], [0.0]])
    np.testing.assert_allclose(lam, [5.0])
    np.testing.assert_allclose(np.abs(O), [[1.0]])


@pytest.mark.points(1)
def test_gamma_prime_rejects_bad_input(submission, rng):
    H_prime, _ = np.linalg.qr(rng.normal(size=(10, 3)))
    K = np.eye(10)
    cases = [
        (2 * H_prime, K, "H_prime"),  # not orthonormal
        (H_prime, np.eye(9), "K"),  # wrong size
        (H_prime, np.triu(np.ones((10, 10))), "K"),  # not symmetric
        (H_prime[:, 0], K, "H_prime"),  # 1-D
        (H_prime, np.full((10, 10), np.nan), "K"),
    ]
    for H_bad, K_bad, name in cases:
        with pytest.raises(ValueError, match=name):
            submission.gamma_prime(H_bad, K_bad)


@pytest.mark.points(1)
def test_rotate_rejects_bad_input(submission, rng):
    H_prime, _ = np.linalg.qr(rng.normal(size=(10, 3)))
    with pytest.raises(ValueError, match="H_prime"):
        submission.rotate_solution(H_prime + 1.0, np.eye(10))
    with pytest.raises(ValueError, match="K"):
        submission.rotate_solution(H_prime, np.eye(11))
