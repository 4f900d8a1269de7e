"""The rank rule of explicit features is on the centred scale: X + 1e8 with unit spread keeps its rank.

Centred features ``phi - mu`` are exact differences (one rounding relative to themselves); only the
mean's own rounding is noise. The old rule measured the rounding level on the UNcentred features
(``max ||phi||^2`` ~ 4e16) and reported "numerical rank 0 ... all samples look alike" for data whose
covariance eigenvalues are about 300. Constant data must still be rank 0.
"""

import numpy as np
import pytest

from rkmlearn import KPCA, MultiViewKPCA
from rkmlearn.features import IdentityFeatures

rng = np.random.default_rng(0)
X = rng.normal(size=(300, 4))


def _fits(data, streamed):
    if streamed == "dask":
        da = pytest.importorskip("dask.array")
        data = da.from_array(data, chunks=(100, 4))
    return data


@pytest.mark.parametrize("setting", ["primal", "dual"])
@pytest.mark.parametrize("streamed", ["numpy", "dask"])
@pytest.mark.parametrize("offset", [1e8, 1e12])
def test_identity_features_far_from_the_origin_keep_their_eigenvalues(setting, streamed, offset):
    if setting == "dual" and (streamed == "dask" or offset > 1e8):
        # the dual's level is the bound on the mean's rounding times n / D (conservative): 1e12 is past it
        pytest.skip("only the primal setting streams; the dual is checked at 1e8")
    reference = KPCA(2, feature_map=IdentityFeatures(), setting="primal").fit(X).eigenvalues_
    model = KPCA(2, feature_map=IdentityFeatures(), setting=setting).fit(_fits(X + offset, streamed))
    # the data as stored differ from X by ulp(offset) per entry: the eigenvalues by about that, relative
    np.testing.assert_allclose(model.eigenvalues_, reference, rtol=100 * np.spacing(offset))


def test_streamed_numpy_fit_far_from_the_origin(monkeypatch):
    # the same with the in-memory stream (features over the threshold): the threshold lowered
    import rkmlearn.views as views

    monkeypatch.setattr(views, "STREAM_BYTES", 1024)
    model = KPCA(2, feature_map=IdentityFeatures(), setting="primal").fit(X + 1e8)
    reference = KPCA(2, feature_map=IdentityFeatures(), setting="primal").fit(X).eigenvalues_
    np.testing.assert_allclose(model.eigenvalues_, reference, rtol=1e-6)


def test_multiview_primal_far_from_the_origin():
    views = [X[:, :2] + 1e8, X[:, 2:] - 1e9]
    model = MultiViewKPCA(2, feature_maps=[IdentityFeatures()] * 2, setting="primal").fit(views)
    reference = MultiViewKPCA(2, feature_maps=[IdentityFeatures()] * 2, setting="primal").fit([X[:, :2], X[:, 2:]])
    np.testing.assert_allclose(model.eigenvalues_, reference.eigenvalues_, rtol=1e-5)


@pytest.mark.parametrize("setting", ["primal", "dual"])
@pytest.mark.parametrize("streamed", ["numpy", "dask"])
@pytest.mark.parametrize("value", [3.0, 1e8, 0.1])
def test_constant_data_are_still_rank_zero(setting, streamed, value):
    if setting == "dual" and streamed == "dask":
        pytest.skip("only the primal setting streams")
    data = _fits(np.full((300, 4), value), streamed)
    with pytest.raises(ValueError, match="numerical rank 0"):
        KPCA(2, feature_map=IdentityFeatures(), setting=setting).fit(data)


@pytest.mark.parametrize("kernel", ["linear", None])
def test_a_linear_kernel_far_from_the_origin_names_the_cause_and_the_fix(kernel):
    # its Gram matrix holds entries of 4e16, whose centring leaves rounding: the error said
    # "all samples look alike in feature space", which is false
    with pytest.raises(ValueError, match=r"^X: the inputs lie far from the origin .*Centre X first.*IdentityFeatures") as info:
        KPCA(2, kernel=kernel).fit(X + 1e8)
    assert "look alike" not in str(info.value)


def test_a_linear_kernel_near_the_origin_keeps_the_plain_rank_error():
    with pytest.raises(ValueError, match="all samples look alike"):
        KPCA(2, kernel="linear").fit(np.ones((20, 3)))
