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
    X, y = digits.data / 16.0, digits.target
    return X[:90], y[:90], X[90:150], y[90:150]


@pytest.fixture(scope="module")
def explorer(data):
    return DeepLatentExplorer(*data, levels=(2, 3), s2=(1, 2, 4), s1=6, random_state=0)


def test_ladders_and_initial_state(explorer):
    assert [ladder.values for ladder in explorer.ladders] == [(2, 3), (1, 2, 4)]
    assert explorer.initial == {"levels": 2, "s2": 2}


def test_the_s2_control_is_labelled_in_typeset_maths(explorer):
    # the page shows s_2 as in the text and Figure 3, not the plain identifier "s2"
    assert explorer.ladders[1].widget_description == "\\(s_2\\)"


def test_state_is_the_dkpca_model_and_its_test_accuracy(data, explorer):
    X, y, X_test, y_test = data
    E, accuracy = explorer.state_data(3, 4)
    model = DeepRKMClassifier((6, 4, 4), kernels="rbf", kernel_params=[{"sigma": 3.0}, {"sigma": 0.2}, {"sigma": 0.2}],
                              init="dkpca-greedy", fine_tune=False, smoother_sigma=2.0, random_state=0).fit(X, y)
    np.testing.assert_array_equal(E, model.H_[-1][:, :2])
    assert accuracy == model.score(X_test, y_test) > 0.5
    E1, _ = explorer.state_data(2, 1)
    assert E1.shape == (len(y), 1)  # s_2 = 1: one hidden feature, drawn against the class


def test_deeper_rbf_levels_have_separated_eigenvalues(explorer):
    """Why the deeper levels are RBF: the level-2 eigenvalues at the cut are separated, so the embedding is
    determined by the data, not by rounding (a linear level on orthonormal H has them all equal)."""
    from rkmlearn.kernels import RBF, GramCenterer

    H1 = explorer.models_[2, 4].H_[0]
    evals = np.sort(np.linalg.eigvalsh(GramCenterer().fit_transform(RBF(sigma=0.2)(H1))))[::-1]
    assert np.min(-np.diff(evals[:5]) / evals[0]) > 1e-6
    linear = np.sort(np.linalg.eigvalsh(GramCenterer().fit_transform(H1 @ H1.T)))[::-1]
    np.testing.assert_allclose(linear[:6], 1.0, atol=1e-10)  # all equal: any basis is a solution


def test_bad_input(data):
    X, y, X_test, y_test = data
    with pytest.raises(ValueError, match="levels must be distinct integers >= 2"):
        DeepLatentExplorer(X, y, X_test, y_test, levels=(1, 2))
    with pytest.raises(ValueError, match="s2 must be distinct integers >= 1"):
        DeepLatentExplorer(X, y, X_test, y_test, s2=(0, 2))
    with pytest.raises(ValueError, match="y and y_test"):
        DeepLatentExplorer(X, y[:-1], X_test, y_test)


def test_explorer_contract(explorer):
    assert_explorer_contract(explorer)
