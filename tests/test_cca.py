"""Kernel CCA (rkmlearn.models.cca): dual against a dense solve of the dual pencil, primal = dual on
explicit features, and the classical canonical correlations as the regularisation vanishes."""

import numpy as np
import pytest
import scipy.linalg
from sklearn.utils.estimator_checks import check_estimator

from rkmlearn.features import IdentityFeatures
from rkmlearn.kernels import RBF
from rkmlearn.models.cca import KernelCCA


def _two_views(n=150, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, 2))
    X = np.hstack([z, rng.normal(size=(n, 3))]) @ rng.normal(size=(5, 5))
    Y = np.hstack([np.sin(z[:, :1]), rng.normal(size=(n, 2)), z[:, 1:] ** 2])
    return X, Y


def test_dual_agrees_with_dense_solve_of_the_dual_pencil():
    X, Y = _two_views()
    n, kappa = len(X), 0.1
    model = KernelCCA(3, kernels=[RBF(sigma=2.0), RBF(sigma=1.0)], regularization=kappa).fit(X, Y)
    O1, O2 = model.views_[0].centred_gram(), model.views_[1].centred_gram()
    Z, I = np.zeros((n, n)), np.eye(n)
    values = scipy.linalg.eigvals(np.block([[Z, O2], [O1, Z]]),
                                  scipy.linalg.block_diag(O1 + kappa * I, O2 + kappa * I))
    np.testing.assert_allclose(model.correlations_, np.sort(values.real)[::-1][:3], rtol=1e-9)
    alpha, beta = model.dual_coef_
    rho = model.correlations_
    np.testing.assert_allclose(O2 @ beta, (O1 + kappa * I) @ alpha * rho, atol=1e-12)
    np.testing.assert_allclose(O1 @ alpha, (O2 + kappa * I) @ beta * rho, atol=1e-12)
    np.testing.assert_allclose(model.transform(X), model.x_scores_, atol=1e-12)
    np.testing.assert_allclose(O1 @ alpha, model.x_scores_, atol=1e-12)


def test_linear_kernels_tend_to_classical_cca():
    X, Y = _two_views()
    model = KernelCCA(3, kernels=[None, None], regularization=1e-9).fit(X, Y)
    Xc, Yc = X - X.mean(axis=0), Y - Y.mean(axis=0)
    Lx, Ly = np.linalg.cholesky(Xc.T @ Xc), np.linalg.cholesky(Yc.T @ Yc)
    whitened = scipy.linalg.solve_triangular(Ly, scipy.linalg.solve_triangular(Lx, Xc.T @ Yc, lower=True).T, lower=True)
    np.testing.assert_allclose(model.correlations_, np.linalg.svd(whitened, compute_uv=False)[:3], rtol=1e-7)
    # the variates are correlated exactly as claimed (kappa ~ 0)
    for k in range(3):
        assert np.corrcoef(model.x_scores_[:, k], model.y_scores_[:, k])[0, 1] == pytest.approx(model.correlations_[k], rel=1e-6)


def test_primal_equals_dual_on_explicit_features():
    X, Y = _two_views()
    primal = KernelCCA(3, feature_maps=[IdentityFeatures(), IdentityFeatures()], setting="primal",
                       regularization=0.1).fit(X, Y)
    dual = KernelCCA(3, kernels=[None, None], regularization=0.1).fit(X, Y)
    np.testing.assert_allclose(primal.correlations_, dual.correlations_, rtol=1e-12)
    Xn, Yn = _two_views(20, seed=1)
    for a, b in zip(primal.transform(Xn, Yn), dual.transform(Xn, Yn)):
        np.testing.assert_allclose(a, b, atol=1e-9)


@pytest.mark.parametrize("params, message", [({"regularization": 0.0}, "regularization"),
                                             ({"regularization": -1.0}, "regularization"),
                                             ({"n_components": 9, "kernels": [None, None]}, "n_components=9"),
                                             ({"setting": "both"}, "setting")])
def test_bad_parameters_named(params, message):
    X, Y = _two_views(40)
    with pytest.raises(ValueError, match=message):
        KernelCCA(**params).fit(X, Y)


def test_mismatched_samples_named():
    X, Y = _two_views(40)
    with pytest.raises(ValueError, match="same number of samples"):
        KernelCCA().fit(X, Y[:30])


def test_scikit_learn_estimator_checks():
    # one pair, as scikit-learn checks its own CCA: some checks' targets take two values (rank 1)
    check_estimator(KernelCCA(n_components=1))
