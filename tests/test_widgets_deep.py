"""Tests of :class:`rkmlearn.widgets.deep.DeepLatentExplorer` (Chapter 9)."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_digits

from explorer_contract import assert_explorer_contract
from rkmlearn import DeepRKMClassifier
from rkmlearn.widgets.deep import DeepLatentExplorer


@pytest.fixture(scope="module")
def data():
    digits = load_digits(n_class=3)
    return digits.data[:60] / 16.0, digits.target[:60]


@pytest.fixture(scope="module")
def explorer(data):
    return DeepLatentExplorer(*data, levels=(1, 2), inner=3, max_iter=10, random_state=0)


def test_ladders_and_initial_state(explorer):
    assert [ladder.values for ladder in explorer.ladders] == [(1, 2), (0, 1, 3, 10)]
    assert explorer.initial == {"levels": 2, "iteration": 10}


def test_state_is_the_model_after_k_iterations(data, explorer):
    X, y = data
    H, accuracy, objective = explorer.state_data(2, 3)
    model = DeepRKMClassifier((3, 2), kernels=["rbf", "linear"], kernel_params=[{"sigma": 3.0}, None],
                              smoother_sigma=0.5, max_iter=3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(H, model.H_[-1])
    pred = model.classes_[np.argmax(model.H_[-1] @ model.coef_ + model.intercept_, axis=1)]
    assert accuracy == np.mean(pred == y)
    # the iterate after k steps is the k-th iterate of the full run (deterministic optimiser)
    np.testing.assert_array_equal(objective[:4], model.history_["objective"])
    assert np.abs(H.T @ H - np.eye(2)).max() <= 1e-10


def test_explorer_contract(explorer):
    assert_explorer_contract(explorer)
