"""Hidden tests of the Chapter 8 exercises: edge cases and input validation."""
import numpy as np
import pytest


@pytest.mark.points(1)
def test_coupled_kernel_exact_ends_and_one_view(submission, rng):
    A, B = rng.normal(size=(5, 5)), rng.normal(size=(5, 5))
    assert np.array_equal(np.asarray(submission.coupled_kernel([A, B], 0.0)), A + B)
    assert np.array_equal(np.asarray(submission.coupled_kernel([A, B], 1.0)), A * B)
    np.testing.assert_allclose(np.asarray(submission.coupled_kernel([A], 0.4)), A, rtol=1e-14, atol=1e-15)


@pytest.mark.points(1)
def test_coupled_kernel_rejects_bad_input(submission):
    K = np.eye(3)
    for args, name in (((([K, K], 1.5)), "rho"), ((([K, K], -0.1)), "rho"), ((([], 0.5)), "kernels"),
                       ((([K, np.eye(4)], 0.5)), "kernels")):
        with pytest.raises(ValueError, match=name):
            submission.coupled_kernel(*args)


@pytest.mark.points(1)
def test_train_one_view_is_an_lssvm(submission, rng):
    from rkmlearn.kernels import RBF

    X = rng.normal(size=(20, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    K = RBF(sigma=1.0)(X)
    A = np.zeros((21, 21))
    A[0, 1:], A[1:, 0] = y, y
    A[1:, 1:] = np.outer(y, y) * K + 0.5 * np.eye(20)
    sol = np.linalg.solve(A, np.concatenate([[0.0], np.ones(20)]))
    alpha, b = submission.train_rho_tmv([K], y[:, None], 0.3, 0.5)
    np.testing.assert_allclose(np.asarray(alpha)[:, 0], y * sol[1:], rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(np.asarray(b).ravel(), [sol[0]], rtol=1e-9, atol=1e-10)


@pytest.mark.points(1)
def test_train_rejects_bad_input(submission):
    K, Y = np.eye(4) + 1.0, np.ones((4, 1))
    for kwargs, name in (({"lam": 0.0}, "lam"), ({"lam": 1.0, "eta": -1.0}, "eta")):
        with pytest.raises(ValueError, match=name):
            submission.train_rho_tmv([K], Y, 0.5, **kwargs)
    with pytest.raises(ValueError, match="Y"):
        submission.train_rho_tmv([K], np.ones((3, 1)), 0.5, 1.0)


@pytest.mark.points(1)
def test_codes_edge_cases(submission):
    np.testing.assert_array_equal(np.asarray(submission.moc_codebook(2)), [[-1.0], [1.0]])
    assert np.asarray(submission.moc_codebook(8)).shape == (8, 3)
    assert np.asarray(submission.moc_codebook(9)).shape == (9, 4)
    for bad in (1, 0, 2.5):
        with pytest.raises(ValueError, match="n_classes"):
            submission.moc_codebook(bad)
    C = np.asarray(submission.moc_codebook(4))
    np.testing.assert_array_equal(np.asarray(submission.decode_outputs(np.zeros((2, 2)), C)), [0, 0])
    np.testing.assert_array_equal(np.asarray(submission.decode_outputs(np.array([0.5, -2.0]), [[-1.0], [1.0]])), [1, 0])
    with pytest.raises(ValueError, match="outputs"):
        submission.decode_outputs(np.zeros((2, 3)), C)
