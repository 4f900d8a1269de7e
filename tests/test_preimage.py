"""Tests of rkmlearn.preimage.kernel_smoother: undoing the centring, weights, stabilisation, errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from rkmlearn.kernels import RBF, GramCenterer, Linear
from rkmlearn.preimage import SUM_RTOL, kernel_smoother

SIGMA = 0.8


@pytest.fixture(scope="module")
def setup():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(25, 3))
    kernel = RBF(SIGMA)
    K = kernel(X)
    centerer = GramCenterer()
    K_c = centerer.fit_transform(K)
    return X, kernel, K, K_c, centerer


def offsets(centerer):
    return centerer.row_means_ - centerer.grand_mean_


def test_training_point_is_recovered_from_its_centred_row(setup):
    """phi_c(x_j) = Phi_c^T e_j, so mean_term = r_j - g and the uncentred row is K[j]."""
    X, _, K, K_c, centerer = setup
    mean_term = offsets(centerer)  # alpha = e_j for row j
    X_hat, weights = kernel_smoother(K_c, X, centerer, mean_term=mean_term, top_k=1, return_weights=True)
    np.testing.assert_array_equal(X_hat, X)
    np.testing.assert_array_equal(weights, np.eye(len(X)))
    # without top_k the weights are the normalised uncentred kernel row
    _, weights = kernel_smoother(K_c, X, centerer, mean_term=mean_term, return_weights=True)
    np.testing.assert_allclose(weights, K / K.sum(axis=1, keepdims=True), rtol=1e-12, atol=1e-15)


def test_new_point_weights_are_its_uncentred_kernel_values(setup):
    """For phi = phi(x): mu^T phi_c = mean_j k(x, x_j) - g."""
    X, kernel, _, _, centerer = setup
    X_new = np.random.default_rng(1).normal(size=(7, 3))
    K_new = kernel(X_new, X)
    k_c = centerer.transform(K_new)
    mean_term = K_new.mean(axis=1) - centerer.grand_mean_
    X_hat, weights = kernel_smoother(k_c, X, centerer, mean_term=mean_term, return_weights=True)
    expected = K_new / K_new.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(weights, expected, rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(X_hat, expected @ X, atol=1e-12)


def test_combination_of_training_features_uses_r_minus_g(setup):
    """phi_c = Phi_c^T alpha (linear kernel, explicit check): mean_term = (r - g)^T alpha."""
    X = setup[0] + 5.0  # far from the origin: every x_i^T phi > 0, no fallback
    K = Linear()(X)
    centerer = GramCenterer()
    K_c = centerer.fit_transform(K)
    alpha = np.random.default_rng(2).normal(size=(4, len(X)))
    mu = X.mean(axis=0)
    phi = alpha @ (X - mu) + mu
    _, weights = kernel_smoother(
        alpha @ K_c, X, centerer, mean_term=alpha @ offsets(centerer), clamp=False, return_weights=True
    )
    uncentred = phi @ X.T  # k(x_i, phi) = x_i^T phi
    np.testing.assert_allclose(weights, uncentred / uncentred.sum(axis=1, keepdims=True), rtol=1e-9)


def test_default_mean_term_is_zero(setup):
    X, _, _, K_c, centerer = setup
    np.testing.assert_array_equal(
        kernel_smoother(K_c[:3], X, centerer), kernel_smoother(K_c[:3], X, centerer, mean_term=0.0)
    )
    np.testing.assert_array_equal(
        kernel_smoother(K_c[:3], X, centerer, mean_term=0.2),
        kernel_smoother(K_c[:3], X, centerer, mean_term=[0.2, 0.2, 0.2]),
    )


@pytest.mark.parametrize("top_k", [1, 3, 10, 25])
def test_top_k_keeps_the_k_largest_weights(setup, top_k):
    X, _, _, K_c, centerer = setup
    mean_term = offsets(centerer)
    _, weights = kernel_smoother(K_c, X, centerer, mean_term=mean_term, top_k=top_k, return_weights=True)
    assert np.all(np.count_nonzero(weights, axis=1) == top_k)  # RBF values are all positive
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, rtol=1e-12)
    K = K_c + centerer.row_means_ + mean_term[:, None]
    smallest_kept = np.where(weights > 0, K, np.inf).min(axis=1)
    largest_dropped = np.where(weights > 0, -np.inf, K).max(axis=1)
    assert np.all(smallest_kept >= largest_dropped)


def test_negative_and_zero_rows_fall_back_to_the_largest_value():
    X = np.arange(8.0).reshape(4, 2)
    centerer = GramCenterer().fit(np.zeros((4, 4)))  # r = 0, g = 0: k_c is the uncentred k
    rows = np.array([[-1.0, -0.2, -3.0, -0.5], [0.0, 0.0, 0.0, 0.0], [-1.0, 1e-12, -2.0, 0.0]])
    X_hat, weights = kernel_smoother(rows, X, centerer, return_weights=True)
    assert np.all(np.isfinite(X_hat))
    np.testing.assert_array_equal(X_hat, X[[1, 0, 1]])
    np.testing.assert_array_equal(weights.sum(axis=1), 1.0)


def test_clamp_false_keeps_negative_weights_unless_unstable():
    X = np.arange(6.0).reshape(3, 2)
    centerer = GramCenterer().fit(np.zeros((3, 3)))
    row = np.array([[2.0, -0.5, 1.0]])
    X_hat, weights = kernel_smoother(row, X, centerer, clamp=False, return_weights=True)
    np.testing.assert_allclose(weights, row / 2.5)
    np.testing.assert_allclose(X_hat, weights @ X)
    # the clamped version drops the negative weight
    _, weights = kernel_smoother(row, X, centerer, return_weights=True)
    np.testing.assert_allclose(weights, [[2.0 / 3.0, 0.0, 1.0 / 3.0]])
    # a sum that nearly cancels (weights would be amplified beyond 1 / SUM_RTOL) falls back
    cancelling = np.array([[1.0, -1.0 + SUM_RTOL / 10, 0.0]])
    X_hat = kernel_smoother(cancelling, X, centerer, clamp=False)
    np.testing.assert_array_equal(X_hat, X[[0]])


row_values = st.floats(-10.0, 10.0, allow_nan=False, allow_infinity=False)


@settings(max_examples=80, deadline=None)
@given(
    rows=arrays(np.float64, st.tuples(st.integers(1, 5), st.just(6)), elements=row_values),
    clamp=st.booleans(),
    top_k=st.one_of(st.none(), st.integers(1, 6)),
)
def test_hypothesis_weights_are_finite_and_sum_to_one(rows, clamp, top_k):
    X = np.random.default_rng(0).normal(size=(6, 2))
    centerer = GramCenterer().fit(np.zeros((6, 6)))
    X_hat, weights = kernel_smoother(rows, X, centerer, clamp=clamp, top_k=top_k, return_weights=True)
    assert np.all(np.isfinite(X_hat)) and np.all(np.isfinite(weights))
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, rtol=1e-9)
    if clamp:
        assert np.all(weights >= 0.0)
        assert np.all(np.min(X, axis=0) - 1e-12 <= X_hat) and np.all(X_hat <= np.max(X, axis=0) + 1e-12)
    if top_k is not None:
        assert np.all(np.count_nonzero(weights, axis=1) <= top_k)


@pytest.fixture(scope="module")
def small():
    X = np.random.default_rng(4).normal(size=(5, 2))
    centerer = GramCenterer()
    return X, centerer.fit_transform(RBF(1.0)(X)), centerer


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(k_centred=np.ones((2, 4))), "k_centred has 4 columns but X_train has 5 rows"),
        (dict(k_centred=np.full((2, 5), np.nan)), "k_centred contains NaN"),
        (dict(k_centred=np.ones(5)), "k_centred must be a 2-D"),
        (dict(X_train=np.full((5, 2), np.inf)), "X_train contains NaN"),
        (dict(centerer=GramCenterer()), "centerer must be a fitted"),
        (dict(centerer=GramCenterer().fit(np.eye(4))), "centerer was fitted on 4 training samples"),
        (dict(mean_term=np.zeros(3)), r"mean_term must have shape \(2,\)"),
        (dict(mean_term=[np.nan, 0.0]), "mean_term contains NaN"),
        (dict(mean_term=np.inf), "mean_term must be a finite"),
        (dict(top_k=0), "top_k must be in"),
        (dict(top_k=6), "top_k must be in"),
        (dict(top_k=1.5), "top_k must be an integer"),
        (dict(clamp="yes"), "clamp must be True or False"),
    ],
)
def test_bad_input_raises(small, kwargs, match):
    X, K_c, centerer = small
    args = dict(k_centred=K_c[:2], X_train=X, centerer=centerer)
    args.update(kwargs)
    k, X_train, c = args.pop("k_centred"), args.pop("X_train"), args.pop("centerer")
    with pytest.raises(ValueError, match=match):
        kernel_smoother(k, X_train, c, **args)
