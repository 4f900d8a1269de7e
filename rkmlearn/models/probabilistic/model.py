"""Probabilistic (kernel) PCA in primal and dual: :class:`ProbabilisticKPCA` (Part II).

One :class:`~rkmlearn.views.View` and one level (:func:`~rkmlearn.level.solve_level`) give the
leading eigenpairs; the maximum-likelihood parameters (``sigma^2``, ``A``, ``W``) follow in closed
form (:mod:`rkmlearn.models.probabilistic.likelihood`, with the log-density); generation lives in
:mod:`rkmlearn.models.probabilistic.sampling`. The derivations, and the paper's
formulas that had to be derived again, are in Chapters 6 and 7.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ..._symmetric import rank_tolerance
from ..._validation import array, check_kernel_or_feature_map, check_scalar_range, check_two_samples, checked_by, validate
from ...base import ONE_VIEW_DEFAULTS, estimator_init, level_defaults, level_options
from ...level import solve_level
from ...preimage import check_top_k, kernel_smoother
from ...solvers.linear import pivoted_cholesky
from ...solvers.operator import pivoted_cholesky_columns
from ...views import View
from .likelihood import log_density, noise_variance, residual_energy
from .sampling import (check_latent, feature_samples, kernel_noise, kernel_samples, resolve_space,
                            sample_coordinates)

__all__ = ["ProbabilisticKPCA"]


def _pivoted_cholesky(S, lambda_max):
    """:func:`pivoted_cholesky` of a matrix, or of a matrix-free level's operator (from its columns)."""
    if isinstance(S, np.ndarray):
        return pivoted_cholesky(S, lambda_max)
    return pivoted_cholesky_columns(S.diagonal(), S.column, lambda_max)  # O(n rank) memory


class ProbabilisticKPCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    r"""Probabilistic PCA in feature space, trained in its primal or its dual form (Chapters 6-7).

    Features of ``H_E = span{phi_c(x_i)}`` follow :eq:`eq-ppca-model` ``phi = W h + mu + zeta``,
    ``h ~ N(0, I_q)``, ``zeta ~ N(0, sigma^2 I_{H_E})`` (marginal :eq:`eq-ppca-marginal`). Maximum
    likelihood :eq:`eq-ppca-ml` gives ``W_ML = V_q diag((lambda_p / N - sigma^2)^{1/2})`` from the
    leading eigenpairs of ``C``, and :eq:`eq-ppca-sigma2-ml` ``sigma^2_ML = sum_{p>q} lambda_p /
    (N (r - q))``; the dual :eq:`eq-ppca-dual-ml` ``A_ML = E_q diag((1/N - sigma^2 / lambda_p)^{1/2})``
    needs only kernel values. Inference: :meth:`latent_posterior` (:eq:`eq-ppca-latent-posterior`,
    :eq:`eq-ppca-dual-posterior`), :meth:`transform` (its mean), :meth:`decode` / :meth:`reconstruct`
    (:eq:`eq-ppca-map`), :meth:`sample` (:eq:`eq-ppca-kernel-sampling`), :meth:`score_samples`
    (:eq:`eq-ppca-log-likelihood`). As ``sigma2 -> 0`` it is kernel PCA.

    Conventions: ``eigenvalues_`` are those of ``K_c`` (= of ``C``), not divided by N; the model's
    variances are ``lambda_p / N`` (``sigma2_`` is on that scale, the bound is ``sigma2 <= lambda_q /
    N``). ``rank_ = dim(H_E)`` is the numerical rank of ``K_c`` (pivoted Cholesky; the smaller of
    ``K_c`` and ``C`` with explicit features, in both settings). ``sigma2="ml"`` needs
    ``n_components < rank_``. Latent rotation ``R = I``; signs by
    :func:`~rkmlearn.solvers.eigen.flip_signs` on ``E_`` (primal and dual agree).

    Parameters
    ----------
    n_components : int, default=2
        Latent dimension q, ``1 <= q <= N - 1`` (and ``<= n_features_out`` in the primal).
    kernel : str, Kernel, callable or None, default="rbf"
        Dual-setting kernel (None: linear); default (or None) when ``feature_map`` is given.
    kernel_params : dict or None, default=None
    feature_map : transformer or None, default=None
        Explicit feature map; required for ``setting="primal"``.
    sigma2 : "ml" or float, default="ml"
        Noise variance: maximum likelihood, or a fixed ``0 < sigma2 <= lambda_q / N``.
    setting : {"dual", "primal"}, default="dual"
    solver : {"eig", "stiefel"}, default="eig"
        Leading eigenpairs by eigendecomposition, or on the Stiefel manifold with the rotation.
    eigen_solver : {"auto", "dense", "arpack", "block"}, default="auto"
    optimizer : {"pg", "cayley_adam"}, default="pg"
    learning_rate : float, default=0.3
    max_iter : int, default=10000
    tol : float, default=1e-10
    random_state : int, RandomState, Generator or None, default=None
        Seeds the level solver at fit, and :meth:`sample` when it gets no ``random_state``.
    verbose : bool, default=False

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (n_components,)
    explained_variance_ratio_ : ndarray of shape (n_components,)
        ``eigenvalues_ / trace(K_c)``.
    total_variance_ : float
        ``trace(K_c) / N``.
    sigma2_ : float
    rank_ : int
        ``dim(H_E)``.
    A_ : ndarray of shape (n_samples, n_components)
        Dual interconnection matrix ``A_ML``.
    E_ : ndarray of shape (n_samples, n_components)
        Orthonormal leading eigenvectors of ``K_c``.
    W_ : ndarray of shape (n_features_out, n_components) or None
        ``W_ML`` (primal) or ``Phi_c^T A_`` (dual with features); None for an implicit kernel.
    V_ : ndarray of shape (n_features_out, n_components) or None
        Orthonormal principal directions in feature space (explicit features).
    feature_mean_ : ndarray of shape (n_features_out,) or None
    X_fit_ : ndarray of shape (n_samples, n_features_in_)
    centerer_ : GramCenterer
        Training Gram statistics (row means, grand mean).
    kernel_ : Kernel
    feature_map_ : transformer or None
    view_ : View
        The fitted view.
    n_features_in_ : int
    history_ : dict or None
        Stiefel optimiser history (``solver="stiefel"``).
    n_iter_ : int or None

    Examples
    --------
    >>> import numpy as np
    >>> from rkmlearn import ProbabilisticKPCA
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> model = ProbabilisticKPCA(3, kernel_params={"sigma": 2.0}).fit(X)
    >>> bool(model.sigma2_ <= model.eigenvalues_[-1] / 40)
    True
    >>> model.transform(X[:5]).shape, model.reconstruct(X[:5], space="input").shape
    ((5, 3), (5, 2))
    >>> model.sample(4, space="kernel", random_state=0).shape
    (4, 40)
    """

    __init__ = estimator_init({"n_components": 2}, {**ONE_VIEW_DEFAULTS, "sigma2": "ml",
                                                    **level_defaults("rescale", "rotate"), "random_state": None})

    # -- training ------------------------------------------------------------------------------
    @validate(X=array(memmap=True))  # a large memmap is streamed (primal), read from disk a chunk at a time
    def fit(self, X, y=None):
        """Fit: leading eigenpairs, ``rank_``, ``sigma2_``, ``A_`` and ``W_`` (:eq:`eq-ppca-dual-ml`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), ``n_samples >= 2``
        y : ignored

        Returns
        -------
        self : ProbabilisticKPCA
        """
        if isinstance(self.sigma2, str):
            if self.sigma2 != "ml":
                raise ValueError(
                    f"sigma2={self.sigma2!r} is not supported; use 'ml' (maximum likelihood) or a positive float."
                )
        else:
            check_scalar_range(self.sigma2, "sigma2", low=0.0)
        check_kernel_or_feature_map(self.kernel, self.kernel_params, self.feature_map, self.setting)
        options = level_options(self)
        check_two_samples(X.shape[0], "X", "probabilistic PCA")
        explicit = self.feature_map is not None
        view = View(kernel=None if explicit else self.kernel, feature_map=self.feature_map,
                    kernel_params=self.kernel_params)
        # primal: C (D x D) kept too, for a streamed view (features over STREAM_BYTES) whose features are never stored
        level = solve_level([view], self.n_components, Xs=[X], random_state=self.random_state,
                            keep_matrix=not explicit or self.setting == "primal", with_scores=False,
                            name="ProbabilisticKPCA", **options)
        self.view_, self.n_features_in_, self.X_fit_ = view, X.shape[1], view.X_
        self.kernel_, self.feature_map_, self.feature_mean_ = view.kernel_, view.feature_map_, view.feature_mean_
        self.centerer_ = view.centerer_
        self.history_, self.n_iter_ = level.spectrum.history, level.spectrum.n_iter
        values, self.E_ = level.eigenvalues, level.H
        if not explicit:
            self.V_ = None
        elif self.setting == "primal":
            self.V_ = level.U_tilde
        else:
            self.V_ = level.U[0] / np.sqrt(values)  # v_p = Phi_c^T eps_p / sqrt(lambda_p)
        # a matrix-free level (past its memory budget) keeps its operator: diagonal, columns, products
        self._gram_operator = None if isinstance(level.matrix, np.ndarray) or explicit else level.matrix
        S, basis = self._subspace_gram(level.matrix)
        F, _, self.rank_ = _pivoted_cholesky(S, values[0])
        trace = S.trace() if S is self._gram_operator else float(np.trace(S))
        self._set_parameters(values, residual_energy(F, basis), trace, X.shape[0], S.shape[0])
        self._n_features_out = self.E_.shape[1]  # names for get_feature_names_out
        return self

    def _subspace_gram(self, K_c=None):
        """The PSD matrix whose pivoted Cholesky factor gives ``rank_``, and its leading eigenvectors.

        Implicit kernel: ``K_c`` (rebuilt when not given). Explicit features, in BOTH settings (so they
        agree exactly): the smaller of ``Phi_c Phi_c^T`` and ``Phi_c^T Phi_c`` -- also the more
        accurate one (the Weyl slack of :func:`pivoted_cholesky` grows with the size).
        """
        if self.feature_map_ is None:
            if K_c is None:
                K_c = self.view_.centred_gram() if getattr(self, "_gram_operator", None) is None else self._gram_operator
            return K_c, self.E_
        if self.view_.streamed_:  # features never stored (a streamed fit): C of the level's one pass, kept
            if K_c is not None:
                self._streamed_C = K_c
            return self._streamed_C, self.V_
        Phi_c = self.view_.centred_features()
        if Phi_c.shape[0] <= Phi_c.shape[1]:
            return Phi_c @ Phi_c.T, self.E_
        S = Phi_c.T @ Phi_c
        return 0.5 * (S + S.T), self.V_

    def _set_parameters(self, values, tail, trace, n_samples, rank_size):
        q, r = values.shape[0], self.rank_
        if q > r:  # the level's rank rule passed the eigenvalues; the factor's rank (Weyl-bounded) may be lower
            raise ValueError(
                f"n_components={q} exceeds the numerical rank {r} of the centred kernel matrix, dim(H_E) = {r} "
                f"(eigenvalues <= {rank_tolerance(rank_size):.1e} * largest count as zero); use n_components <= {r}."
            )
        sigma2 = noise_variance(self.sigma2, values, tail, n_samples, r)
        self.eigenvalues_, self.sigma2_ = values, sigma2
        self.explained_variance_ratio_ = values / trace
        self.total_variance_ = trace / n_samples
        # clipped at 0: sigma2 == lambda_q / N is allowed and may round below it
        scale = np.sqrt(np.maximum(1.0 / n_samples - sigma2 / values, 0.0))
        self.A_ = self.E_ * scale
        if self.setting == "primal":
            self.W_ = self.V_ * np.sqrt(np.maximum(values / n_samples - sigma2, 0.0))
        elif self.feature_map_ is not None:
            self.W_ = self.view_.centred_features().T @ self.A_
        else:
            self.W_ = None
        self._KcA = self.E_ * (values * scale)  # K_c A (= Phi_c W): maps h to (k_c)_MAP
        self._mean_of_A = self.view_.preimage_mean_term(self.A_.T)  # h -> mu^T phi_c (phi_c = Phi_c^T A h)
        self.view_.release()  # N x d training features: recomputed on the rare calls that need them

    # -- helpers -------------------------------------------------------------------------------
    def _check_X(self, X):
        """The rule of the methods that take new samples: a fitted model, the training columns."""
        check_is_fitted(self, "A_")
        return self.view_.check_input(X, "X", estimator=self)

    def noise_factor(self):
        """Pivoted Cholesky factor ``F`` (n x rank_) of ``K_c`` (or ``C``) and its pivots.

        Rebuilt deterministically: the same factor, pivots and rank as in :meth:`fit`.
        """
        check_is_fitted(self, "A_")
        S, _ = self._subspace_gram()
        F, piv, _ = _pivoted_cholesky(S, self.eigenvalues_[0])
        return F[:, : self.rank_], piv[: self.rank_]

    def _feature_basis(self):
        """Orthonormal basis ``Q`` (d x rank_) of ``H_E`` in feature coordinates, or None if H_E = R^d."""
        if self.rank_ == self.V_.shape[0]:
            return None
        F, piv = self.noise_factor()
        if self.A_.shape[0] > self.V_.shape[0]:  # N > d: F F^T = C, range(F) = H_E
            return np.linalg.qr(F)[0]
        # F F^T = K_c: the centred features of the pivot samples span H_E
        return np.linalg.qr(self.view_.centred_features()[piv].T)[0]

    # -- inference -----------------------------------------------------------------------------
    @validate(X=checked_by("_check_X"))
    def transform(self, X):
        """Latent MAP ``h = N Lambda_q^{-1} A^T k_c(x) = N Lambda_q^{-1} W^T (phi(x) - mu)``.

        The mean of :eq:`eq-ppca-dual-posterior` / :eq:`eq-ppca-latent-posterior`:
        ``(A^T K_c A + sigma^2 I)^{-1} A^T k_c`` with ``A^T K_c A + sigma^2 I = Lambda_q / N``. With
        explicit features the primal form is used (no kernel rows).

        Parameters
        ----------
        X : array-like of shape (n_samples_new, n_features_in_)

        Returns
        -------
        H : ndarray of shape (n_samples_new, n_components)
        """
        N = self.A_.shape[0]
        if self.W_ is not None:
            return N * (self.view_.centred_features(X) @ self.W_) / self.eigenvalues_
        return N * self.view_.centred_kernel_rows_times(X, self.A_) / self.eigenvalues_

    def latent_posterior(self, X):
        """Mean and covariance of ``h | phi(x)`` (:eq:`eq-ppca-latent-posterior`, :eq:`eq-ppca-dual-posterior`).

        Returns
        -------
        mean : ndarray of shape (n_samples_new, n_components)
            The MAP, equal to :meth:`transform`.
        covariance : ndarray of shape (n_components, n_components)
            ``sigma^2 M^{-1} = N sigma^2 Lambda_q^{-1}``, the same for every point.
        """
        mean = self.transform(X)
        return mean, np.diag(self.A_.shape[0] * self.sigma2_ / self.eigenvalues_)

    def _check_output_space(self, arguments):
        """The rule of :meth:`decode` and :meth:`sample`: a fitted model, the space, its ``top_k``."""
        check_is_fitted(self, "A_")
        arguments["space"] = space = resolve_space(arguments["space"], self.setting, self.feature_map_ is not None)
        if space == "input":
            arguments["top_k"] = check_top_k(arguments["top_k"], self.X_fit_.shape[0])

    def _check_decode(self, arguments):
        """The rule of :meth:`decode`: :meth:`_check_output_space`, then ``H`` (after the space, as before)."""
        self._check_output_space(arguments)
        arguments["H"] = check_latent(arguments["H"], self.A_.shape[1], "H")

    @validate(then="_check_decode")  # the pre-image inside trusts what it checked
    def decode(self, H, space="auto", *, top_k=None):
        """Map latent vectors to feature, kernel or input space (:eq:`eq-ppca-map`).

        ``phi_MAP = W h + mu`` (feature), ``(k_c)_MAP = K_c A h`` (kernel) and its kernel-smoother
        pre-image :eq:`eq-kernel-smoother` with ``mean_term = (r - g)^T A h`` (input).

        Parameters
        ----------
        H : array-like of shape (m, n_components)
        space : {"auto", "kernel", "feature", "input"}, default="auto"
            "auto": "feature" in the primal, "kernel" in the dual.
        top_k : int, optional
            Passed to the kernel smoother.

        Returns
        -------
        out : ndarray of shape (m, n_features_out), (m, n_samples_fit) or (m, n_features_in_)
        """
        if space == "feature":
            return H @ self.W_.T + self.feature_mean_
        k_c = H @ self._KcA.T
        if space == "kernel":
            return k_c
        return kernel_smoother(k_c, self.X_fit_, self.centerer_, mean_term=H @ self._mean_of_A, top_k=top_k)

    def reconstruct(self, X, space="auto", *, top_k=None):
        """``decode(transform(X))``: :eq:`eq-ppca-map` of the MAP; kernel PCA's as ``sigma2 -> 0``."""
        return self.decode(self.transform(X), space, top_k=top_k)

    # -- generation ----------------------------------------------------------------------------
    @validate(then="_check_output_space")  # the coordinates are checked as they are drawn; the pre-image trusts them
    def sample(self, n_samples=None, latent=None, *, noise=None, space="auto", top_k=None, random_state=None):
        """Generate from the model: ``k_c = B u`` (:eq:`eq-ppca-kernel-sampling`) or ``phi`` (Prop. 2).

        ``u = (u_q, u_rest) ~ N(0, I)``; see :mod:`rkmlearn.models.probabilistic.sampling`. ``latent`` fixes
        ``u_q`` and, without ``noise``, sets the noise coordinates to 0 (the paper's Figure 4c grid).

        Parameters
        ----------
        n_samples : int, optional
            Default 1; with ``latent`` None or ``len(latent)``.
        latent : array-like of shape (m, n_components) or (n_components,), optional
        noise : array-like of shape (m, rank_), optional
            Fixed noise coordinates ``u_rest`` (with ``latent``): the same draws for many fits.
        space : {"auto", "kernel", "feature", "input"}, default="auto"
        top_k : int, optional
        random_state : int, RandomState, Generator or None, optional
            Default: the estimator's ``random_state``.

        Returns
        -------
        samples : ndarray of shape (m, n_samples_fit), (m, n_features_out) or (m, n_features_in_)
        """
        seed = self.random_state if random_state is None else random_state
        U_q, U_rest = sample_coordinates(self.A_.shape[1], self.rank_, n_samples, latent, noise, seed)
        if self.feature_map_ is not None:
            Q = None if U_rest is None else self._feature_basis()
            phi_c = feature_samples(U_q, self.V_, self.eigenvalues_, self.A_.shape[0], self.sigma2_, U_rest, Q)
            if space == "feature":
                return phi_c + self.feature_mean_
            k_c, mean_term = phi_c @ self.view_.centred_features().T, phi_c @ self.feature_mean_
        else:
            noise = None if U_rest is None else kernel_noise(U_rest, *self.noise_factor(), self.E_,
                                                             with_beta=space == "input")
            k_c, alpha = kernel_samples(U_q, self.E_, self.eigenvalues_, self.sigma2_, noise)
            mean_term = self.view_.preimage_mean_term(alpha)
        if space == "kernel":
            return k_c
        return kernel_smoother(k_c, self.X_fit_, self.centerer_, mean_term=mean_term, top_k=top_k)

    def kernel_covariance(self):
        """Covariance of generated kernel vectors, ``K_c A A^T K_c + sigma^2 K_c`` (N x N).

        The covariance of :eq:`eq-ppca-kernel-sampling`; rebuilds ``K_c``.
        """
        check_is_fitted(self, "A_")
        return self._KcA @ self._KcA.T + self.sigma2_ * self.view_.centred_gram()

    # -- likelihood ----------------------------------------------------------------------------
    @validate(X=checked_by("_check_X"))
    def score_samples(self, X):
        """Log-density ``log p(phi(x))`` in ``H_E`` of each sample (:eq:`eq-ppca-log-likelihood`).

        With ``y_p = v_p^T phi_c`` and the part of ``phi_c`` in ``H_E`` outside the leading
        directions, ``log p = -1/2 [r log 2 pi + sum_p log(lambda_p / N) + (r - q) log sigma^2 +
        sum_p N y_p^2 / lambda_p + ||P_perp phi_c||^2 / sigma^2]``, ``r = rank_``. For an implicit
        kernel the coordinates in ``H_E`` come from the pivoted Cholesky factor of ``K_c``.

        Returns
        -------
        log_density : ndarray of shape (n_samples_new,)
        """
        N = self.A_.shape[0]
        if self.feature_map_ is not None:
            phi_c = self.view_.centred_features(X)
            y = phi_c @ self.V_
            Q = self._feature_basis()
            perp = phi_c - y @ self.V_.T if Q is None else phi_c @ Q - y @ (self.V_.T @ Q)
        else:
            k_c = self.view_.centred_kernel_rows(X)
            y = (k_c @ self.E_) / np.sqrt(self.eigenvalues_)
            F, piv = self.noise_factor()
            # z = L11^{-1} k_c[piv]: coordinates of P_{H_E} phi_c in an orthonormal basis of H_E, in
            # which v_p has coordinates F^T eps_p / sqrt(lambda_p) (F = P [L11; L21], F F^T = K_c)
            z = scipy.linalg.solve_triangular(F[piv], k_c[:, piv].T, lower=True).T
            perp = z - y @ ((F.T @ self.E_) / np.sqrt(self.eigenvalues_)).T
        return log_density(y, perp, self.eigenvalues_, N, self.sigma2_, self.rank_)

    def score(self, X, y=None):
        """Mean log-density ``mean(score_samples(X))`` (larger is better; same kernel for comparisons)."""
        return float(np.mean(self.score_samples(X)))

    def log_likelihood(self, X):
        """Total log-likelihood ``sum_i log p(phi(x_i))`` (the paper's eq. 42, :eq:`eq-ppca-log-likelihood`)."""
        return float(np.sum(self.score_samples(X)))

    @validate(X=array(memmap=True))
    def fit_transform(self, X, y=None):
        """Fit and return the latent MAP of the training data (:eq:`eq-ppca-dual-posterior`)."""
        return self.fit(X).transform(X)
