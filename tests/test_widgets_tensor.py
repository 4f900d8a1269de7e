"""Tests of :class:`rkmlearn.widgets.tensor.TensorCouplingExplorer` (Chapter 8).

Each state's accuracy, decision values and coupled kernel are those of a direct fit; the frames say
what the chapter claims (only the tensor term separates XOR); the widget keeps the explorer contract.
"""
from __future__ import annotations

import numpy as np
import pytest

from explorer_contract import assert_explorer_contract
from rkmlearn import TensorMultiViewRKM
from rkmlearn.kernels import RBF
from rkmlearn.widgets.tensor import RHO_LADDER, TensorCouplingExplorer, xor_views


@pytest.fixture(scope="module")
def data():
    return (*xor_views(40, random_state=0), *xor_views(100, random_state=1))


@pytest.fixture(scope="module")
def explorer(data):
    return TensorCouplingExplorer(*data, rho=0.5)


def test_ladders_and_initial_state(explorer):
    assert explorer.names == ("decision", "rho")
    assert explorer.ladders[1].values == RHO_LADDER
    assert explorer.initial == {"decision": "add", "rho": 0.5}
    # labels in typeset maths and the chapter's rule names (issue 18), not "ρ" or paper numbers
    assert explorer.ladders[0].labels == ("add", "mean")
    assert explorer.ladders[1].description == r"$\varrho$"


@pytest.mark.parametrize("decision", ["add", "mean"])
@pytest.mark.parametrize("rho", [0.0, 0.75])
def test_each_state_is_a_direct_fit(data, explorer, decision, rho):
    Xtr, ytr, Xte, yte = data
    model = TensorMultiViewRKM([RBF(sigma=0.7)] * 2, rho=rho, lam=0.1, decision=decision).fit(Xtr, ytr)
    accuracy, values, K = explorer.state_data(decision, rho)
    assert accuracy == model.score(Xte, yte)
    corner = [np.array([[explorer._extent[0]]]), np.array([[explorer._extent[2]]])]
    assert values[0, 0] == pytest.approx(model.decision_function(corner)[0], rel=1e-10, abs=1e-12)
    grams = [RBF(sigma=0.7)(X) for X in Xtr]
    direct = (1 - rho) * (grams[0] + grams[1]) + rho * grams[0] * grams[1]
    assert np.sort(K.ravel()) == pytest.approx(np.sort(direct.ravel()), rel=1e-12, abs=1e-14)


def test_what_chapter_8_claims(explorer):
    # late fusion (rho = 0) and the 'mean' rule are additive over views: chance on XOR;
    # any tensor coupling with the 'add' rule separates it
    assert explorer.accuracy_["add", 0.0] < 0.7
    assert all(explorer.accuracy_["mean", r] < 0.7 for r in RHO_LADDER)
    assert all(explorer.accuracy_["add", r] > 0.9 for r in RHO_LADDER[1:])


def test_frames_keep_the_contract(data):
    class Small(TensorCouplingExplorer):
        grid = 12

    assert_explorer_contract(Small(*[d[:12] if isinstance(d, np.ndarray) else [X[:12] for X in d] for d in data]))


@pytest.mark.parametrize("kwargs, match", [
    ({"rho": 0.3}, "not on the explorer's ladder"),
    ({"decision": "max"}, "not on the explorer's ladder"),
    ({"sigma": 0.0}, "sigma"),
    ({"lam": -1.0}, "lam"),
])
def test_rejects_bad_parameters(data, kwargs, match):
    with pytest.raises(ValueError, match=match):
        TensorCouplingExplorer(*data, **kwargs)


def test_rejects_views_that_are_not_one_dimensional(data):
    Xtr, ytr, Xte, yte = data
    with pytest.raises(ValueError, match="one-dimensional views"):
        TensorCouplingExplorer([np.hstack(Xtr), Xtr[1]], ytr, Xte, yte)
