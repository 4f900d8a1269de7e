"""The primal level past one machine's memory: features streamed by row chunks, NumPy or Dask (issue 24)."""

from __future__ import annotations

import numpy as np
import pytest

from rkmlearn import KPCA, MultiViewKPCA
from rkmlearn import views as views_module
from rkmlearn.features import IdentityFeatures, RandomFourierFeatures

X = np.random.default_rng(0).normal(size=(1500, 5)) + 3.0  # a mean far from 0: centring must cancel no digits
RFF = RandomFourierFeatures(sigma=2.0, n_features=200, random_state=0)


@pytest.fixture
def stream(monkeypatch):
    """Stream every explicit view, in chunks of 100 rows of 200 features."""
    monkeypatch.setattr(views_module, "STREAM_BYTES", 0)
    monkeypatch.setattr(views_module, "CHUNK_BYTES", 8 * 200 * 100)


def _fit_kpca(data):
    return KPCA(4, setting="primal", feature_map=RFF).fit(data)


def test_streamed_numpy_fit_equals_the_in_memory_fit(stream, monkeypatch):
    import tracemalloc

    streamed = _fit_kpca(X)
    assert streamed.views_[0].streamed_
    monkeypatch.setattr(views_module, "STREAM_BYTES", 2**28)
    whole = _fit_kpca(X)
    assert not whole.views_[0].streamed_
    np.testing.assert_allclose(streamed.eigenvalues_, whole.eigenvalues_, rtol=1e-13)
    np.testing.assert_allclose(streamed.H_, whole.H_, atol=1e-12)
    np.testing.assert_allclose(streamed.W_, whole.W_, atol=1e-12)
    np.testing.assert_allclose(streamed.transform(X[:40]), whole.transform(X[:40]), atol=1e-12)
    np.testing.assert_allclose(streamed.views_[0].centerer_.row_means_, whole.views_[0].centerer_.row_means_, rtol=1e-12)
    monkeypatch.setattr(views_module, "STREAM_BYTES", 0)
    X_large = np.random.default_rng(1).normal(size=(8000, 5))
    tracemalloc.start()
    _fit_kpca(X_large)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 0.25 * X_large.shape[0] * 200 * 8  # never the n x D features (12.8 MB): a few D^2 + chunks
    with pytest.raises(ValueError, match="never stored"):
        streamed.views_[0].centred_features()


def test_streamed_multiview_primal_fit(stream, monkeypatch):
    Xs = [X, X[:, :2] ** 2]
    model = MultiViewKPCA(3, setting="primal", feature_maps=[RFF, IdentityFeatures()])
    streamed = model.fit(Xs)
    H = streamed.H_.copy()
    scores = [E.copy() for E in streamed._scores]
    monkeypatch.setattr(views_module, "STREAM_BYTES", 2**28)
    whole = MultiViewKPCA(3, setting="primal", feature_maps=[RFF, IdentityFeatures()]).fit(Xs)
    np.testing.assert_allclose(H, whole.H_, atol=1e-11)
    for E, F in zip(scores, whole._scores):
        np.testing.assert_allclose(E, F, atol=1e-10 * np.abs(F).max())


def test_transform_of_a_large_X_streams(monkeypatch):
    model = _fit_kpca(X)
    expected = model.transform(X)
    monkeypatch.setattr(views_module, "CHUNK_BYTES", 8 * 200 * 100)
    from rkmlearn.models import latent as multiview

    monkeypatch.setattr(multiview, "STREAM_BYTES", 0)
    np.testing.assert_allclose(model.transform(X), expected, atol=1e-13)


def test_dask_array_on_a_loopback_distributed_cluster():
    da = pytest.importorskip("dask.array")
    distributed = pytest.importorskip("distributed")
    whole = _fit_kpca(X)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        lazy = da.from_array(X, chunks=(400, 5))
        model = _fit_kpca(lazy)
        assert model.views_[0].streamed_
        np.testing.assert_allclose(model.eigenvalues_, whole.eigenvalues_, rtol=1e-13)
        np.testing.assert_allclose(model.H_, whole.H_, atol=1e-12)
        out = model.transform(lazy)
        assert isinstance(out, da.Array)  # lazy, block by block
        np.testing.assert_allclose(out.compute(), whole.transform(X), atol=1e-12)


def test_a_dask_kernel_view_outside_a_matrix_free_level_needs_an_explicit_feature_map():
    # a dual level solves a Dask input matrix-free (tests/test_matrix_free.py); a view alone cannot hold its Gram matrix
    da = pytest.importorskip("dask.array")
    from rkmlearn import View

    with pytest.raises(ValueError, match="Dask array: only an explicit feature map"):
        View(kernel="rbf").fit(da.from_array(X, chunks=(400, 5)))


def test_chunk_statistics_form_only_one_triangle_once_per_chunk(stream, monkeypatch):
    """Each chunk's features are computed once for the statistics, and its D x D part is one
    triangle by syrk (mirrored once after the reduction, not per chunk); the covariance is the
    same to rounding."""
    from rkmlearn import level
    from rkmlearn.views import View

    view = View(feature_map=RFF).fit(X)
    shift = view.chunk_features(X[:100]).mean(axis=0)
    stats, _ = level._chunk_stats([view], [X[:100]], shift)
    lower = stats[1 + 200:].reshape(200, 200)
    Phi = view.chunk_features(X[:100]) - shift
    assert np.all(np.triu(lower, 1) == 0.0)
    np.testing.assert_allclose(np.tril(lower), np.tril(Phi.T @ Phi), rtol=1e-13, atol=1e-13 * np.abs(lower).max())
    calls = []
    original = View.chunk_features

    def counting(self, Xc):
        calls.append(Xc.shape[0])
        return original(self, Xc)

    monkeypatch.setattr(View, "chunk_features", counting)
    _fit_kpca(X)
    assert sum(calls) <= 2 * X.shape[0] + 100 + 1  # statistics pass + outputs pass (+ the shift's chunk, a shape probe)
