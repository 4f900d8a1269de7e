"""Exercises 1 and 2: ``gamma_prime(H_prime, K)`` and ``rotate_solution(H_prime, K)``.

A Stiefel solution is simulated exactly: the top-s eigenvectors of a small symmetric matrix
(full ``numpy.linalg.eigh``, done here in the test) times a random orthogonal matrix. The
references are that eigendecomposition and rkmlearn's own rotation.
"""
import numpy as np
import pytest


def _problem(rng, n=50, s=4):
    A = rng.normal(size=(n, 8))
    Ac = A - A.mean(axis=0)
    K = Ac @ Ac.T
    values, vectors = np.linalg.eigh(K)
    values, vectors = values[::-1][:s], vectors[:, ::-1][:, :s]
    O_true, _ = np.linalg.qr(rng.normal(size=(s, s)))
    return K, vectors @ O_true.T, values, vectors


def _flip(V):
    rows = np.argmax(np.abs(V), axis=0)
    return V * np.sign(V[rows, np.arange(V.shape[1])])


def _rotate(submission, H_prime, K):
    out = submission.rotate_solution(H_prime, K)
    assert isinstance(out, tuple) and len(out) == 3, "rotate_solution must return (H, Lambda, O)"
    return tuple(np.asarray(a, dtype=float) for a in out)


@pytest.mark.points(1)
def test_gamma_prime_is_the_projected_matrix(submission, rng):
    K, H_prime, _, _ = _problem(rng)
    G = np.asarray(submission.gamma_prime(H_prime, K))
    np.testing.assert_allclose(G, H_prime.T @ K @ H_prime, rtol=1e-10, atol=1e-9)
    assert np.array_equal(G, G.T), "Gamma' must be exactly symmetric"


@pytest.mark.points(1)
def test_gamma_prime_is_not_diagonal_but_has_the_eigenvalues(submission, rng):
    K, H_prime, values, _ = _problem(rng)
    G = np.asarray(submission.gamma_prime(H_prime, K))
    assert np.abs(G - np.diag(np.diag(G))).max() > 1e-3 * values[0]
    np.testing.assert_allclose(np.linalg.eigvalsh(G)[::-1], values, rtol=1e-10)


@pytest.mark.points(2)
def test_rotation_gives_the_eigenvalues_and_a_diagonal_gamma(submission, rng):
    K, H_prime, values, _ = _problem(rng)
    H, lam, _ = _rotate(submission, H_prime, K)
    np.testing.assert_allclose(lam, values, rtol=1e-10, err_msg="Lambda: the top eigenvalues, descending")
    G = H.T @ K @ H
    np.testing.assert_allclose(G, np.diag(values), atol=1e-9 * values[0])


@pytest.mark.points(1)
def test_rotation_is_orthogonal_and_consistent(submission, rng):
    K, H_prime, _, _ = _problem(rng)
    H, _, O = _rotate(submission, H_prime, K)
    np.testing.assert_allclose(O.T @ O, np.eye(O.shape[0]), atol=1e-12, err_msg="O must be orthogonal")
    np.testing.assert_allclose(H_prime @ O, H, atol=1e-12, err_msg="H must equal H' O")


@pytest.mark.points(2)
def test_rotated_basis_equals_eigenvectors_with_sign_convention(submission, rng):
    K, H_prime, _, vectors = _problem(rng)
    H, _, _ = _rotate(submission, H_prime, K)
    np.testing.assert_allclose(H, _flip(vectors), atol=1e-8)


@pytest.mark.points(1)
def test_rank_s_reconstruction_is_rotation_invariant(submission, rng):
    K, H_prime, _, _ = _problem(rng)
    H, lam, _ = _rotate(submission, H_prime, K)
    G = H_prime.T @ K @ H_prime
    np.testing.assert_allclose(H * lam @ H.T, H_prime @ G @ H_prime.T, atol=1e-9 * lam[0])
