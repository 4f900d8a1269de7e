"""Tests of rkmlearn._validation: every bad input gives a ValueError naming the parameter."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from rkmlearn._validation import (
    InputTypeError,
    check_array,
    check_n_components,
    check_n_features,
    check_random_state,
    check_scalar_range,
    check_views,
)


# ----------------------------------------------------------------------------- check_array
def test_check_array_returns_c_contiguous_float64():
    X = np.asfortranarray(np.arange(6, dtype=np.int32).reshape(3, 2))
    out = check_array(X)
    assert out.dtype == np.float64
    assert out.flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(out, X)


def test_check_array_accepts_lists_and_copies_on_request():
    X = np.ones((2, 2))
    assert check_array(X) is X  # already fine: no copy
    out = check_array(X, copy=True)
    assert out is not X
    np.testing.assert_array_equal(check_array([[1, 2], [3, 4]]), [[1.0, 2.0], [3.0, 4.0]])


@pytest.mark.parametrize(
    "X, keep, fix",
    [
        (np.ones(5), "Expected 2D array", "reshape(-1, 1)"),
        (3.0, "Expected 2D array", "reshape(1, -1)"),
        (np.ones((2, 2, 2)), "dim 3", "reshape(len("),
        (np.array([[1.0, np.nan]]), "NaN", "impute"),
        (np.array([[1.0, np.inf]]), "inf", "impute"),
        (np.array([[1.0, -np.inf]]), "inf", "impute"),
        (np.array([[1 + 1j, 2.0]]), "Complex data not supported", ".real"),
        (np.zeros((0, 3)), "0 sample(s)", "at least one sample"),
        (np.zeros((3, 0)), "0 feature(s)", "at least one sample"),
        (np.array([["a", "b"]]), "could not convert string to float", "numerically"),
        ([[1.0, 2.0], [3.0]], "", "rectangular"),
    ],
)
def test_check_array_rejects_with_name_and_fix(X, keep, fix):
    with pytest.raises(ValueError) as info:
        check_array(X, "Y_test")
    message = str(info.value)
    assert message.startswith("Y_test")
    assert keep in message  # scikit-learn's wording is kept (check_estimator regexes)
    assert fix in message


def test_check_array_1d_message_states_shape():
    with pytest.raises(ValueError, match=r"^X must be a 2-D array .* got shape \(5,\)"):
        check_array(np.ones(5))


def test_check_array_type_errors_are_both_value_and_type_errors():
    X = np.array([[1.0, {"a": 1}]], dtype=object)
    with pytest.raises(ValueError, match="^X must contain real numbers"):
        check_array(X)
    with pytest.raises(TypeError, match="argument must be a string.* number"):
        check_array(X)
    scipy_sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(InputTypeError, match=r"toarray\(\)"):
        check_array(scipy_sparse.eye(3))


def test_check_array_object_numbers_are_converted():
    X = np.array([[1, 2.5]], dtype=object)
    np.testing.assert_array_equal(check_array(X), [[1.0, 2.5]])


def test_check_array_options():
    np.testing.assert_array_equal(check_array(np.arange(3), ensure_2d=False), [0.0, 1.0, 2.0])
    assert check_array(np.zeros((0, 2)), allow_empty=True).shape == (0, 2)
    with pytest.raises(ValueError, match="^v is empty"):
        check_array(np.zeros(0), "v", ensure_2d=False)
    with pytest.raises(ValueError, match="^v must be a 2-D"):
        check_array(np.zeros((2, 2, 2)), "v", ensure_2d=False)


@settings(max_examples=40, deadline=None)
@given(
    arrays(
        np.float64,
        array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=6),
        elements=st.floats(allow_nan=True, allow_infinity=True, width=64),
    )
)
def test_check_array_property_finite_iff_accepted(X):
    if np.all(np.isfinite(X)):
        out = check_array(X)
        np.testing.assert_array_equal(out, X)
        assert out.dtype == np.float64 and out.flags["C_CONTIGUOUS"]
    else:
        with pytest.raises(ValueError, match="^X contains NaN or infinite"):
            check_array(X)


@settings(max_examples=30, deadline=None)
@given(arrays(np.float64, array_shapes(min_dims=1, max_dims=1, max_side=8) | array_shapes(min_dims=3, max_dims=4, max_side=3)))
def test_check_array_property_wrong_ndim_rejected(X):
    with pytest.raises(ValueError, match="^X must be a 2-D array"):
        check_array(X)


# ----------------------------------------------------------------------------- check_views
def test_check_views_ok():
    views = check_views([np.ones((4, 2)), np.zeros((4, 3), dtype=int)])
    assert [v.shape for v in views] == [(4, 2), (4, 3)]
    assert all(v.dtype == np.float64 for v in views)


def test_check_views_mismatched_samples_names_view_and_lengths():
    with pytest.raises(ValueError, match=r"^Xs\[2\] has 3 samples but Xs\[0\] has 4"):
        check_views([np.ones((4, 2)), np.ones((4, 1)), np.ones((3, 2))])


def test_check_views_bad_container_and_count_and_view():
    with pytest.raises(ValueError, match=r"^Xs must be a list or tuple .* \[X\]"):
        check_views(np.ones((4, 2)))
    with pytest.raises(ValueError, match="^Xs must contain at least 2 view"):
        check_views([np.ones((4, 2))], min_views=2)
    with pytest.raises(ValueError, match=r"^Xs\[1\] contains NaN"):
        check_views([np.ones((2, 2)), np.array([[np.nan], [1.0]])])
    with pytest.raises(ValueError, match=r"^Xs\[0\] must be a 2-D"):
        check_views((np.ones(3),))


# ----------------------------------------------------------------------- check_n_components
@pytest.mark.parametrize("value", [1, 3, np.int64(5), np.int32(2)])
def test_check_n_components_ok(value):
    out = check_n_components(value, 5)
    assert out == int(value) and type(out) is int


@pytest.mark.parametrize("value", [0, -1, 6, 100])
def test_check_n_components_out_of_range_states_bound(value):
    with pytest.raises(ValueError, match=rf"^n_components={value} .*1 <= n_components <= n_samples \(= 5\)"):
        check_n_components(value, 5)


@pytest.mark.parametrize("value", [True, 2.0, "2", None, np.float64(2.0)])
def test_check_n_components_non_integer(value):
    with pytest.raises(ValueError, match=r"^k must be an integer in \[1, 5\]"):
        check_n_components(value, 5, "k")


# ------------------------------------------------------------------------ check_scalar_range
def test_check_scalar_range_ok_and_types():
    assert check_scalar_range(2, "sigma", low=0) == 2.0
    assert type(check_scalar_range(2, "sigma", low=0)) is float
    assert check_scalar_range(np.int64(3), "degree", low=1, low_inclusive=True, integer=True) == 3
    assert check_scalar_range(0.0, "c", low=0.0, low_inclusive=True) == 0.0
    assert check_scalar_range(1.0, "p", low=0.0, high=1.0) == 1.0
    assert check_scalar_range(np.inf, "t", low=0.0, allow_inf=True) == np.inf


@pytest.mark.parametrize(
    "value, kwargs, pattern",
    [
        (0.0, dict(low=0.0), r"^sigma must be in \(0.0, inf\); got 0.0"),
        (-1.0, dict(low=0.0), r"^sigma must be in \(0.0, inf\)"),
        (np.nan, dict(low=0.0), r"^sigma must be a finite number"),
        (np.inf, dict(low=0.0), r"^sigma must be a finite number"),
        (1.0, dict(low=0.0, high=1.0, high_inclusive=False), r"^sigma must be in \(0.0, 1.0\)"),
        (True, dict(low=0.0), r"^sigma must be a real number"),
        ("1", dict(low=0.0), r"^sigma must be a real number"),
        (1 + 0j, dict(low=0.0), r"^sigma must be a real number"),
        (2.5, dict(low=1, integer=True), r"^sigma must be an integer"),
    ],
)
def test_check_scalar_range_rejects(value, kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        check_scalar_range(value, "sigma", **kwargs)


# -------------------------------------------------------------------------- check_n_features
def test_check_n_features():
    check_n_features(np.ones((2, 5)), 5)  # no error
    with pytest.raises(ValueError, match="^X has 3 features, but the estimator is expecting 5"):
        check_n_features(np.ones((2, 3)), 5)


def test_check_n_features_sklearn_wording_with_estimator():
    class KernelPCA:
        pass

    pattern = r"X has 3 features, but \w+ is expecting 5 features as input"
    with pytest.raises(ValueError, match=pattern):
        check_n_features(np.ones((2, 3)), 5, estimator_name="KernelPCA")
    with pytest.raises(ValueError, match="but KernelPCA is expecting"):
        check_n_features(np.ones((2, 3)), 5, estimator_name=KernelPCA())


def test_check_random_state_reexported():
    assert isinstance(check_random_state(0), np.random.RandomState)
    a = check_random_state(3).uniform(size=3)
    b = check_random_state(3).uniform(size=3)
    np.testing.assert_array_equal(a, b)
