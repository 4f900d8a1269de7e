"""Tests of rkmlearn.solvers.linear: SymmetricSolver and BorderedSolver against dense solves."""

import warnings

import numpy as np
import pytest

from rkmlearn.solvers.linear import BorderedSolver, SymmetricSolver


def spd(n, seed=0, shift=1.0):
    A = np.random.default_rng(seed).normal(size=(n, n))
    return A @ A.T + shift * np.eye(n)


def bordered(M, C, R):
    """The full (n + k) x (n + k) matrix [[M, C], [R^T, 0]]."""
    k = C.shape[1]
    return np.block([[M, C], [R.T, np.zeros((k, k))]])


# ----------------------------------------------------------------------------- SymmetricSolver
@pytest.mark.parametrize("indefinite", [False, True])
def test_symmetric_solver_matches_dense_solve_for_many_right_hand_sides(indefinite):
    M = spd(12, seed=1)
    if indefinite:
        M -= 0.5 * np.trace(M) / 12 * np.eye(12) * 3  # eigenvalues of both signs: the LU path
        assert np.linalg.eigvalsh(M)[0] < 0 < np.linalg.eigvalsh(M)[-1]
    solver = SymmetricSolver(M, "M")
    assert (solver._cho is None) == indefinite and not solver.singular
    B = np.random.default_rng(2).normal(size=(12, 5))
    np.testing.assert_allclose(solver.solve(B), np.linalg.solve(M, B), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(solver.solve(B[:, 0]), np.linalg.solve(M, B[:, 0]), rtol=1e-10, atol=1e-12)


def test_symmetric_solver_symmetrises_its_input():
    M = spd(6, seed=3)
    noisy = M + 1e-13 * np.triu(np.ones((6, 6)), 1)
    b = np.ones(6)
    np.testing.assert_allclose(SymmetricSolver(noisy).solve(b), np.linalg.solve(0.5 * (noisy + noisy.T), b), rtol=1e-12)


def test_singular_matrix_is_a_clear_error_at_solve_time_naming_it():
    Z = np.random.default_rng(4).normal(size=(8, 3))
    singular = Z @ Z.T  # rank 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no LinAlgWarning: the singularity is reported once, by us
        solver = SymmetricSolver(singular, "K + lambda I", advice="Use a larger lambda.")
    assert solver.singular
    with pytest.raises(ValueError, match=r"^K \+ lambda I is singular .*Use a larger lambda\.$"):
        solver.solve(np.ones(8))
    with pytest.raises(ValueError, match="M is singular"):
        SymmetricSolver(np.zeros((3, 3))).solve(np.ones(3))


def test_floor_judges_a_difference_against_the_scale_it_came_from():
    # Gamma - share with share = Gamma up to rounding: tiny but well conditioned on its own scale
    noise = 1e-15 * spd(3, seed=5)
    assert not SymmetricSolver(noise).singular  # relative to itself it is fine ...
    assert SymmetricSolver(noise, floor=1e-12).singular  # ... but it is rounding of an O(1) matrix


def test_symmetric_solver_rejects_non_square():
    with pytest.raises(ValueError, match="M must be a square matrix"):
        SymmetricSolver(np.ones((2, 3)))


# ------------------------------------------------------------------------------ BorderedSolver
@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("m", [1, 4])
def test_bordered_solver_matches_the_dense_bordered_system(k, m):
    rng = np.random.default_rng(10 * k + m)
    n = 15
    M, C = spd(n, seed=k), rng.normal(size=(n, k))
    f, g = rng.normal(size=(n, m)), rng.normal(size=(k, m))
    x, b = BorderedSolver(M, C).solve(f, g)
    dense = np.linalg.solve(bordered(M, C, C), np.vstack([f, g]))
    np.testing.assert_allclose(x, dense[:n], rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(b, dense[n:], rtol=1e-9, atol=1e-11)


def test_bordered_solver_non_symmetric_border_of_the_tensor_classifier():
    """Eq. (12) of the tensor RKM paper: [[Omega / eta + lambda I, tau 1], [1^T, 0]] [y * h; b] = [tau y; 0]."""
    rng = np.random.default_rng(7)
    n, tau, lam, eta = 20, 2.5, 0.3, 1.7
    Z = rng.normal(size=(n, 4))
    Omega = np.exp(-0.5 * np.sum((Z[:, None] - Z[None]) ** 2, axis=-1))
    M = Omega / eta + lam * np.eye(n)
    Y = np.sign(rng.normal(size=(n, 3)))  # three outputs: all right-hand sides in one call
    solver = BorderedSolver(M, tau * np.ones(n), np.ones(n))
    yh, b = solver.solve(tau * Y)
    dense = np.linalg.solve(bordered(M, tau * np.ones((n, 1)), np.ones((n, 1))), np.vstack([tau * Y, np.zeros((1, 3))]))
    np.testing.assert_allclose(yh, dense[:n], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(b, dense[n:], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(yh.sum(axis=0), 0.0, atol=1e-12)  # the bias row: 1^T (y * h) = 0
    x1, b1 = solver.solve(tau * Y[:, 0])  # a single 1-D right-hand side
    assert x1.shape == (n,) and b1.shape == (1,)
    np.testing.assert_allclose(x1, yh[:, 0], rtol=1e-12, atol=1e-14)


def test_bordered_solver_errors():
    M = spd(5)
    with pytest.raises(ValueError, match="Schur complement"):
        BorderedSolver(M, np.ones((5, 2)))  # two identical border columns
    with pytest.raises(ValueError, match="C must have 5 rows"):
        BorderedSolver(M, np.ones(4))
    with pytest.raises(ValueError, match="R must have the shape of C"):
        BorderedSolver(M, np.ones((5, 1)), np.ones((5, 2)))
    Z = np.random.default_rng(0).normal(size=(5, 2))
    with pytest.raises(ValueError, match="M is singular"):
        BorderedSolver(Z @ Z.T, np.ones(5))


def test_symmetric_solver_never_writes_the_callers_matrix():
    M = spd(6, seed=5)
    noisy = M + 1e-13 * np.triu(np.ones((6, 6)), 1)
    kept = noisy.copy()
    SymmetricSolver(noisy).solve(np.ones(6))
    SymmetricSolver(M).solve(np.ones(6))
    assert np.array_equal(noisy, kept) and np.array_equal(M, spd(6, seed=5))


@pytest.mark.parametrize("indefinite", [False, True])
def test_symmetric_solver_overwrite_factors_in_place(indefinite):
    """overwrite=True: the same solutions, no second n x n array, and the LU fallback (indefinite M)
    still sees M (Cholesky's partial work on it is undone)."""
    import tracemalloc

    n = 600
    M = spd(n, seed=5)
    if indefinite:
        M -= 1.5 * np.trace(M) / n * np.eye(n)
        assert np.linalg.eigvalsh(M)[0] < 0
    B = np.random.default_rng(6).normal(size=(n, 3))
    expected = SymmetricSolver(M).solve(B)
    work = M.copy()
    tracemalloc.start()
    solver = SymmetricSolver(work, overwrite=True)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert (solver._cho is None) == indefinite and not solver.singular
    np.testing.assert_allclose(solver.solve(B), expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(solver.solve(B), np.linalg.solve(M, B), rtol=1e-8, atol=1e-12)
    assert peak <= 0.5 * M.nbytes  # O(n) work arrays and 256 x 256 tiles; a copy of M is 1.0
    if not indefinite:
        assert not np.array_equal(work, M)  # it holds the factor now
    with pytest.raises(ValueError, match="singular"):
        SymmetricSolver(np.zeros((4, 4)), overwrite=True).solve(np.ones(4))
