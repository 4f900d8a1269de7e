"""Tests of :class:`rkmlearn.widgets.ppca.PPCAExplorer` (Chapter 7, *Kernel sampling and pre-images*).

The explorer is built once on a small two-dimensional set; the tests move its sliders the way a
reader would and check that the plotted points are those of direct fits of
:class:`~rkmlearn.probabilistic.ProbabilisticKPCA` with the same ``q`` and ``sigma^2``.
"""
from __future__ import annotations

import base64

import matplotlib

matplotlib.use("Agg")

import ipywidgets as widgets  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from rkmlearn.kpca import KPCA  # noqa: E402
from rkmlearn.preimage import kernel_smoother  # noqa: E402
from rkmlearn.probabilistic import ProbabilisticKPCA  # noqa: E402
from rkmlearn.widgets.ppca import PPCAExplorer  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SIGMA = 2.0


@pytest.fixture(scope="module")
def X():
    rng = np.random.default_rng(0)
    t = np.sort(rng.uniform(0, 3 * np.pi, 20))
    r = 5 * (0.5 + t / (3 * np.pi))
    return np.c_[r * np.cos(t), r * np.sin(t)] + rng.normal(scale=0.3, size=(20, 2))


@pytest.fixture(scope="module")
def explorer(X):
    return PPCAExplorer(X, sigma=SIGMA, max_components=6, n_draws=25, components=2,
                        random_state=3)


def _shown_png(explorer) -> bytes:
    (output,) = explorer.output.outputs
    return base64.b64decode(output["data"]["image/png"])


def _points(line):
    x, y = line.get_data()
    return np.column_stack([np.asarray(x), np.asarray(y)])


def test_structure_and_initial_state(explorer):
    assert isinstance(explorer.widget, widgets.VBox)
    assert explorer.controls == {"components": explorer.components_slider,
                                 "sigma2_fraction": explorer.fraction_slider}
    assert explorer.components_slider.min == 1 and explorer.components_slider.max == 6
    assert explorer.components_slider.value == 2
    assert explorer.fraction_slider.min == 0.0 and explorer.fraction_slider.max == 1.0
    # default fraction: the ML value of the initial q, rounded to the slider step
    assert explorer.fraction_slider.value == pytest.approx(round(explorer._ml_fraction(2), 2))
    assert _shown_png(explorer).startswith(PNG_SIGNATURE) and _shown_png(explorer) == explorer.png_
    assert repr(explorer.widget) == "PPCAExplorer(n_samples=20, sigma=2.0, max_components=6, n_draws=25)"


def test_ml_noise_and_explained_variance_equal_direct_fits(X, explorer):
    for q in range(1, 7):
        model = ProbabilisticKPCA(q, kernel_params={"sigma": SIGMA}).fit(X)
        np.testing.assert_allclose(explorer.sigma2_ml_[q - 1], model.sigma2_, rtol=1e-10)
        np.testing.assert_allclose(explorer.explained_variance_[q - 1],
                                   model.explained_variance_ratio_.sum(), rtol=1e-12)
        assert 0 < explorer._ml_fraction(q) <= 1


def test_plotted_points_equal_direct_fits(X):
    ex = PPCAExplorer(X, sigma=SIGMA, max_components=6, n_draws=25, random_state=3)
    for q, fraction in [(1, 0.9), (4, 0.3), (6, 1.0), (2, 0.05)]:
        png_before = ex.png_
        ex.update(components=q, sigma2_fraction=fraction)
        model = ProbabilisticKPCA(q, kernel_params={"sigma": SIGMA}).fit(X)
        sigma2 = fraction * model.eigenvalues_[-1] / X.shape[0]
        assert ex.sigma2_ == pytest.approx(sigma2, rel=1e-12)
        direct = ProbabilisticKPCA(q, kernel_params={"sigma": SIGMA}, sigma2=sigma2).fit(X)
        np.testing.assert_allclose(_points(ex.ppca_line), direct.reconstruct(X, space="input"),
                                   atol=1e-10)
        # the model's own sampler fed with the explorer's fixed draws
        expected = direct._sample_kernel(ex.U_latent_[:, :q], ex.U_noise_, "input", None)
        np.testing.assert_allclose(_points(ex.sample_line), expected, atol=1e-10)
        assert ex.png_ != png_before and ex.png_ == _shown_png(ex)
        ml = ex.ml_line.get_xdata()
        np.testing.assert_allclose(ml, model.sigma2_ / (model.eigenvalues_[-1] / X.shape[0]))


