"""Tests of :class:`rkmlearn.widgets.stiefel_training.StiefelTrainingExplorer` (Chapter 4).

The explorer is built once on a small problem; the tests move its controls the way a reader
would and check that what is plotted changed and equals a direct computation: ``Gamma'`` of the
recorded iterate, its rotation to the eigenbasis, and the objective gap at that iteration.
"""
from __future__ import annotations

import base64

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy.linalg import subspace_angles  # noqa: E402

from rkmlearn import stiefel  # noqa: E402
from rkmlearn.widgets.stiefel_training import StiefelTrainingExplorer, snapshot_iterations  # noqa: E402

S = 3


@pytest.fixture(scope="module")
def K():
    rng = np.random.default_rng(5)
    Z = rng.normal(size=(70, 6)) * np.array([5.0, 3.0, 2.0, 0.5, 0.3, 0.1])
    Zc = Z - Z.mean(axis=0)
    return Zc @ Zc.T


@pytest.fixture(scope="module")
def explorer(K):
    return StiefelTrainingExplorer(K, S, n_snapshots=30, max_iter=4000, random_state=1)


def _shown_png(ex) -> bytes:
    (output,) = ex.output.outputs
    return base64.b64decode(output["data"]["image/png"])


def test_snapshot_iterations_are_log_spaced_and_start_at_zero():
    its = snapshot_iterations(1000, 20)
    assert its[0] == 0 and its[-1] == 1000
    assert np.all(np.diff(its) > 0)
    ratios = its[2:] / its[1:-1]
    assert ratios.max() < 3.0  # no large jump anywhere on the log grid
    with pytest.raises(ValueError, match="n_snapshots"):
        snapshot_iterations(100, 1)


def test_snapshots_are_the_optimiser_iterates(explorer, K):
    ex = explorer
    assert ex.result_.converged
    assert ex.iterations_[0] == 0 and ex.iterations_[-1] == ex.result_.n_iter
    # Re-running the optimiser from the same seed and recording one iteration by hand.
    k = int(ex.iterations_[len(ex.iterations_) // 2])
    record = {}
    fun, grad = stiefel.trace_objective(K)
    H0 = np.random.RandomState(1).standard_normal((K.shape[0], S))
    stiefel.cayley_adam(fun, grad, H0, learning_rate=0.3, max_iter=k, tol=1e-10,
                        callback=lambda i, X: record.__setitem__(i, X.copy()))
    np.testing.assert_allclose(ex.snapshots_[len(ex.iterations_) // 2], record[k], atol=1e-12)


def test_moving_the_slider_shows_gamma_prime_of_that_iterate(explorer, K):
    ex = explorer
    ex.update(snapshot=len(ex.iterations_) - 1, rotated=False)
    last_png = ex.png_
    ex.snapshot_slider.value = 3  # like a reader dragging the slider
    H = ex.snapshots_[3]
    shown = np.asarray(ex.gamma_image.get_array())
    np.testing.assert_allclose(shown, H.T @ K @ H, rtol=1e-10, atol=1e-10 * np.abs(K).max())
    assert ex.png_ != last_png and _shown_png(ex) == ex.png_
    # the marker sits on the objective gap at that iteration
    x, y = ex.gap_marker.get_data()
    it = int(ex.iterations_[3])
    assert x[0] == max(it, 1)
    assert y[0] == pytest.approx(-0.5 * np.trace(H.T @ K @ H) - ex.optimum_, rel=1e-8)


def test_rotation_toggle_diagonalises_gamma_and_matches_eig_at_the_end(explorer, K):
    ex = explorer
    ex.update(snapshot=len(ex.iterations_) - 1, rotated=False)
    unrotated = ex.shown_components_.copy()
    gamma = ex.gamma_primes_[-1]
    off = np.linalg.norm(gamma - np.diag(np.diag(gamma))) / np.linalg.norm(gamma)
    assert off > 1e-2  # Gamma' of the Stiefel optimum is not diagonal
    ex.update(rotated=True)
    rotated = ex.shown_components_
    assert not np.allclose(rotated, unrotated)
    np.testing.assert_allclose(ex.component_lines[0].get_ydata(), rotated[:, 0])
    # the same subspace, rotated to the eigenbasis: H^T K H diagonal, equal to eig's H
    assert subspace_angles(rotated, unrotated).max() < 1e-8
    G = rotated.T @ K @ rotated
    assert np.abs(G - np.diag(np.diag(G))).max() <= 1e-8 * np.abs(G).max()
    np.testing.assert_allclose(rotated, ex.eig_components_, atol=1e-6)
    H_rot, _, _ = stiefel.rotate_to_eigenbasis(ex.snapshots_[-1], K)
    np.testing.assert_allclose(rotated, H_rot, atol=1e-12)


def test_bad_input():
    with pytest.raises(ValueError, match="K must be a square"):
        StiefelTrainingExplorer(np.zeros((4, 3)), 1)
    with pytest.raises(ValueError, match="K must be symmetric"):
        StiefelTrainingExplorer(np.triu(np.ones((5, 5))), 1)
    with pytest.raises(ValueError, match="n_components"):
        StiefelTrainingExplorer(np.eye(5), 5)
    ex = None
    with pytest.raises(ValueError, match="snapshot"):
        ex = StiefelTrainingExplorer(np.diag([3.0, 2.0, 1.0, 0.5]), 1, max_iter=50)
        ex.update(snapshot=10_000)
