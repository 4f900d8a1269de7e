"""Inputs whose features exceed the in-memory threshold (``rkmlearn.views.STREAM_BYTES``, 256 MB): a real
``np.memmap`` on disk stays a memmap (read a chunk at a time, never copied into RAM), and
ProbabilisticKPCA's primal fit streams like KPCA's (it rejected them: "never stored ... use
centred_features(X) on a chunk"). The threshold is lowered here so that the file stays small."""

import numpy as np
import pytest

import rkmlearn.views as views
from rkmlearn import KPCA, ProbabilisticKPCA
from rkmlearn.features import IdentityFeatures, RandomFourierFeatures

X = np.random.default_rng(0).normal(size=(400, 6)) @ np.diag([3.0, 2.0, 1.5, 1.0, 0.5, 0.2])


@pytest.fixture
def on_disk(tmp_path):
    path = tmp_path / "X.float64"
    writer = np.memmap(path, dtype=np.float64, mode="w+", shape=X.shape)
    writer[:] = X
    writer.flush()
    del writer
    return np.memmap(path, dtype=np.float64, mode="r", shape=X.shape)


@pytest.fixture
def small_threshold(monkeypatch):
    monkeypatch.setattr(views, "STREAM_BYTES", 4096)  # 400 x 6 float64 = 19 kB: streamed


def _ppca(feature_map=None):
    return ProbabilisticKPCA(2, feature_map=feature_map or IdentityFeatures(), setting="primal")


@pytest.mark.parametrize("make", [lambda: KPCA(2, feature_map=IdentityFeatures(), setting="primal"), _ppca],
                         ids=["KPCA", "ProbabilisticKPCA"])
def test_a_memmap_over_the_threshold_stays_a_memmap(make, on_disk, small_threshold):
    model = make().fit(on_disk)
    view = model.view_ if hasattr(model, "view_") else model.views_[0]
    assert view.streamed_
    assert isinstance(view.X_, np.memmap) and np.shares_memory(view.X_, on_disk)  # was: a copy in RAM


def test_a_memmap_under_the_threshold_is_copied_as_before(on_disk):
    model = KPCA(2, feature_map=IdentityFeatures(), setting="primal").fit(on_disk)
    assert not model.views_[0].streamed_
    assert type(model.views_[0].X_) is np.ndarray and not np.shares_memory(model.views_[0].X_, on_disk)


@pytest.mark.parametrize("feature_map", [IdentityFeatures(), RandomFourierFeatures(sigma=2.0, n_features=20, random_state=0)],
                         ids=["identity", "rff"])
def test_probabilistic_kpca_primal_streams_like_in_memory(feature_map, on_disk, monkeypatch):
    reference = _ppca(feature_map).fit(X)
    monkeypatch.setattr(views, "STREAM_BYTES", 4096)
    model = _ppca(feature_map).fit(on_disk)
    assert model.view_.streamed_
    assert model.rank_ == reference.rank_
    np.testing.assert_allclose(model.eigenvalues_, reference.eigenvalues_, rtol=1e-12)
    np.testing.assert_allclose(model.sigma2_, reference.sigma2_, rtol=1e-10)
    np.testing.assert_allclose(model.transform(X), reference.transform(X), atol=1e-10)
    np.testing.assert_allclose(model.score_samples(X), reference.score_samples(X), rtol=1e-10)
    np.testing.assert_allclose(model.noise_factor()[0], reference.noise_factor()[0], atol=1e-10)


def test_the_dual_setting_over_the_threshold_names_the_fix(on_disk, small_threshold):
    with pytest.raises(ValueError, match="use setting='primal'"):
        ProbabilisticKPCA(2, feature_map=IdentityFeatures(), setting="dual").fit(on_disk)
