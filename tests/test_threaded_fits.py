"""Two threads fitting ONE KPCA / MultiViewKPCA instance leave the state of one of the fits, never a mix.

Each fit builds its attributes on a private copy and publishes them in one step (the last fit to
finish wins). Before, 3 of 10 races left one fit's ``n_features_in_`` beside the other's ``views_``.
"""

import sys
import threading

import numpy as np
import pytest

from rkmlearn import KPCA, MultiViewKPCA

rng = np.random.default_rng(0)
DATA = {"a": rng.normal(size=(120, 3)), "b": rng.normal(size=(90, 5))}


@pytest.fixture
def fast_switching():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: races show up in a few rounds
    yield
    sys.setswitchinterval(old)


def _race(model, inputs, rounds=15):
    outcomes = []
    for _ in range(rounds):
        barrier = threading.Barrier(len(inputs))

        def fit(data):
            barrier.wait()
            model.fit(data)

        threads = [threading.Thread(target=fit, args=(data,)) for data in inputs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        outcomes.append(_state(model))
    return outcomes


def _state(model):
    views = model.views_
    return (model.n_features_in_, [v.n_features_in_ for v in views], model.H_.shape[0],
            [v.X_.shape[0] for v in views], model.eigenvalues_.copy())


def test_kpca_fitted_from_two_threads_is_one_fit(fast_switching):
    model = KPCA(2, kernel="rbf")
    alone = {k: _state(KPCA(2, kernel="rbf").fit(X)) for k, X in DATA.items()}
    for state in _race(model, list(DATA.values())):
        match = alone["a"] if state[0] == 3 else alone["b"]
        assert state[:4] == match[:4], state[:4]
        np.testing.assert_array_equal(state[4], match[4])


def test_multiview_kpca_fitted_from_two_threads_is_one_fit(fast_switching):
    model = MultiViewKPCA(2)
    inputs = [[DATA["a"], DATA["a"][:, :2]], [DATA["b"], DATA["b"][:, :4]]]
    alone = [_state(MultiViewKPCA(2).fit(Xs)) for Xs in inputs]
    for state in _race(model, inputs):
        match = alone[0] if state[0] == [3, 2] else alone[1]
        assert state[:4] == match[:4], state[:4]
        np.testing.assert_array_equal(state[4], match[4])