def test_kpca_points_are_kernel_pca_reconstructions(X, explorer):
    explorer.update(components=3, sigma2_fraction=0.5)
    kpca = KPCA(3, kernel_params={"sigma": SIGMA}).fit(X)
    h = kpca.transform(X)
    k_rec = (h * kpca.eigenvalues_) @ kpca.H_.T
    offsets = kpca.centerer_.row_means_ - kpca.centerer_.grand_mean_
    expected = kernel_smoother(k_rec, X, kpca.centerer_, mean_term=(h @ kpca.H_.T) @ offsets)
    np.testing.assert_allclose(_points(explorer.kpca_line), expected, atol=1e-9)
    # at fraction 0 the PPCA reconstruction is the KPCA one and the samples lose their noise
    explorer.update(sigma2_fraction=0.0)
    np.testing.assert_allclose(_points(explorer.ppca_line), expected, atol=1e-9)
    model = ProbabilisticKPCA(3, kernel_params={"sigma": SIGMA}).fit(X)
    noiseless = model.sample(latent=explorer.U_latent_[:, :3], space="input")
    np.testing.assert_allclose(_points(explorer.sample_line), noiseless, atol=1e-10)


def test_noise_slider_moves_only_what_depends_on_it(explorer):
    explorer.update(components=2, sigma2_fraction=0.2)
    kpca_before = _points(explorer.kpca_line)
    samples_before = _points(explorer.sample_line)
    ppca_before = _points(explorer.ppca_line)
    explorer.update(sigma2_fraction=0.9)
    np.testing.assert_array_equal(_points(explorer.kpca_line), kpca_before)
    assert np.abs(_points(explorer.sample_line) - samples_before).max() > 1e-3
    assert np.abs(_points(explorer.ppca_line) - ppca_before).max() > 1e-3
    np.testing.assert_array_equal(explorer.fraction_marker.get_xdata(), [0.9])


def test_bad_arguments_raise(X):
    with pytest.raises(ValueError, match="X must have 2 columns"):
        PPCAExplorer(np.ones((10, 3)))
    with pytest.raises(ValueError, match="components"):
        PPCAExplorer(X, max_components=4, components=5)
    with pytest.raises(ValueError, match="sigma2_fraction"):
        PPCAExplorer(X, max_components=4, sigma2_fraction=1.5)
    with pytest.raises(ValueError, match="sigma"):
        PPCAExplorer(X, sigma=-1.0)


def test_update_rejects_out_of_range(explorer):
    with pytest.raises(ValueError, match="sigma2_fraction"):
        explorer.update(sigma2_fraction=1.2)
    with pytest.raises(ValueError, match="components"):
        explorer.update(components=7)


def test_fast_update_matches_full_render(X):
    ex = PPCAExplorer(X, sigma=SIGMA, max_components=6, n_draws=25, components=2,
                      sigma2_fraction=0.5, random_state=3)
    ex.update(components=5, sigma2_fraction=0.25)
    assert ex.last_render_ == "fast"
    reference = PPCAExplorer(X, sigma=SIGMA, max_components=6, n_draws=25, components=5,
                             sigma2_fraction=0.25, random_state=3)
    reference.fast_updates = False
    reference.update(components=5, sigma2_fraction=0.25)
    assert reference.last_render_ == "full"
    assert ex.png_ == reference.png_
