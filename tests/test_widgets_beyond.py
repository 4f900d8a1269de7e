"""Tests of the Part VI explorers (rkmlearn.widgets.beyond): each state's data are those of a direct
fit, the frames say what the chapters claim, and the widgets keep the frame-explorer contract."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_digits, make_moons
from sklearn.svm import SVC

from explorer_contract import assert_explorer_contract
from phone_panels import panels, pieces
from rkmlearn.kernels import RBF
from rkmlearn.models import GenerativeRKM, KernelCCA, KernelSpectralClustering
from rkmlearn.widgets.beyond import GenerativeExplorer, KernelCCAExplorer, SpectralClusteringExplorer


@pytest.fixture(scope="module")
def moons():
    X, _ = make_moons(160, noise=0.07, random_state=0)
    return X[:80], X[80:]


@pytest.fixture(scope="module")
def clustering(moons):
    return SpectralClusteringExplorer(*moons, sigmas=(0.1, 0.5), clusters=(2, 3))


def test_clustering_states_are_direct_fits(clustering, moons):
    direct = KernelSpectralClustering(3, kernel_params={"sigma": 0.5}).fit(moons[0])
    data = clustering.state_data(sigma=0.5, clusters=3)
    np.testing.assert_array_equal(data["labels"], direct.labels_)
    np.testing.assert_allclose(data["valid_scores"], direct.transform(moons[1]))
    assert data["blf"] == direct.score(moons[1])
    assert clustering.initial == dict(zip(("sigma", "clusters"), max(clustering.blf_, key=clustering.blf_.get)))


def test_clustering_contract(clustering):
    assert_explorer_contract(clustering)


def test_clustering_rejects_non_planar_data():
    with pytest.raises(ValueError, match="2 columns"):
        SpectralClusteringExplorer(np.zeros((5, 3)), np.zeros((5, 3)))


@pytest.fixture(scope="module")
def views():
    rng = np.random.default_rng(0)
    z = rng.uniform(-2, 2, size=(160, 1))
    A = np.hstack([np.sin(2 * z), rng.normal(size=(160, 1))]) + 0.3 * rng.normal(size=(160, 2))
    B = np.hstack([z**2, rng.normal(size=(160, 2))]) + 0.3 * rng.normal(size=(160, 3))
    return A[:80], B[:80], A[80:], B[80:]


@pytest.fixture(scope="module")
def cca(views):
    return KernelCCAExplorer(*views, kernels=[RBF(sigma=1.0), RBF(sigma=1.0)], kappas=(1e-6, 1.0))


def test_cca_correlations_are_direct(views, cca):
    explorer = cca
    model = KernelCCA(1, kernels=[RBF(sigma=1.0), RBF(sigma=1.0)], regularization=1.0).fit(views[0], views[1])
    e, r = model.transform(views[2], views[3])
    assert explorer.correlations_[1.0][1] == pytest.approx(np.corrcoef(e[:, 0], r[:, 0])[0, 1], rel=1e-12)
    assert explorer.correlations_[1e-6][0] > 0.999  # training correlation -> 1 as kappa -> 0
    assert_explorer_contract(explorer)


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X[:600] / 16.0, y[:600]


@pytest.fixture(scope="module")
def generative(digits):
    X, y = digits
    judge = SVC().fit(X[1::2], y[1::2])
    return GenerativeExplorer(X[::2], y[::2], judge, sigma=3.0, components=(9,), top_ks=(1, 5), n_per_label=2)


def test_generative_accuracy_is_the_judge_on_direct_samples(digits, generative):
    X, y = digits
    judge = SVC().fit(X[1::2], y[1::2])
    explorer = generative
    model = GenerativeRKM(9, kernels=[RBF(sigma=3.0), None], preimage_top_k=5, random_state=0).fit(
        [X[::2], np.eye(10)[y[::2]]])
    images = model.sample_given([None, np.eye(10)], 0, 2, random_state=0)
    np.testing.assert_allclose(explorer.images_[9, 5], images)
    assert explorer.accuracy_[9, 5] == (judge.predict(images) == np.repeat(np.arange(10), 2)).mean()
    assert_explorer_contract(explorer)


@pytest.mark.parametrize("name, count", [("clustering", 2), ("cca", 2), ("generative", 2)])
def test_a_phone_cuts_every_frame_into_whole_panels(request, name, count):
    # book/_static/rkm_book.js stacks a frame's panels on a phone, cut at white gutters; a frame
    # without a gutter scrolls sideways, and a label cut off as a narrow sliver is dropped
    explorer = request.getfixturevalue(name)
    for state in explorer.states():
        rgba = np.asarray(explorer.figure(**state).canvas.buffer_rgba())
        assert panels(rgba) is not None and len(panels(rgba)) == count, (state, pieces(rgba))
        assert pieces(rgba) == panels(rgba), (state, "a sliver between the panels", pieces(rgba))
