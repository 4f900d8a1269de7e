"""DeepRKMClassifier: its defaults at extreme scales of X, a tied linear level, and "auto" on 2 samples."""

import re
import warnings

import numpy as np
import pytest

from rkmlearn import DeepRKMClassifier
from rkmlearn.datasets import load_digits_split
from rkmlearn.models.deep.training import auto_components, median_distance


@pytest.fixture(scope="module")
def moons():
    from sklearn.datasets import make_moons

    return make_moons(60, noise=0.1, random_state=0)


def _quiet_fit(model, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the paper's 100 iterations do not converge
        return model.fit(X, y)


@pytest.mark.parametrize("c", [1e-300, 1e-160, 1e300])
def test_default_bandwidths_are_scale_free(moons, c):
    # was: "X: all samples are identical" (1e-300) and "sigma must be finite; got inf" (1e300)
    X, y = moons
    reference = _quiet_fit(DeepRKMClassifier(random_state=0), X, y)
    model = _quiet_fit(DeepRKMClassifier(random_state=0), X * c, y)
    assert model.level_sigma_ == pytest.approx(reference.level_sigma_ * c, rel=1e-12)
    assert model.smoother_sigma_ == pytest.approx(reference.smoother_sigma_ * c, rel=1e-12)
    np.testing.assert_allclose(model.decision_function(X * c), reference.decision_function(X), atol=1e-5)
    np.testing.assert_array_equal(model.predict(X * c), reference.predict(X))


def test_median_distance_of_tiny_and_huge_data():
    X = np.random.default_rng(0).normal(size=(30, 4))
    for c in (2.0**-1000, 2.0**1000):
        assert median_distance(X * c) == median_distance(X) * c  # powers of two: exactly


@pytest.fixture(scope="module")
def digits():
    return load_digits_split(300, n_test=300, random_state=0)


def _tied(X, y, Xt):
    # level 2 linear with s_2 < s_1: its matrix H_1 H_1^T is a projection (all eigenvalues 1)
    model = DeepRKMClassifier((3, 2), init="dkpca-greedy", fine_tune=False, random_state=0)
    return _quiet_fit(model, X, y).predict(Xt)


def test_a_tied_linear_level_is_chosen_by_rule_not_rounding(digits):
    # was: scaling X by 3 changed 18 % of the predictions, permuting the rows 65 %
    reference = _tied(digits.X_train, digits.y_train, digits.X_test)
    np.testing.assert_array_equal(_tied(3 * digits.X_train, digits.y_train, 3 * digits.X_test), reference)
    perm = np.random.default_rng(1).permutation(digits.y_train.size)
    np.testing.assert_array_equal(_tied(digits.X_train[perm], digits.y_train[perm], digits.X_test), reference)


def test_the_tied_level_is_the_leading_columns_of_the_level_below(digits):
    model = _quiet_fit(DeepRKMClassifier((3, 2), init="dkpca-greedy", fine_tune=False, max_iter=0,
                                         random_state=0), digits.X_train, digits.y_train)
    np.testing.assert_array_equal(model.H_[1], model.H_[0][:, :2])


@pytest.mark.parametrize("n, p", [(2, 2), (3, 2), (4, 2), (10, 2), (3, 3), (10, 5), (40, 10)])
def test_auto_components_is_what_the_docstring_says(n, p):
    doc = " ".join(DeepRKMClassifier.__doc__.split())
    assert '"auto"``: two levels of ``min(max(3, p - 1), n_samples - 1)``' in doc
    k = min(max(3, p - 1), n - 1)
    assert auto_components(p, n) == (k, k)
    X = np.random.default_rng(0).normal(size=(n, 3))
    y = np.arange(n) % p
    assert _quiet_fit(DeepRKMClassifier(max_iter=1, random_state=0), X, y).n_components_ == (k, k)
    if n == 2:
        assert re.search(r"\(1, 1\)`` for 2 samples", doc)
