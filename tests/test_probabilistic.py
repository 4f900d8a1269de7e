"""Tests of rkmlearn.models.probabilistic.ProbabilisticKPCA: primal = dual, the ML solution, sampling,
the sigma^2 -> 0 limit (kernel PCA), the likelihood and bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.preprocessing import KernelCenterer
from sklearn.utils.estimator_checks import parametrize_with_checks

from rkmlearn.features import IdentityFeatures, RandomFourierFeatures
from rkmlearn import KPCA
from rkmlearn.solvers.eigen import rank_tolerance
from rkmlearn.preimage import kernel_smoother
from rkmlearn import ProbabilisticKPCA
from rkmlearn.solvers.linear import pivoted_cholesky

SIGMA = 1.5
N = 60


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N, 4))
    X[:, 0] *= 2.0  # unequal spread: well separated eigenvalues
    X_new = rng.normal(size=(15, 4))
    return X, X_new


def centred_rbf_gram(X):
    """K_c computed independently of rkmlearn (scikit-learn's kernel and centerer)."""
    return KernelCenterer().fit_transform(rbf_kernel(X, gamma=1.0 / (2.0 * SIGMA**2)))


def full_spectrum(K_c):
    values, vectors = np.linalg.eigh(K_c)
    return values[::-1], vectors[:, ::-1]


def match_signs(A, B):
    """B with each column's sign chosen to agree with A's column."""
    return B * np.where(np.sum(A * B, axis=0) < 0, -1.0, 1.0)


def rff(D):
    return RandomFourierFeatures(sigma=SIGMA, n_features=D, random_state=0)


# ----------------------------------------------------------------------------------------------
# scikit-learn's estimator checks
# ----------------------------------------------------------------------------------------------
def _expected_failed_checks(estimator):
    if estimator.solver == "eig":
        # max_iter budgets the Stiefel solver only: an eigendecomposition has no iteration count, so
        # n_iter_ is None (as for KPCA; scikit-learn exempts its own KernelPCA the same way).
        return {"check_transformer_n_iter": "n_iter_ is None for solver='eig' (no iterations)"}
    return {}


@parametrize_with_checks(
    [
        ProbabilisticKPCA(),
        ProbabilisticKPCA(sigma2=1e-4),
        ProbabilisticKPCA(setting="primal", feature_map=RandomFourierFeatures(n_features=20, random_state=0)),
        ProbabilisticKPCA(solver="stiefel", random_state=0),
    ],
    expected_failed_checks=_expected_failed_checks,
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


# ----------------------------------------------------------------------------------------------
# primal = dual on the same explicit features
# ----------------------------------------------------------------------------------------------
FEATURE_MAPS = [IdentityFeatures(), rff(30), rff(60), rff(100)]  # d = 4, 30 < N, N, 100 > N


@pytest.mark.parametrize("fmap", FEATURE_MAPS, ids=["identity", "rff30", "rff60", "rff100"])
@pytest.mark.parametrize("sigma2", ["ml", 1e-3])
def test_primal_equals_dual_on_the_same_features(data, fmap, sigma2):
    X, X_new = data
    primal = ProbabilisticKPCA(3, feature_map=fmap, setting="primal", sigma2=sigma2).fit(X)
    dual = ProbabilisticKPCA(3, feature_map=fmap, setting="dual", sigma2=sigma2).fit(X)
    d = primal.W_.shape[0]
    assert primal.rank_ == dual.rank_ == min(d, N - 1)
    assert primal.sigma2_ == pytest.approx(dual.sigma2_, rel=1e-8)
    np.testing.assert_allclose(primal.eigenvalues_, dual.eigenvalues_, rtol=1e-10)
    scale = np.abs(primal.W_).max() ** 2
    np.testing.assert_allclose(primal.W_ @ primal.W_.T, dual.W_ @ dual.W_.T, atol=1e-8 * scale)
    # W = Phi_c A (eq. 12), and with the shared sign convention even W and A agree
    Phi_c = primal.view_.centred_features()
    np.testing.assert_allclose(Phi_c.T @ dual.A_, primal.W_, atol=1e-8 * np.abs(primal.W_).max())
    np.testing.assert_allclose(primal.A_, dual.A_, atol=1e-8 * np.abs(dual.A_).max())
    np.testing.assert_allclose(primal.transform(X_new), dual.transform(X_new), atol=1e-8)
    for space in ("kernel", "feature", "input"):
        np.testing.assert_allclose(
            primal.reconstruct(X_new, space=space), dual.reconstruct(X_new, space=space), atol=1e-8
        )
    np.testing.assert_allclose(primal.score_samples(X_new), dual.score_samples(X_new), rtol=1e-8)


def test_primal_feature_reconstruction_is_eq_10(data):
    """phi_MAP = W (W^T W + sigma^2 I)^{-1} W^T (phi - mu) + mu, with the general formula."""
    X, X_new = data
    model = ProbabilisticKPCA(2, feature_map=rff(30), setting="primal").fit(X)
    W, s2 = model.W_, model.sigma2_
    phi_c = model.feature_map_.transform(X_new) - model.feature_map_.transform(X).mean(axis=0)
    M = W.T @ W + s2 * np.eye(2)
    expected = np.linalg.solve(M, W.T @ phi_c.T).T @ W.T + model.feature_mean_
    np.testing.assert_allclose(model.reconstruct(X_new), expected, atol=1e-10)


# ----------------------------------------------------------------------------------------------
# the maximum-likelihood solution in the dual
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("sigma2", ["ml", 1e-3])
def test_identity_behind_eq_20(data, sigma2):
    X, _ = data
    model = ProbabilisticKPCA(4, kernel_params={"sigma": SIGMA}, sigma2=sigma2).fit(X)
    K_c = centred_rbf_gram(X)
    M = model.A_.T @ K_c @ model.A_ + model.sigma2_ * np.eye(4)
    np.testing.assert_allclose(M, np.diag(model.eigenvalues_ / N), atol=1e-10)


def test_ml_solution_matches_full_eigendecomposition(data):
    X, _ = data
    q = 3
    model = ProbabilisticKPCA(q, kernel_params={"sigma": SIGMA}).fit(X)
    values, vectors = full_spectrum(centred_rbf_gram(X))
    r = int(np.sum(values > rank_tolerance(N) * values[0]))
    assert model.rank_ == r == N - 1
    sigma2 = values[q:r].sum() / (N * (r - q))  # eq. 6 with dim(H_E) = r
    assert model.sigma2_ == pytest.approx(sigma2, rel=1e-10)
    assert model.sigma2_ <= values[q - 1] / N
    np.testing.assert_allclose(model.eigenvalues_, values[:q], rtol=1e-12)
    A = vectors[:, :q] * np.sqrt(1.0 / N - sigma2 / values[:q])
    np.testing.assert_allclose(model.A_, match_signs(model.A_, A), atol=1e-10)
    np.testing.assert_allclose(model.total_variance_, values.sum() / N, rtol=1e-12)
    np.testing.assert_allclose(model.explained_variance_ratio_, values[:q] / values.sum(), rtol=1e-10)


def test_rank_of_low_rank_data_counts_only_nonzero_directions():
    """dim(H_E) is the rank of K_c: 2 for data on a plane in 5-D, not N - 1 or d."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2)) @ rng.normal(size=(2, 5))
    model = ProbabilisticKPCA(1, kernel="linear").fit(X)
    assert model.rank_ == 2
    values = np.linalg.eigvalsh(KernelCenterer().fit_transform(X @ X.T))[::-1]
    assert model.sigma2_ == pytest.approx(values[1] / 40, rel=1e-10)  # one discarded direction


def test_pivoted_cholesky_factor_and_rank():
    rng = np.random.default_rng(2)
    Z = rng.normal(size=(30, 7))
    S = Z @ Z.T
    F, pivots, rank = pivoted_cholesky(S, np.linalg.eigvalsh(S)[-1])
    assert rank == 7 and F.shape == (30, 7)
    np.testing.assert_allclose(F @ F.T, S, atol=1e-12 * np.abs(S).max())
    np.testing.assert_array_equal(np.triu(F[pivots], 1), 0.0)


def test_explained_variance_grows_and_sigma2_shrinks_with_q(data):
    X, _ = data
    models = [ProbabilisticKPCA(q, kernel_params={"sigma": SIGMA}).fit(X) for q in range(1, 9)]
    explained = [m.explained_variance_ratio_.sum() for m in models]
    sigma2 = [m.sigma2_ for m in models]
    assert np.all(np.diff(explained) >= 0) and explained[-1] > explained[0]
    assert np.all(np.diff(sigma2) <= 0) and sigma2[-1] < sigma2[0]


def test_sigma2_ml_maximises_the_training_likelihood(data):
    X, _ = data
    q = 3
    ml = ProbabilisticKPCA(q, kernel_params={"sigma": SIGMA}).fit(X)
    r, s2, lam = ml.rank_, ml.sigma2_, ml.eigenvalues_
    # eq. 42 at the optimum: tail / (N sigma^2) = r - q
    closed_form = -0.5 * N * (r * np.log(2 * np.pi) + np.sum(np.log(lam / N)) + (r - q) * np.log(s2) + r)
    assert ml.log_likelihood(X) == pytest.approx(closed_form, rel=1e-8)
    bound = lam[-1] / N
    for factor in (0.5, 0.9, 1.1, 1.5):
        other = ProbabilisticKPCA(q, kernel_params={"sigma": SIGMA}, sigma2=min(factor * s2, bound)).fit(X)
        assert other.log_likelihood(X) < ml.log_likelihood(X)


# ----------------------------------------------------------------------------------------------
# latent posterior and MAP
# ----------------------------------------------------------------------------------------------
def test_latent_posterior_is_prop_8_with_general_formula(data):
    X, X_new = data
    model = ProbabilisticKPCA(3, kernel_params={"sigma": SIGMA}).fit(X)
    K_c = centred_rbf_gram(X)
    gamma = 1.0 / (2.0 * SIGMA**2)
    k_c = KernelCenterer().fit(rbf_kernel(X, gamma=gamma)).transform(rbf_kernel(X_new, X, gamma=gamma))
    A, s2 = model.A_, model.sigma2_
    M = A.T @ K_c @ A + s2 * np.eye(3)
    mean, cov = model.latent_posterior(X_new)
    np.testing.assert_allclose(mean, np.linalg.solve(M, A.T @ k_c.T).T, atol=1e-10)
    np.testing.assert_allclose(cov, s2 * np.linalg.inv(M), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(model.transform(X_new), mean)


def test_transform_of_training_points_equals_fit_transform(data):
    X, _ = data
    model = ProbabilisticKPCA(2, kernel_params={"sigma": SIGMA})
    np.testing.assert_allclose(model.fit_transform(X), model.transform(X), atol=1e-12)


# ----------------------------------------------------------------------------------------------
# the sigma^2 -> 0 limit is kernel PCA
# ----------------------------------------------------------------------------------------------
def test_vanishing_noise_is_kernel_pca_reconstruction(data):
    X, X_new = data
    kpca = KPCA(3, kernel_params={"sigma": SIGMA}).fit(X)
    model = ProbabilisticKPCA(3, kernel_params={"sigma": SIGMA}, sigma2=1e-12).fit(X)
    h = kpca.transform(X_new)
    kpca_kernel = (h * kpca.eigenvalues_) @ kpca.H_.T  # E_q E_q^T k_c
    np.testing.assert_allclose(model.reconstruct(X_new, space="kernel"), kpca_kernel, atol=1e-6)
    # input space: KPCA's phi_c = Phi_c^T alpha with alpha = H h
    alpha = h @ kpca.H_.T
    offsets = kpca.centerer_.row_means_ - kpca.centerer_.grand_mean_
    kpca_input = kernel_smoother(kpca_kernel, X, kpca.centerer_, mean_term=alpha @ offsets)
    np.testing.assert_allclose(model.reconstruct(X_new, space="input"), kpca_input, atol=1e-6)


# ----------------------------------------------------------------------------------------------
# sampling
# ----------------------------------------------------------------------------------------------
def paper_B(K_c, q, sigma2):
    """B = E diag(lambda_p / sqrt(N) for p <= q, sigma sqrt(lambda_p) for p > q), by full eigh."""
    values, vectors = full_spectrum(K_c)
    n = K_c.shape[0]
    scale = np.where(np.arange(n) < q, values / np.sqrt(n), np.sqrt(sigma2 * np.clip(values, 0.0, None)))
    return vectors * scale


@pytest.fixture(scope="module")
def small_dual():
    X = np.random.default_rng(5).normal(size=(30, 3))
    return X, ProbabilisticKPCA(2, kernel_params={"sigma": SIGMA}, random_state=0).fit(X)


def test_kernel_covariance_is_BBt(small_dual):
    X, model = small_dual
    K_c = centred_rbf_gram(X)
    BBt = (B := paper_B(K_c, 2, model.sigma2_)) @ B.T
    expected = K_c @ model.A_ @ model.A_.T @ K_c + model.sigma2_ * K_c
    np.testing.assert_allclose(BBt, expected, atol=1e-12)
    np.testing.assert_allclose(model.kernel_covariance(), BBt, atol=1e-12)


def test_dual_samples_have_covariance_BBt(small_dual):
    X, model = small_dual
    B = paper_B(centred_rbf_gram(X), 2, model.sigma2_)
    samples = model.sample(20_000, random_state=0)
    assert samples.shape == (20_000, 30)
    empirical = samples.T @ samples / len(samples)  # the mean is 0
    assert np.linalg.norm(empirical - B @ B.T) <= 0.05 * np.linalg.norm(B @ B.T)


def test_sampling_is_deterministic_given_random_state(small_dual):
    _, model = small_dual
    np.testing.assert_array_equal(model.sample(5), model.sample(5))  # estimator's seed
    np.testing.assert_array_equal(model.sample(5, random_state=3), model.sample(5, random_state=3))
    gen = model.sample(5, random_state=np.random.default_rng(3))
    assert gen.shape == (5, 30)
    assert not np.allclose(model.sample(5, random_state=3), model.sample(5, random_state=4))


def test_latent_grid_samples_are_the_first_columns_of_B(small_dual):
    """Figure 4c: u_q on a grid, the other coordinates 0: k_c = B[:, :q] u_q."""
    X, model = small_dual
    grid = np.array(np.meshgrid(np.linspace(-1, 1, 4), np.linspace(-1, 1, 3))).reshape(2, -1).T
    B = paper_B(centred_rbf_gram(X), 2, model.sigma2_)
    expected = grid @ match_signs(model.E_, B[:, :2]).T
    np.testing.assert_allclose(model.sample(latent=grid), expected, atol=1e-10)
    np.testing.assert_allclose(model.sample(latent=grid[0]), expected[:1], atol=1e-10)
    # input space: the kernel smoother with mu^T phi_c of phi_c = Phi_c^T E_q u / sqrt(N)
    alpha = grid @ model.E_.T / np.sqrt(30)
    offsets = model.centerer_.row_means_ - model.centerer_.grand_mean_
    np.testing.assert_allclose(
        model.sample(latent=grid, space="input"),
        kernel_smoother(expected, X, model.centerer_, mean_term=alpha @ offsets),
        atol=1e-10,
    )


@pytest.mark.parametrize("setting", ["dual", "primal"])
def test_sample_spaces_describe_the_same_feature_vectors(data, setting):
    """With explicit features, the kernel, feature and input outputs of one draw agree."""
    X, _ = data
    model = ProbabilisticKPCA(3, feature_map=rff(100), setting=setting).fit(X)
    phi = model.sample(6, space="feature", random_state=1)
    k_c = model.sample(6, space="kernel", random_state=1)
    Phi = model.feature_map_.transform(X)
    mu = Phi.mean(axis=0)
    np.testing.assert_allclose(k_c, (phi - mu) @ (Phi - mu).T, atol=1e-10)
    np.testing.assert_allclose(
        model.sample(6, space="input", random_state=1),
        kernel_smoother(k_c, X, model.centerer_, mean_term=(phi - mu) @ mu),
        atol=1e-10,
    )


def test_implicit_kernel_route_matches_explicit_features(data):
    """kernel='linear' (pivoted Cholesky of K_c, kernel rows) = IdentityFeatures (feature vectors)."""
    X, X_new = data
    implicit = ProbabilisticKPCA(2, kernel="linear").fit(X)
    explicit = ProbabilisticKPCA(2, feature_map=IdentityFeatures()).fit(X)
    assert implicit.rank_ == explicit.rank_ == 4
    assert implicit.sigma2_ == pytest.approx(explicit.sigma2_, rel=1e-10)
    np.testing.assert_allclose(implicit.score_samples(X_new), explicit.score_samples(X_new), rtol=1e-8)
    np.testing.assert_allclose(
        implicit.reconstruct(X_new, space="input"), explicit.reconstruct(X_new, space="input"), atol=1e-10
    )
    grid = np.array([[1.0, -0.5], [0.0, 2.0]])
    np.testing.assert_allclose(
        implicit.sample(latent=grid), explicit.sample(latent=grid, space="kernel"), atol=1e-10
    )


def test_implicit_kernel_input_samples_use_the_exact_mean_term(data):
    """Noise part included: the pre-image uses mu^T phi_c of the phi_c whose kernel row was drawn.

    With the linear kernel phi_c is recoverable from k_c = X_c phi_c (X_c has full column rank).
    """
    X = data[0] + 5.0  # away from the origin: positive linear-kernel weights, no fallback
    model = ProbabilisticKPCA(2, kernel="linear").fit(X)
    k_c = model.sample(5, space="kernel", random_state=1)
    mu = X.mean(axis=0)
    phi_c = np.linalg.lstsq(X - mu, k_c.T, rcond=None)[0].T
    np.testing.assert_allclose(phi_c @ (X - mu).T, k_c, atol=1e-9)
    expected = kernel_smoother(k_c, X, model.centerer_, mean_term=phi_c @ mu)
    np.testing.assert_allclose(model.sample(5, space="input", random_state=1), expected, atol=1e-9)


@pytest.mark.parametrize("D", [20, 60, 100])
def test_primal_samples_follow_prop_2(data, D):
    """phi ~ N(mu, W W^T + sigma^2 I_{H_E}); for d > N, H_E is the span of the data."""
    X, _ = data
    model = ProbabilisticKPCA(2, feature_map=rff(D), setting="primal").fit(X)
    Phi_c = model.feature_map_.transform(X)
    Phi_c -= Phi_c.mean(axis=0)
    basis = np.linalg.svd(Phi_c.T, full_matrices=False)[0][:, : model.rank_]
    projector = basis @ basis.T
    assert model.rank_ == min(D, N - 1)
    samples = model.sample(20_000, random_state=0) - model.feature_mean_
    np.testing.assert_allclose(samples @ projector, samples, atol=1e-10)  # inside H_E
    covariance = model.W_ @ model.W_.T + model.sigma2_ * projector
    empirical = samples.T @ samples / len(samples)
    assert np.linalg.norm(empirical - covariance) <= 0.05 * np.linalg.norm(covariance)


# ----------------------------------------------------------------------------------------------
# other outputs
# ----------------------------------------------------------------------------------------------
def test_decode_spaces_and_reconstruction_shapes(data):
    X, X_new = data
    model = ProbabilisticKPCA(2, kernel_params={"sigma": SIGMA}).fit(X)
    H = model.transform(X_new)
    np.testing.assert_allclose(model.decode(H), H @ (centred_rbf_gram(X) @ model.A_).T, atol=1e-10)
    assert model.reconstruct(X_new, space="input").shape == (15, 4)
    nearest = model.reconstruct(X_new, space="input", top_k=1)
    assert all(any(np.array_equal(row, x) for x in X) for row in nearest)
    assert list(model.get_feature_names_out()) == ["probabilistickpca0", "probabilistickpca1"]


def test_model_does_not_alias_caller_data(data):
    X, X_new = data
    X_own = X.copy()
    model = ProbabilisticKPCA(2, kernel_params={"sigma": SIGMA}).fit(X_own)
    before = model.reconstruct(X_new, space="input")
    X_own[:] = 0.0
    np.testing.assert_array_equal(model.reconstruct(X_new, space="input"), before)


@settings(max_examples=25, deadline=None)
@given(
    n_samples=st.integers(8, 25),
    n_components=st.integers(1, 4),
    sigma=st.floats(0.5, 3.0),
    seed=st.integers(0, 10_000),
)
def test_hypothesis_ml_solution_properties(n_samples, n_components, sigma, seed):
    X = np.random.default_rng(seed).normal(size=(n_samples, 3))
    model = ProbabilisticKPCA(n_components, kernel_params={"sigma": sigma}).fit(X)
    K_c = KernelCenterer().fit_transform(rbf_kernel(X, gamma=1.0 / (2.0 * sigma**2)))
    lam = model.eigenvalues_
    assert 0.0 < model.sigma2_ <= lam[-1] / n_samples
    assert n_components < model.rank_ <= n_samples - 1
    M = model.A_.T @ K_c @ model.A_ + model.sigma2_ * np.eye(n_components)
    np.testing.assert_allclose(M, np.diag(lam / n_samples), atol=1e-10 * lam[0])


# ----------------------------------------------------------------------------------------------
# bad input
# ----------------------------------------------------------------------------------------------
GOOD = np.random.default_rng(3).normal(size=(20, 3))


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(sigma2=0.0), "sigma2 must be in"),
        (dict(sigma2=-1.0), "sigma2 must be in"),
        (dict(sigma2=np.nan), "sigma2 must be a finite"),
        (dict(sigma2=np.inf), "sigma2 must be a finite"),
        (dict(sigma2="auto"), "sigma2='auto' is not supported"),
        (dict(sigma2=[0.1]), "sigma2 must be a real"),
        (dict(sigma2=10.0), r"sigma2=10 exceeds the bound sigma2 <= lambda_q / N"),
        (dict(setting="primal"), "feature_map is required"),
        (dict(setting="both"), "setting"),
        (dict(eigen_solver="lobpcg"), "eigen_solver"),
        (dict(kernel="gaussian"), "kernel='gaussian' is unknown"),
        (dict(kernel_params="sigma=1"), "kernel_params"),
        (dict(feature_map="rff"), "feature_map must be a transformer"),
        (dict(feature_map=IdentityFeatures(), kernel="laplacian"), "feature_map"),
        (dict(n_components=0), "n_components"),
        (dict(n_components=20), "n_components"),  # > N - 1 = 19
        (dict(n_components=2.0), "n_components"),
        # identity features in 3-D: rank(K_c) = 3
        (dict(feature_map=IdentityFeatures(), n_components=3), "n_components=3 leaves no discarded direction"),
        (dict(feature_map=IdentityFeatures(), n_components=3, setting="primal"), "leaves no discarded"),
        (dict(kernel="linear", n_components=4), "exceeds the numerical rank 3"),
        (dict(kernel="linear", n_components=4, sigma2=1e-3), "exceeds the numerical rank 3"),
        (dict(feature_map=IdentityFeatures(), n_components=4, setting="primal"), "n_components"),
    ],
)
def test_bad_parameters_raise(params, match):
    params = {"n_components": 2, **params}
    with pytest.raises(ValueError, match=match):
        ProbabilisticKPCA(**params).fit(GOOD)


def test_float_sigma2_may_use_every_direction():
    """A fixed sigma2 allows q = rank (no discarded direction), unlike sigma2='ml'."""
    model = ProbabilisticKPCA(3, feature_map=IdentityFeatures(), sigma2=1e-3).fit(GOOD)
    assert model.rank_ == 3 and model.sigma2_ == 1e-3


def test_bound_is_inclusive():
    model = ProbabilisticKPCA(2, kernel="linear").fit(GOOD)
    bound = model.eigenvalues_[-1] / 20
    model = ProbabilisticKPCA(2, kernel="linear", sigma2=bound).fit(GOOD)
    np.testing.assert_array_equal(model.A_[:, -1], 0.0)  # the q-th direction carries no signal
    assert np.all(np.isfinite(model.transform(GOOD)))


@pytest.mark.parametrize(
    "X, match",
    [
        (np.array([[1.0, np.nan], [0.0, 1.0], [2.0, 2.0]]), "X contains NaN"),
        (np.ones((1, 3)), "n_samples = 1"),
        (np.ones((10, 2)), "no positive eigenvalue"),
        (np.arange(5.0), "X must be a 2-D"),
    ],
)
def test_bad_X_raises(X, match):
    with pytest.raises(ValueError, match=match):
        ProbabilisticKPCA(1).fit(X)


@pytest.fixture(scope="module")
def fitted():
    return ProbabilisticKPCA(2, random_state=0).fit(GOOD)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda m: m.sample(latent=np.zeros((4, 3))), r"latent must have n_components = 2 columns"),
        (lambda m: m.sample(latent=np.zeros(3)), "latent must have n_components = 2"),
        (lambda m: m.sample(latent=[[np.nan, 0.0]]), "latent contains NaN"),
        (lambda m: m.sample(3, latent=np.zeros((4, 2))), "n_samples=3 does not match latent"),
        (lambda m: m.sample(0), "n_samples must be in"),
        (lambda m: m.sample(2.5), "n_samples must be an integer"),
        (lambda m: m.sample(2, space="latent"), "space='latent' is not supported"),
        (lambda m: m.sample(2, space="feature"), "space='feature' needs explicit features"),
        (lambda m: m.sample(2, space="input", top_k=0), "top_k"),
        (lambda m: m.decode(np.zeros((2, 5))), "H must have n_components = 2"),
        (lambda m: m.transform(np.full((2, 3), np.nan)), "X contains NaN"),
        (lambda m: m.transform(np.ones((2, 4))), "X has 4 features, but ProbabilisticKPCA is expecting 3"),
        (lambda m: m.reconstruct(np.ones((2, 3)), space="pixels"), "space='pixels'"),
        (lambda m: m.score_samples(np.full((2, 3), np.inf)), "X contains NaN"),
    ],
)
def test_bad_inference_input_raises(fitted, call, match):
    with pytest.raises(ValueError, match=match):
        call(fitted)


def test_methods_before_fit_raise():
    model = ProbabilisticKPCA()
    for call in (lambda: model.transform(GOOD), lambda: model.sample(2), lambda: model.decode([[0.0, 0.0]])):
        with pytest.raises(NotFittedError):
            call()


def test_sample_with_fixed_latent_and_noise_draws_is_the_random_sample(small_dual):
    """sample(latent=u_q, noise=u_rest) reproduces sample(random_state=...) from the same draws."""
    X, model = small_dual
    rng = np.random.default_rng(0)
    U_q, U_rest = rng.standard_normal((5, 2)), rng.standard_normal((5, model.rank_))
    for space in ("kernel", "input"):
        drawn = model.sample(5, space=space, random_state=np.random.default_rng(0))
        np.testing.assert_allclose(model.sample(latent=U_q, noise=U_rest, space=space), drawn, atol=1e-12)
    with pytest.raises(ValueError, match="noise must have shape"):
        model.sample(latent=U_q, noise=U_rest[:, :3])
    with pytest.raises(ValueError, match="pass latent as well"):
        model.sample(3, noise=U_rest[:3])
