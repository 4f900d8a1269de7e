"""Tests of :class:`rkmlearn.widgets.stiefel_training.StiefelTrainingExplorer` (Chapter 4).

The explorer is built once on a small two-view problem; the tests check that its run is
Algorithm 4 (the model's own run), that each kept iterate's ``Gamma'``, rotation and objective
gap are what a direct computation gives, and that the widget keeps the frame-explorer contract.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import subspace_angles

from explorer_contract import assert_explorer_contract
from rkmlearn import MultiViewKPCA
from rkmlearn.solvers.objectives import trace_objective
from rkmlearn.solvers.optimisers import cayley_adam
from rkmlearn.widgets.stiefel_training import StiefelTrainingExplorer, round_iterations

S = 3


@pytest.fixture(scope="module")
def views():
    rng = np.random.default_rng(5)
    Z = rng.normal(size=(70, 6)) * np.array([5.0, 3.0, 2.0, 0.5, 0.3, 0.1])
    return [Z[:, :4], Z[:, 4:]]


@pytest.fixture(scope="module")
def explorer(views):
    return StiefelTrainingExplorer(views, S, max_iter=4000, random_state=1)


def test_round_iterations():
    assert list(round_iterations(2583)) == [0, 1, 3, 10, 30, 100, 300, 1000, 2583]
    assert list(round_iterations(30)) == [0, 1, 3, 10, 30]
    assert list(round_iterations(0)) == [0]


def test_the_run_is_algorithm_4(views, explorer):
    model = MultiViewKPCA(S, solver="stiefel", optimizer="cayley_adam", rotate=False, max_iter=4000, random_state=1).fit(views)
    assert explorer.iterations_[-1] == model.n_iter_ == explorer.result_.n_iter
    np.testing.assert_allclose(explorer.snapshots_[-1], model.H_, atol=1e-10)
    rotated = MultiViewKPCA(S, solver="stiefel", optimizer="cayley_adam", max_iter=4000, random_state=1).fit(views)
    np.testing.assert_allclose(explorer.rotated_[-1], rotated.H_, atol=1e-10)
    np.testing.assert_allclose(explorer.objective_, model.history_["objective"], rtol=1e-12)


def test_kept_iterates_are_the_optimiser_s(explorer):
    K = explorer.K_
    fun, grad = trace_objective(K)
    start = np.random.RandomState(1).standard_normal((K.shape[0], S))
    seen = {}
    cayley_adam(fun, grad, start, learning_rate=0.3, max_iter=4000, tol=1e-10,
                        callback=lambda k, X: seen.__setitem__(k, X.copy()))
    for k, H in zip(explorer.iterations_[:-1], explorer.snapshots_[:-1]):
        np.testing.assert_array_equal(H, seen[k])


def test_gamma_prime_rotation_and_gap(explorer):
    K = explorer.K_
    for k, iteration in enumerate(explorer.iterations_):
        H = explorer.snapshots_[k]
        np.testing.assert_allclose(explorer.gamma_primes_[k], H.T @ K @ H, rtol=1e-12, atol=1e-9)
        H_rot = explorer.components(iteration, rotated=True)
        gamma = H_rot.T @ K @ H_rot
        assert np.abs(gamma - np.diag(np.diag(gamma))).max() <= 1e-8 * np.abs(gamma).max()
        np.testing.assert_array_equal(explorer.components(iteration, rotated=False), H)
    gaps = explorer.gaps()
    f_star = -0.5 * explorer.reference_.eigenvalues_.sum()
    assert gaps[0] == pytest.approx((explorer.objective_[0] - f_star) / abs(f_star))
    assert gaps.min() >= 1e-7 and gaps[-1] == 1e-7


def test_rotation_helps_only_near_the_end(explorer):
    reference = explorer.reference_.H_
    final = explorer.components(explorer.iterations_[-1], rotated=True)
    np.testing.assert_allclose(final, reference, atol=1e-6)
    early = explorer.components(explorer.iterations_[2], rotated=True)
    assert subspace_angles(early, reference).max() > 1e-2


def test_frames_keep_the_contract(views):
    # the ladder of kept iterations (no widget built: that renders every frame)
    assert list(StiefelTrainingExplorer(views, 2, max_iter=12, random_state=0).iterations_) == [0, 1, 3, 10, 12]
    # the contract on 3 x 2 states: each frame costs a figure (~0.3 s CPU) to build and to re-render
    small = StiefelTrainingExplorer(views, 2, max_iter=3, random_state=0)
    assert list(small.iterations_) == [0, 1, 3]
    assert_explorer_contract(small)


def test_bad_input(views):
    with pytest.raises(ValueError, match="n_components"):
        StiefelTrainingExplorer(views, 70)
    with pytest.raises(ValueError, match="max_iter"):
        StiefelTrainingExplorer(views, 2, max_iter=0)


def test_components_are_drawn_one_panel_each_over_a_window(explorer, monkeypatch):
    # overlaid oscillating components become solid bands: one panel per component, few samples
    import matplotlib.pyplot as plt

    monkeypatch.setattr(explorer, "component_window", 25)
    figure = plt.figure(figsize=explorer.figsize)
    try:
        explorer.draw(figure, iteration=int(explorer.iterations_[-1]), rotated=True)
        panels = [ax for ax in figure.get_axes() if ax.get_title().startswith("component")]
        assert [ax.get_title() for ax in panels] == [f"component {j + 1}" for j in range(S)]
        for j, ax in enumerate(panels):
            assert all(len(line.get_xdata()) == 25 for line in ax.get_lines())
            np.testing.assert_allclose(ax.get_lines()[-1].get_ydata(),
                                       explorer.components(explorer.iterations_[-1], True)[:25, j])
    finally:
        plt.close(figure)


def test_basis_labels_are_typeset_maths(explorer):
    """The basis buttons name the matrices in TeX (typeset in the book), not as ASCII."""
    basis = {ladder.name: ladder for ladder in explorer.ladders}["rotated"]
    assert basis.labels == (r"$H'_k$ (as trained)", r"$H'_k O_k$ (rotated)")
    assert all(label.count("$") == 2 for label in basis.labels)
