"""Kernels and models on data of extreme magnitude: the RBF kernel of ``X * c`` with bandwidth
``sigma * c`` equals the kernel of ``X`` with ``sigma``, for every ``c`` a float can hold.

Squared distances of entries below about 1e-154 underflow (at ``c = 1e-162`` every distance was 0,
every kernel value 1, and the models' decisions moved by up to 1.19 with no warning); entries above
1e154 overflow. Such inputs are divided by a power of two before anything is squared.
"""

import numpy as np
import pytest

from rkmlearn import KPCA, TensorMultiViewRKM
from rkmlearn.kernels import RBF, Laplacian
from rkmlearn.models import CommitteeRKM
from rkmlearn.models.mvlssvm import MultiViewLSSVM

rng = np.random.default_rng(7)
X = rng.normal(size=(40, 3))
Z = rng.normal(size=(9, 3))
y = np.repeat([0, 1], 20)
X2 = np.c_[X[:, :2] + y[:, None], rng.normal(size=(40, 2))]
SCALES = [1e-156, 1e-160, 1e-162, 1e-200, 1e-300, 1e160, 1e200, 1e300]


@pytest.mark.parametrize("c", SCALES)
def test_rbf_gram_and_cross_kernel_are_scale_free(c):
    sigma = 1.3
    reference, cross = RBF(sigma)(X), RBF(sigma)(X, Z)
    np.testing.assert_allclose(RBF(sigma * c)(X * c), reference, rtol=0, atol=1e-14)
    np.testing.assert_allclose(RBF(sigma * c)(X * c, Z * c), cross, rtol=0, atol=1e-14)


@pytest.mark.parametrize("c", [1e-160, 1e-300, 1e300])
def test_rbf_blocks_are_scale_free(c):
    block = RBF(1.3 * c).blocks(X * c)
    np.testing.assert_allclose(block(slice(0, 10), slice(5, 30)), RBF(1.3)(X)[:10, 5:30], rtol=0, atol=1e-14)


@pytest.mark.parametrize("sigma", [1e-200, 1e-300])
def test_rbf_saturates_at_tiny_bandwidth_on_tiny_data(sigma):
    # distances of X * 1e-160 are about 1e-320 >> sigma^2: the kernel is the identity, exactly
    np.testing.assert_array_equal(RBF(sigma)(X * 1e-160), np.eye(len(X)))
    # and data on sigma's own scale gives the unit-scale kernel
    np.testing.assert_allclose(RBF(sigma)(X * sigma), RBF(1.0)(X), rtol=0, atol=1e-14)


def test_ordinary_inputs_keep_the_fused_path_bit_for_bit():
    from rkmlearn.kernels.zoo import _rbf_exponents_then_exp

    c = 0.5 / 1.3**2
    np.testing.assert_array_equal(RBF(1.3)(X, Z), _rbf_exponents_then_exp(X, Z, c))


def test_laplacian_was_already_scale_free():
    np.testing.assert_allclose(Laplacian(1e-300)(X * 1e-300), Laplacian(1.0)(X), rtol=0, atol=1e-14)


@pytest.mark.parametrize("c", [1e-158, 1e-200, 1e-300])
def test_kpca_is_scale_free(c):
    reference = KPCA(2, kernel_params={"sigma": 1.3}).fit(X)
    scaled = KPCA(2, kernel_params={"sigma": 1.3 * c}).fit(X * c)
    np.testing.assert_allclose(scaled.eigenvalues_, reference.eigenvalues_, rtol=1e-12)
    np.testing.assert_allclose(np.abs(scaled.transform(Z * c)), np.abs(reference.transform(Z)), atol=1e-10)


@pytest.mark.parametrize("c", [1e-200, 1e-300])
@pytest.mark.parametrize("make", [
    lambda s: TensorMultiViewRKM(RBF(s), lam=0.1),
    lambda s: CommitteeRKM(TensorMultiViewRKM(RBF(s), lam=0.1)),
    lambda s: MultiViewLSSVM(RBF(s), gamma=10.0, rho=1.0),
], ids=["TensorMultiViewRKM", "CommitteeRKM", "MultiViewLSSVM"])
def test_multiview_classifiers_are_scale_free(make, c):
    views = [X2[:, :2], X2[:, 2:]]
    reference = make(1.5).fit(views, y).decision_function(views)
    scaled = make(1.5 * c).fit([v * c for v in views], y).decision_function([v * c for v in views])
    np.testing.assert_allclose(scaled, reference, rtol=0, atol=1e-9)
