"""Hidden tests of the Chapter 12 exercises: one pair, wide views, input validation."""
import numpy as np
import pytest


@pytest.mark.points(1)
def test_primal_single_pair_wide_view(submission, rng):
    X = rng.normal(size=(30, 40))
    Y = X[:, :2] + 0.1 * rng.normal(size=(30, 2))
    X, Y = X - X.mean(axis=0), Y - Y.mean(axis=0)
    rho, w, v = (np.asarray(a) for a in submission.kcca_primal(X, Y, 1.0, 1))
    assert rho.shape == (1,) and w.shape == (40, 1) and v.shape == (2, 1)
    assert 0 < rho[0] < 1


@pytest.mark.points(1)
@pytest.mark.parametrize("kappa", [0.0, -1.0, np.nan])
def test_primal_rejects_bad_kappa(submission, rng, kappa):
    with pytest.raises(ValueError, match="kappa"):
        submission.kcca_primal(rng.normal(size=(10, 2)), rng.normal(size=(10, 2)), kappa, 1)


@pytest.mark.points(1)
def test_primal_rejects_mismatched_rows(submission, rng):
    with pytest.raises(ValueError, match="Phi1|Phi2"):
        submission.kcca_primal(rng.normal(size=(10, 2)), rng.normal(size=(9, 2)), 1.0, 1)


@pytest.mark.points(1)
def test_dual_rejects_zero_rho(submission, rng):
    F = rng.normal(size=(8, 3))
    with pytest.raises(ValueError, match="rho"):
        submission.kcca_dual_coef(F, F, np.ones((3, 1)), np.ones((3, 1)), np.array([0.0]), 1.0)
