"""Tests of rkmlearn._blas: products in SciPy's BLAS equal NumPy's, whatever the memory layout."""

import numpy as np
import pytest

from rkmlearn._blas import gram_upper, product


def _layouts(A):
    """``A`` C-ordered, Fortran-ordered, and as a strided (non-contiguous) view with the same values."""
    wide = np.zeros((A.shape[0], 2 * A.shape[1]))
    wide[:, ::2] = A
    return [np.ascontiguousarray(A), np.asfortranarray(A), wide[:, ::2]]


@pytest.mark.parametrize("shape", [(1, 1, 1), (5, 3, 4), (40, 7, 33), (300, 20, 2)])
def test_product_equals_numpy_for_every_layout(shape):
    m, k, n = shape
    rng = np.random.default_rng(0)
    A0, B0 = rng.normal(size=(m, k)), rng.normal(size=(k, n))
    expected = A0 @ B0
    for A in _layouts(A0):
        for B in _layouts(B0) + [np.ascontiguousarray(B0.T).T]:
            P = product(A, B)
            assert P.shape == (m, n) and P.flags.c_contiguous and P.dtype == np.float64
            np.testing.assert_allclose(P, expected, rtol=1e-13, atol=1e-13 * np.abs(expected).max())


def test_product_of_empty_and_mismatched_arrays():
    assert product(np.zeros((0, 3)), np.ones((3, 2))).shape == (0, 2)
    assert product(np.ones((2, 0)), np.ones((0, 4))).tolist() == [[0.0] * 4] * 2
    with pytest.raises(ValueError, match="matching inner sizes"):
        product(np.ones((2, 3)), np.ones((2, 3)))


def test_gram_upper_is_the_upper_triangle_of_x_xt():
    X = np.random.default_rng(1).normal(size=(70, 9))
    G = gram_upper(X)
    assert G.flags.c_contiguous
    np.testing.assert_allclose(np.triu(G), np.triu(X @ X.T), rtol=1e-13, atol=1e-12)
    assert not np.tril(G, -1).any()  # the lower triangle is left zero: callers mirror what they finish
