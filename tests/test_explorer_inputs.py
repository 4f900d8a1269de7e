"""Awkward inputs of the explorers (tensor coupling, PPCA, deep RKM): any two labels, three classes,
mismatched views, a Generator as random_state, bad bandwidths named."""

import numpy as np
import pytest
from matplotlib.figure import Figure
from sklearn.datasets import make_moons

from rkmlearn.widgets.tensor import TensorCouplingExplorer, xor_views

def _points_drawn(explorer):
    figure = Figure()
    explorer.draw(figure, decision="add", rho=0.5)
    return sum(len(c.get_offsets()) for c in figure.axes[0].collections)


@pytest.mark.parametrize("labels", [(-1, 1), (0, 1), ("a", "b")])
def test_tensor_explorer_draws_every_training_point_whatever_the_two_labels(labels):
    Xtr, ytr = xor_views(40, random_state=0)
    Xte, yte = xor_views(20, random_state=1)
    relabel = {-1: labels[0], 1: labels[1]}
    explorer = TensorCouplingExplorer(Xtr, np.array([relabel[v] for v in ytr]), Xte,
                                      np.array([relabel[v] for v in yte]))
    assert _points_drawn(explorer) == 40
    reference = TensorCouplingExplorer(Xtr, ytr, Xte, yte)
    assert explorer.accuracy_ == reference.accuracy_


def test_tensor_explorer_rejects_three_classes_and_mismatched_views():
    Xtr, ytr = xor_views(40, random_state=0)
    Xte, yte = xor_views(20, random_state=1)
    with pytest.raises(ValueError, match=r"y_train must hold exactly two classes.*got 3 class"):
        TensorCouplingExplorer(Xtr, np.arange(40) % 3, Xte, yte)
    with pytest.raises(ValueError, match=r"Xs_train\[1\] has 30 samples but Xs_train\[0\] has 40"):
        TensorCouplingExplorer([Xtr[0], Xtr[1][:30]], ytr, Xte, yte)
    with pytest.raises(ValueError, match=r"y_test has 19 labels"):
        TensorCouplingExplorer(Xtr, ytr, Xte, yte[:19])


def test_ppca_explorer_accepts_a_generator_and_keeps_one_seed():
    from rkmlearn.widgets.ppca import PPCAExplorer

    X = make_moons(30, noise=0.05, random_state=0)[0]
    a = PPCAExplorer(X, components=(1, 2), initial_components=1, n_draws=5, random_state=np.random.default_rng(0))
    b = PPCAExplorer(X, components=(1, 2), initial_components=1, n_draws=5, random_state=np.random.default_rng(0))
    assert isinstance(a.random_state, int) and a.random_state == b.random_state
    # one seed for every frame of one q: the draws do not change from call to call
    first = a.state_data(1, "ml")["samples"]
    assert np.array_equal(first, a.state_data(1, "ml")["samples"])
    assert np.array_equal(first, b.state_data(1, "ml")["samples"])


def test_deep_explorer_names_level_sigma():
    from rkmlearn.widgets.deep import DeepLatentExplorer

    X, y = make_moons(40, noise=0.1, random_state=0)
    for name in ("sigma", "level_sigma", "smoother_sigma"):
        with pytest.raises(ValueError, match=rf"^{name} must be"):
            DeepLatentExplorer(X, y, X, y, levels=(2,), s2=(1,), s1=2, **{name: -1.0})
