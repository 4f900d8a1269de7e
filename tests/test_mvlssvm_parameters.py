"""MultiViewLSSVM's gamma: a positive real number (or one per view), like rho; anything else is named."""

import numpy as np
import pytest

from rkmlearn.models import MultiViewLSSVM

rng = np.random.default_rng(0)
Xs = [rng.normal(size=(20, 2)), rng.normal(size=(20, 3))]
y = np.repeat([0, 1], 10)


@pytest.mark.parametrize("gamma", ["1", True, None, [1.0, "2"], [1.0, False], np.nan, -1.0, 0.0])
def test_gamma_must_be_positive_real_numbers(gamma):
    # "1" and True were accepted (rho="0.1" and rho=True were rejected); None was reported as "contains NaN"
    with pytest.raises(ValueError, match=r"^gamma must be"):
        MultiViewLSSVM(gamma=gamma).fit(Xs, y)


def test_gamma_lengths_other_than_one_or_one_per_view_are_named():
    with pytest.raises(ValueError, match=r"^gamma must be a positive number or 2 positive numbers"):
        MultiViewLSSVM(gamma=[1.0, 2.0, 3.0]).fit(Xs, y)


@pytest.mark.parametrize("gamma", [2.0, 2, np.float32(2.0), [2.0], [2.0, 2.0], np.array([2.0, 2.0])])
def test_valid_gammas_agree(gamma):
    reference = MultiViewLSSVM(gamma=2.0).fit(Xs, y).decision_function(Xs)
    np.testing.assert_allclose(MultiViewLSSVM(gamma=gamma).fit(Xs, y).decision_function(Xs), reference)
