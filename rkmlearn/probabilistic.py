r"""Probabilistic (kernel) PCA in primal and dual: the :class:`ProbabilisticKPCA` estimator.

De Plaen & Suykens (*A Dual Formulation for Probabilistic Principal Component Analysis*) write
Tipping & Bishop's probabilistic PCA in the finite feature space ``H_E = span{phi_c(x_i)}`` and
give it a dual (kernel) form. Equation numbers below are the paper's; the book's labels are cited
as ``:eq:``.

**The model** :eq:`eq-ppca-model`: ``phi = W h + mu + zeta``, with a latent prior
``h ~ N(0, I_q)`` and isotropic noise ``zeta ~ N(0, sigma^2 I_{H_E})`` in ``H_E``. Hence
``phi ~ N(mu, W W^T + sigma^2 I_{H_E})`` :eq:`eq-ppca-marginal` (Prop. 2).

**Dimension of H_E.** ``dim(H_E) = rank(K_c) =: r``, the number of non-zero eigenvalues of the
centred Gram matrix (equal to those of the covariance ``C = Phi_c^T Phi_c``). It is at most
``N - 1`` (centring puts the constant vector in the null space of ``K_c``) and, for explicit
features of dimension ``d``, at most ``d``. The paper assumes ``r = N``; the library uses the
numerical rank (see :class:`ProbabilisticKPCA`, *Conventions*).

**Maximum likelihood of sigma^2** :eq:`eq-ppca-sigma2-ml` (the paper's eq. 6, derived here).
With ``W = W_ML`` (so ``s_p^2 + sigma^2 = lambda_p / N``, Prop. 3) the log-likelihood (42) of the
training features is, up to terms free of ``sigma^2``,

``L(sigma^2) = -(N/2) [ (r - q) log sigma^2 + (1 / (N sigma^2)) sum_i ||P_perp phi_c,i||^2 ]``,

where ``P_perp`` projects onto the ``r - q`` discarded eigendirections of ``H_E``, so that
``sum_i ||P_perp phi_c,i||^2 = sum_{p > q} lambda_p``. Setting ``dL / d sigma^2 = 0``:
``(r - q) / sigma^2 = sum_{p>q} lambda_p / (N sigma^4)``, i.e.

``sigma^2_ML = (1 / (N (r - q))) sum_{p = q+1}^{r} lambda_p``,

the mean variance ``lambda_p / N`` of the discarded directions. Being a mean of values
``<= lambda_{q+1} / N``, it satisfies the bound ``sigma^2 <= lambda_q / N`` of Prop. 3/6. The sum
is ``trace(K_c) - sum_{p <= q} lambda_p``, so no eigenvalue beyond the q-th is needed; it is
computed as ``||P_perp F||_F^2`` from a pivoted Cholesky factor ``F F^T = K_c`` (or ``C``),
which has no cancellation when the tail is small.

**Training** :eq:`eq-ppca-ml`, :eq:`eq-ppca-dual-ml`: ``mu_ML = phi_c`` (eq. 40),
``W_ML = sum_p (lambda_p / N - sigma^2)^{1/2} v_p r_p^T`` (eq. 41) and, with ``W = Phi_c^T A``,
``A_ML = sum_p (1/N - sigma^2 / lambda_p)^{1/2} eps_p r_p^T`` (eq. 13/47). The rotation
``R = [r_1 ... r_q]`` is arbitrary; the library takes ``R = I``.

**Latent posterior in the dual** :eq:`eq-ppca-dual-posterior` (Prop. 8, eq. 15/16; the text
writes ``A_ML`` where ``A_ML^T`` is meant, and eq. 15 omits the factor ``sigma^2`` of the
covariance). Bayes' rule with ``phi | h ~ N(W h + mu, sigma^2 I)`` and ``h ~ N(0, I)`` gives
``h | phi ~ N(M^{-1} W^T (phi - mu), sigma^2 M^{-1})``, ``M = W^T W + sigma^2 I_q`` (Prop. 4).
Substituting ``W = Phi_c^T A`` and ``k_c = Phi_c (phi - mu)``: ``W^T (phi - mu) = A^T k_c`` and
``W^T W = A^T K_c A``, so

``h | k_c ~ N(M^{-1} A^T k_c, sigma^2 M^{-1})``, ``M = A^T K_c A + sigma^2 I_q``.

At the optimum ``A^T K_c A = diag(lambda_p (1/N - sigma^2 / lambda_p)) = Lambda_q / N - sigma^2 I``,
so ``M = Lambda_q / N``: the MAP is ``h_MAP = N Lambda_q^{-1} A^T k_c`` (eq. 20) and the
covariance ``N sigma^2 Lambda_q^{-1}``, the same for every point.

**Kernel sampling** :eq:`eq-ppca-kernel-sampling` (eq. 18/24; Table 4's ``B`` is unreadable and
eq. 18 prints the covariance of ``alpha`` in ``phi_c = Phi_c^T alpha``, not of ``k_c``). With
``phi_c = W h + zeta`` and ``k_c = Phi_c phi_c``:
``Cov(k_c) = Phi_c (W W^T + sigma^2 I_{H_E}) Phi_c^T = K_c A A^T K_c + sigma^2 K_c``
(``Phi_c I_{H_E} Phi_c^T = K_c`` because ``I_{H_E}`` is the projector onto the span of the
training features). In the eigenbasis ``K_c = E Lambda E^T``:
``K_c A A^T K_c = sum_{p<=q} (lambda_p^2 / N - sigma^2 lambda_p) eps_p eps_p^T``, so

``Cov(k_c) = sum_{p<=q} (lambda_p^2 / N) eps_p eps_p^T + sum_{p>q} sigma^2 lambda_p eps_p eps_p^T = B B^T``,
``B = E diag(lambda_1 / sqrt(N), ..., lambda_q / sqrt(N), sigma sqrt(lambda_{q+1}), ...)``.

Sampling ``k_c = B u`` with ``u ~ N(0, I)`` needs every eigenpair. The library draws the two
independent parts separately instead: ``E_q diag(lambda_p / sqrt(N)) u_q`` (the first ``q``
coordinates of ``u``, exactly as in the paper) plus ``sigma P_perp F u'`` with ``F F^T = K_c``
a pivoted Cholesky factor (``O(N^2 r)``, no full eigendecomposition) and
``P_perp = I - E_q E_q^T``; its covariance is ``sigma^2 P_perp K_c P_perp =
sigma^2 sum_{p>q} lambda_p eps_p eps_p^T``, the same distribution. (With explicit features the
noise is drawn in feature space, ``zeta ~ N(0, sigma^2 I_{H_E})``, which is the same again.)
"""

from __future__ import annotations

import copy

import numpy as np
import scipy.linalg
from scipy.linalg.lapack import dpstrf
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin, clone
from sklearn.utils.validation import check_is_fitted

from ._validation import (
    check_array,
    check_kernel_or_feature_map,
    check_n_components,
    check_n_features,
    check_random_state,
    check_scalar_range,
)
from .kernels import GramCenterer, Linear, make_kernel
from .linalg import SOLVERS as _EIGEN_SOLVERS
from .linalg import flip_signs, rank_tolerance, top_eigenpairs
from .preimage import kernel_smoother

__all__ = ["ProbabilisticKPCA", "pivoted_cholesky"]

_SETTINGS = ("dual", "primal")
_SPACES = ("auto", "kernel", "feature", "input")


def pivoted_cholesky(S, lambda_max):
    """Low-rank factor ``F`` (``S = F F^T``) and numerical rank of a PSD matrix, by LAPACK ``pstrf``.

    The factorisation stops when the largest remaining diagonal entry of the Schur complement
    is ``<= rank_tolerance(n) * lambda_max``. By Weyl's inequality every eigenvalue of ``S``
    beyond the returned rank is then at most ``(n - rank) * rank_tolerance(n) * lambda_max``.
    Cost ``O(n^2 rank)``, against ``O(n^3)`` (with a much larger constant) for a full
    eigendecomposition.

    Parameters
    ----------
    S : ndarray of shape (n, n)
        Symmetric positive semi-definite matrix.
    lambda_max : float
        Its largest eigenvalue (known from the leading eigenpairs).

    Returns
    -------
    F : ndarray of shape (n, rank)
        ``F F^T = S`` up to the tolerance; rows in the original order.
    pivots : ndarray of shape (rank,)
        Rows of ``F`` whose ``rank x rank`` block ``F[pivots]`` is lower triangular.
    rank : int
    """
    n = S.shape[0]
    tol = rank_tolerance(n) * lambda_max
    c, piv, rank, _ = dpstrf(S, tol=tol, lower=1)
    piv = piv - 1  # LAPACK's pivots are 1-based
    F = np.empty((n, rank))
    F[piv] = np.tril(c)[:, :rank]
    return F, piv[:rank].copy(), int(rank)


class ProbabilisticKPCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    r"""Probabilistic PCA in feature space, trained in its primal or its dual form.

    **The model** (Part II, *Probabilistic PCA in primal and dual*; De Plaen & Suykens).
    Features ``phi = phi(x)`` of the finite feature space ``H_E = span{phi_c(x_i)}`` follow the
    factor model :eq:`eq-ppca-model`, ``phi = W h + mu + zeta`` with ``h ~ N(0, I_q)`` and
    ``zeta ~ N(0, sigma^2 I_{H_E})``, i.e. ``phi ~ N(mu, W W^T + sigma^2 I_{H_E})``
    (:eq:`eq-ppca-marginal`, Prop. 2). Maximum likelihood gives :eq:`eq-ppca-ml`

    ``mu_ML = mean_i phi(x_i)``, ``W_ML = sum_{p<=q} (lambda_p / N - sigma^2)^{1/2} v_p r_p^T``

    (eq. 40-41) with ``(lambda_p, v_p)`` the leading eigenpairs of ``C = Phi_c^T Phi_c``, and
    :eq:`eq-ppca-sigma2-ml` ``sigma^2_ML = sum_{p>q} lambda_p / (N (r - q))`` (eq. 6; derived in
    the module docstring). Writing ``W = Phi_c^T A`` gives the **dual** form
    :eq:`eq-ppca-dual-ml`, ``A_ML = sum_{p<=q} (1/N - sigma^2 / lambda_p)^{1/2} eps_p r_p^T``
    (eq. 13/47), with ``(lambda_p, eps_p)`` the leading eigenpairs of ``K_c``: it needs only
    kernel values, so it works for kernels with infinite-dimensional feature maps.

    **Inference.** :meth:`latent_posterior` is ``h | phi`` :eq:`eq-ppca-latent-posterior`
    (Prop. 4, eq. 7) or, equivalently, ``h | k_c`` :eq:`eq-ppca-dual-posterior` (Prop. 8,
    eq. 15); :meth:`transform` is its mean, the MAP ``h = N Lambda_q^{-1} A^T k_c =
    N Lambda_q^{-1} W^T (phi - mu)`` (eq. 20/21). :meth:`reconstruct` maps back through
    :eq:`eq-ppca-map` (eq. 10/17/22/23): ``phi_MAP = W h + mu`` or ``(k_c)_MAP = K_c A h``, and to
    input space by the kernel smoother :func:`rkmlearn.preimage.kernel_smoother`.
    :meth:`sample` generates from the marginal :eq:`eq-ppca-kernel-sampling` (eq. 18/24):
    ``k_c = B u``, ``B = E diag(lambda_p / sqrt(N) for p <= q, sigma sqrt(lambda_p) for p > q)``.
    :meth:`score_samples` is the log-density of Prop. 2, :eq:`eq-ppca-log-likelihood`.

    **Limit sigma^2 -> 0.** ``A^T K_c A + sigma^2 I = Lambda_q / N`` and ``(k_c)_MAP`` tends to
    ``E_q E_q^T k_c``, the reconstruction of kernel PCA (:class:`rkmlearn.KPCA`).

    **Conventions.**

    * ``eigenvalues_`` are eigenvalues ``lambda_p`` of the centred Gram matrix ``K_c`` (equal
      to those of ``C = Phi_c^T Phi_c``), *not* divided by N, as in :class:`rkmlearn.KPCA`. The
      model's variances are ``lambda_p / N``: ``sigma2_`` is on that scale and the bound of
      Prop. 3/6 reads ``sigma2 <= lambda_q / N``.
    * ``rank_`` is ``dim(H_E)``, the numerical rank of ``K_c``: the number of pivots of a
      pivoted Cholesky factorisation above ``rank_tolerance(n) * lambda_1``
      (:func:`rkmlearn.linalg.rank_tolerance`, ``n`` the size of the matrix; see
      :func:`pivoted_cholesky`). For explicit features the smaller of ``K_c`` (N x N) and
      ``C`` (d x d) is factorised, the same in both settings. It is ``<= N - 1``, and
      ``<= d`` for explicit features of dimension d. ``sigma2="ml"`` needs
      ``n_components < rank_`` (at least one discarded direction); a float ``sigma2`` needs
      ``n_components <= rank_``.
    * The latent rotation is ``R = I``; eigenvector signs follow
      :func:`rkmlearn.linalg.flip_signs` on ``E_`` (the columns ``eps_p``), in both settings,
      so primal and dual fits on the same features give the same ``A_``, ``W_`` and ``h``.
    * Cost: the leading eigenpairs (:func:`rkmlearn.linalg.top_eigenpairs`) plus one pivoted
      Cholesky factorisation (``O(n^2 r)``) for ``rank_`` and ``sigma2_``; no full
      eigendecomposition anywhere. With an implicit kernel, :meth:`sample` (with noise),
      :meth:`score_samples` and :meth:`kernel_covariance` rebuild ``K_c`` and its factor
      (they are not stored). With explicit features, sampling and scoring work on the
      feature vectors (the same in both settings; a factor is rebuilt only when
      ``rank_ < d``).

    Parameters
    ----------
    n_components : int, default=2
        Latent dimension q, ``1 <= q <= N - 1`` (and ``<= n_features_out`` in the primal).
    kernel : str, Kernel or callable, default="rbf"
        Kernel of the dual setting, resolved by :func:`rkmlearn.kernels.make_kernel` (as in
        :class:`rkmlearn.KPCA`). Must stay at its default (or None) when ``feature_map`` is given.
    kernel_params : dict or None, default=None
        Hyperparameters of a named kernel, e.g. ``{"sigma": 2.0}``.
    feature_map : transformer or None, default=None
        Explicit feature map (cloned, fitted on ``X``), e.g.
        :class:`~rkmlearn.features.RandomFourierFeatures`. Required for ``setting="primal"``;
        in the dual setting the kernel becomes the linear kernel of the features.
    sigma2 : "ml" or float, default="ml"
        Noise variance: its maximum-likelihood value :eq:`eq-ppca-sigma2-ml`, or a fixed
        ``0 < sigma2 <= lambda_q / N`` (checked at fit; tiny values approach kernel PCA).
    setting : {"dual", "primal"}, default="dual"
        Train from the N x N centred Gram matrix (eq. 13) or the d x d covariance (eq. 41).
    eigen_solver : {"auto", "dense", "arpack"}, default="auto"
        Passed to :func:`rkmlearn.linalg.top_eigenpairs`.
    random_state : int, RandomState instance, Generator or None, default=None
        Seeds ARPACK's start vector at fit, and :meth:`sample` when it gets no
        ``random_state`` of its own (an int gives the same samples on every call).

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (n_components,)
        Leading eigenvalues of ``K_c`` (not divided by N), descending.
    explained_variance_ratio_ : ndarray of shape (n_components,)
        ``eigenvalues_ / trace(K_c)``; its sum is the explained variance of the paper.
    total_variance_ : float
        ``trace(K_c) / N``, the total feature variance (noise included).
    sigma2_ : float
        Noise variance used (ML or the given value), on the ``lambda / N`` scale.
    rank_ : int
        ``dim(H_E)``, numerical rank of ``K_c``.
    A_ : ndarray of shape (n_samples, n_components)
        Dual interconnection matrix ``A_ML = E_q diag((1/N - sigma^2/lambda_p)^{1/2})``.
    E_ : ndarray of shape (n_samples, n_components)
        Orthonormal leading eigenvectors ``eps_p`` of ``K_c``.
    W_ : ndarray of shape (n_features_out, n_components) or None
        Primal interconnection matrix ``W_ML = V_q diag((lambda_p/N - sigma^2)^{1/2})``
        (primal), or ``Phi_c^T A_`` (dual with a feature map); None for an implicit kernel.
    V_ : ndarray of shape (n_features_out, n_components) or None
        Orthonormal principal directions ``v_p = Phi_c^T eps_p / sqrt(lambda_p)`` in feature
        space (explicit features), else None.
    feature_mean_ : ndarray of shape (n_features_out,) or None
        ``mu_ML``, the mean training feature vector (explicit features only).
    X_fit_ : ndarray of shape (n_samples, n_features_in_)
        Training inputs (kernel rows at inference, pre-images).
    centerer_ : GramCenterer
        Row means and grand mean of the uncentred training Gram matrix (in the primal setting
        computed as ``Phi mu`` and ``mu^T mu`` without forming the N x N matrix).
    kernel_ : Kernel
        The kernel used (the linear kernel of the features when ``feature_map`` is given).
    feature_map_ : transformer or None
        The fitted clone of ``feature_map``.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from rkmlearn.probabilistic import ProbabilisticKPCA
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> model = ProbabilisticKPCA(3, kernel_params={"sigma": 2.0}).fit(X)
    >>> bool(model.sigma2_ <= model.eigenvalues_[-1] / 40)
    True
    >>> model.transform(X[:5]).shape, model.reconstruct(X[:5], space="input").shape
    ((5, 3), (5, 2))
    >>> model.sample(4, space="kernel", random_state=0).shape
    (4, 40)
    """

    def __init__(
        self,
        n_components=2,
        *,
        kernel="rbf",
        kernel_params=None,
        feature_map=None,
        sigma2="ml",
        setting="dual",
        eigen_solver="auto",
        random_state=None,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.feature_map = feature_map
        self.sigma2 = sigma2
        self.setting = setting
        self.eigen_solver = eigen_solver
        self.random_state = random_state

    # ------------------------------------------------------------------------------------------
    # validation
    # ------------------------------------------------------------------------------------------
    def _check_options(self):
        if not isinstance(self.setting, str) or self.setting not in _SETTINGS:
            raise ValueError(f"setting={self.setting!r} is not supported; use one of {list(_SETTINGS)}.")
        if not isinstance(self.eigen_solver, str) or self.eigen_solver not in _EIGEN_SOLVERS:
            raise ValueError(
                f"eigen_solver={self.eigen_solver!r} is not supported; use one of {list(_EIGEN_SOLVERS)}."
            )
        if isinstance(self.sigma2, str):
            if self.sigma2 != "ml":
                raise ValueError(
                    f"sigma2={self.sigma2!r} is not supported; use 'ml' (maximum likelihood) or a "
                    "positive float."
                )
        else:
            check_scalar_range(self.sigma2, "sigma2", low=0.0)
        check_kernel_or_feature_map(self.kernel, self.kernel_params, self.feature_map, self.setting)

    def _explicit_features(self, X):
        Phi = check_array(self.feature_map_.transform(X), "feature_map.transform(X)")
        if Phi.shape[0] != X.shape[0]:
            raise ValueError(
                f"feature_map.transform(X) returned {Phi.shape[0]} rows for {X.shape[0]} samples; "
                "the feature map must return one row per sample."
            )
        return Phi

    # ------------------------------------------------------------------------------------------
    # training
    # ------------------------------------------------------------------------------------------
    def fit(self, X, y=None):
        """Fit the model: leading eigenpairs, ``rank_``, ``sigma2_``, ``A_`` and ``W_``.

        Implements :eq:`eq-ppca-ml` / :eq:`eq-ppca-dual-ml` (Prop. 3 and 6) and
        :eq:`eq-ppca-sigma2-ml`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, ``n_samples >= 2``.
        y : ignored

        Returns
        -------
        self : ProbabilisticKPCA

        Raises
        ------
        ValueError
            Bad ``X`` or parameters; ``n_components`` above the numerical rank (or equal to it
            with ``sigma2="ml"``); a float ``sigma2`` above ``lambda_q / N``.
        """
        X = check_array(X, "X")
        self._check_options()
        n_samples = X.shape[0]
        if n_samples < 2:
            raise ValueError(
                "X has 1 sample (n_samples = 1), but probabilistic PCA needs at least 2 samples to "
                "centre the features; pass more samples."
            )
        rng = check_random_state(_legacy_seed(self.random_state))
        self.n_features_in_ = X.shape[1]
        self.X_fit_ = X.copy()  # check_array may return the caller's own array
        Phi = None
        if self.feature_map is not None:
            self.feature_map_ = clone(self.feature_map)
            self.feature_map_.fit(X)
            Phi = self._explicit_features(X)
            self.kernel_ = Linear()
        else:
            self.feature_map_ = None
            # a private copy: changing the user's Kernel instance later must not change the model
            kernel = "rbf" if self.kernel is None else self.kernel
            self.kernel_ = copy.deepcopy(make_kernel(kernel, **(self.kernel_params or {})))
        seed = rng.randint(np.iinfo(np.int32).max)
        if self.setting == "dual":
            values, E, K_c = self._fit_dual(X, Phi, seed)
        else:
            values, E, K_c = self._fit_primal(Phi, seed)
        S, basis = self._subspace_gram(E, K_c)
        del K_c
        F, _, self.rank_ = pivoted_cholesky(S, values[0])
        # sum_{p>q} lambda_p as ||P_perp F||_F^2 (no cancellation); the trace for the ratios
        tail, trace = _residual_energy(F, basis), float(np.trace(S))
        self._set_parameters(values, E, tail, trace, n_samples, rank_size=S.shape[0])
        self._n_features_out = self.E_.shape[1]  # names for get_feature_names_out
        return self

    def _fit_dual(self, X, Phi, seed):
        n_samples = X.shape[0]
        q = check_n_components(self.n_components, n_samples - 1, what="n_samples - 1")
        K = self.kernel_(X if Phi is None else Phi)
        self.centerer_ = GramCenterer()
        K_c = self.centerer_.fit_transform(K)
        values, E = top_eigenpairs(K_c, q, solver=self.eigen_solver, check_rank=False, random_state=seed)
        self._check_spectrum(values, float(np.abs(K).max()), n_samples)
        del K
        if Phi is None:
            self.feature_mean_, self.V_ = None, None
            return values, E, K_c
        self.feature_mean_ = Phi.mean(axis=0)
        self.V_ = (Phi - self.feature_mean_).T @ (E / np.sqrt(values))
        return values, E, None

    def _fit_primal(self, Phi, seed):
        n_samples, n_out = Phi.shape
        q = check_n_components(
            self.n_components,
            min(n_samples - 1, n_out),
            what=f"min(n_samples - 1, n_features_out) = min({n_samples - 1}, {n_out})",
        )
        self.feature_mean_ = Phi.mean(axis=0)
        Phi_c = Phi - self.feature_mean_
        C = Phi_c.T @ Phi_c
        C = 0.5 * (C + C.T)  # exactly symmetric, as the eigensolvers assume
        values, V = top_eigenpairs(C, q, solver=self.eigen_solver, check_rank=False, random_state=seed)
        self._check_spectrum(values, float(np.einsum("ij,ij->i", Phi, Phi).max()), n_out)
        # eps_p = Phi_c v_p / sqrt(lambda_p) (Lemma 1); the sign convention is put on E, as in
        # the dual, so that both settings return the same A_, W_ and h.
        E, signs = flip_signs((Phi_c @ V) / np.sqrt(values), return_signs=True)
        self.V_ = V * signs
        # Uncentred training-Gram statistics without the N x N Gram: r_i = phi_i^T mu, g = mu^T mu.
        self.centerer_ = GramCenterer().fit_features(Phi_c, self.feature_mean_)
        return values, E, None

    def _subspace_gram(self, E, K_c=None):
        """The PSD matrix whose pivoted Cholesky factor gives ``rank_`` (and a basis of H_E).

        Implicit kernel: ``K_c`` (rebuilt exactly as in :meth:`fit` when not given). Explicit
        features, in *both* settings (so that they agree exactly): the smaller of
        ``Phi_c Phi_c^T`` and ``Phi_c^T Phi_c``. The smaller one is also the more accurate: the
        Weyl slack ``(n - rank)`` of :func:`pivoted_cholesky` grows with its size ``n``.
        Returns ``(S, basis)`` with ``basis`` the leading eigenvectors of ``S`` (``E`` or ``V_``).
        """
        if self.feature_map_ is None:
            if K_c is None:
                K_c = GramCenterer().fit_transform(self.kernel_(self.X_fit_))
            return K_c, E
        Phi_c = self._train_features_centred()
        if Phi_c.shape[0] <= Phi_c.shape[1]:
            return Phi_c @ Phi_c.T, E
        S = Phi_c.T @ Phi_c
        return 0.5 * (S + S.T), self.V_

    def _check_spectrum(self, values, scale, n):
        # lambda_1 at rounding level: constant data (or features), nothing to model.
        if not values[0] > rank_tolerance(n) * scale:
            raise ValueError(
                f"n_components={self.n_components} exceeds the numerical rank 0 of the centred "
                "kernel matrix: it has no positive eigenvalue (constant data or features). Check "
                "X, the kernel and its parameters."
            )

    def _set_parameters(self, values, E, tail, trace, n_samples, rank_size):
        q = values.shape[0]
        r = self.rank_
        tol = rank_tolerance(rank_size)
        if q > r or values[-1] <= tol * values[0]:
            raise ValueError(
                f"n_components={q} exceeds the numerical rank {r} of the centred kernel matrix, "
                f"dim(H_E) = {r} (eigenvalues <= {tol:.1e} * largest count as zero); use "
                f"n_components <= {r}."
            )
        bound = values[-1] / n_samples
        if isinstance(self.sigma2, str):
            if q >= r:
                raise ValueError(
                    f"n_components={q} leaves no discarded direction: dim(H_E) = rank(K_c) = {r}, "
                    "and sigma2='ml' is the mean variance of the rank - n_components discarded "
                    f"directions. Use n_components <= {r - 1}, or a float sigma2."
                )
            # a mean of values <= lambda_{q+1} / N: within the bound up to rounding
            sigma2 = min(max(tail, 0.0) / (n_samples * (r - q)), bound)
            if not sigma2 > 0.0:
                raise ValueError(
                    f"n_components={q}: the discarded variance is zero up to rounding, so "
                    "sigma2_ML = 0; use fewer n_components or a float sigma2."
                )
        else:
            sigma2 = float(self.sigma2)
            if sigma2 > bound:
                raise ValueError(
                    f"sigma2={sigma2:.6g} exceeds the bound sigma2 <= lambda_q / N = {bound:.6g} "
                    f"(Prop. 3/6, q = n_components = {q}, N = {n_samples}): W_ML needs "
                    "lambda_q / N - sigma2 >= 0. Pass sigma2 <= "
                    f"{bound:.6g}, sigma2='ml', or fewer n_components."
                )
        self.eigenvalues_ = values
        self.explained_variance_ratio_ = values / trace
        self.total_variance_ = trace / n_samples
        self.sigma2_ = sigma2
        self.E_ = E
        # clipped at 0: sigma2 == lambda_q / N is allowed and may round below it
        self.A_ = E * np.sqrt(np.maximum(1.0 / n_samples - sigma2 / values, 0.0))
        if self.setting == "primal":
            self.W_ = self.V_ * np.sqrt(np.maximum(values / n_samples - sigma2, 0.0))
        elif self.feature_map_ is not None:
            Phi_c = self._explicit_features(self.X_fit_) - self.feature_mean_
            self.W_ = Phi_c.T @ self.A_
        else:
            self.W_ = None
        # K_c A (= Phi_c W): maps h to (k_c)_MAP; (r - g)^T A maps h to mu^T phi_c.
        self._KcA = E * (values * np.sqrt(np.maximum(1.0 / n_samples - sigma2 / values, 0.0)))
        offsets = self.centerer_.row_means_ - self.centerer_.grand_mean_
        self._mean_of_A = offsets @ self.A_

    # ------------------------------------------------------------------------------------------
    # helpers
    # ------------------------------------------------------------------------------------------
    def _check_X(self, X):
        check_is_fitted(self, "A_")
        X = check_array(X, "X")
        check_n_features(X, self.n_features_in_, "X", estimator_name=self)
        return X

    def _train_features_centred(self):
        return self._explicit_features(self.X_fit_) - self.feature_mean_

    def _kernel_rows(self, X):
        """Centred kernel values ``k_c(x)`` (m, N) of validated inputs (implicit kernel)."""
        return self.centerer_.transform(self.kernel_(X, self.X_fit_))

    def _factor(self):
        """Pivoted Cholesky factor of the rebuilt matrix of :meth:`_subspace_gram`.

        Deterministic: the same factor, pivots and rank as in :meth:`fit`.
        """
        S, _ = self._subspace_gram(self.E_)
        F, piv, _ = pivoted_cholesky(S, self.eigenvalues_[0])
        return F[:, : self.rank_], piv[: self.rank_]

    def _feature_basis(self):
        """Orthonormal basis ``Q`` (d x rank_) of ``H_E`` in feature coordinates, or None if H_E = R^d."""
        if self.rank_ == self.V_.shape[0]:
            return None
        F, piv = self._factor()
        if self.A_.shape[0] > self.V_.shape[0]:  # N > d: F F^T = C, range(F) = H_E
            return np.linalg.qr(F)[0]
        # F F^T = K_c: the centred features of the pivot samples span H_E
        return np.linalg.qr(self._train_features_centred()[piv].T)[0]

    def _resolve_space(self, space):
        if not isinstance(space, str) or space not in _SPACES:
            raise ValueError(f"space={space!r} is not supported; use one of {list(_SPACES)}.")
        if space == "auto":
            return "feature" if self.setting == "primal" else "kernel"
        if space == "feature" and self.feature_map_ is None:
            raise ValueError(
                "space='feature' needs explicit features, but the model was fitted with an "
                "implicit kernel (feature_map=None); use space='kernel' or space='input'."
            )
        return space

    # ------------------------------------------------------------------------------------------
    # inference
    # ------------------------------------------------------------------------------------------
    def transform(self, X):
        """Latent MAP ``h = N Lambda_q^{-1} A^T k_c(x) = N Lambda_q^{-1} W^T (phi(x) - mu)``.

        Implements the MAP of :eq:`eq-ppca-dual-posterior` (eq. 16/20) and of
        :eq:`eq-ppca-latent-posterior` (eq. 8/21): ``(A^T K_c A + sigma^2 I)^{-1} A^T k_c`` with
        ``A^T K_c A + sigma^2 I = Lambda_q / N`` at the optimum. With explicit features the
        primal form is used (no kernel rows needed).

        Parameters
        ----------
        X : array-like of shape (n_samples_new, n_features_in_)

        Returns
        -------
        H : ndarray of shape (n_samples_new, n_components)
        """
        X = self._check_X(X)
        N = self.A_.shape[0]
        if self.W_ is not None:
            return N * ((self._explicit_features(X) - self.feature_mean_) @ self.W_) / self.eigenvalues_
        return N * (self._kernel_rows(X) @ self.A_) / self.eigenvalues_

    def latent_posterior(self, X):
        """Mean and covariance of the Gaussian posterior ``h | phi(x)`` (equivalently ``h | k_c``).

        Implements :eq:`eq-ppca-latent-posterior` (Prop. 4, eq. 7) and
        :eq:`eq-ppca-dual-posterior` (Prop. 8, eq. 15): mean ``M^{-1} A^T k_c`` and covariance
        ``sigma^2 M^{-1}``, ``M = A^T K_c A + sigma^2 I = W^T W + sigma^2 I = Lambda_q / N``.

        Parameters
        ----------
        X : array-like of shape (n_samples_new, n_features_in_)

        Returns
        -------
        mean : ndarray of shape (n_samples_new, n_components)
            The MAP, equal to :meth:`transform`.
        covariance : ndarray of shape (n_components, n_components)
            ``N sigma^2 Lambda_q^{-1}``, the same for every point (diagonal since ``R = I``).
        """
        mean = self.transform(X)
        covariance = np.diag(self.A_.shape[0] * self.sigma2_ / self.eigenvalues_)
        return mean, covariance

    def decode(self, H, space="auto", *, top_k=None):
        """Map latent vectors to feature space, kernel space or input space.

        Implements :eq:`eq-ppca-map` (eq. 9/17/22/23): ``phi_MAP = W h + mu`` (feature space),
        ``(k_c)_MAP = K_c A h`` (kernel space: centred kernel values with the training points),
        and their kernel-smoother pre-image :eq:`eq-kernel-smoother` (input space) with
        ``mean_term = (r - g)^T A h`` (``phi_c = Phi_c^T A h``; see
        :func:`rkmlearn.preimage.kernel_smoother`).

        Parameters
        ----------
        H : array-like of shape (m, n_components)
            Latent vectors.
        space : {"auto", "kernel", "feature", "input"}, default="auto"
            ``"auto"``: ``"feature"`` in the primal setting, ``"kernel"`` in the dual.
            ``"feature"`` needs explicit features.
        top_k : int, optional
            Passed to the kernel smoother (``space="input"`` only).

        Returns
        -------
        out : ndarray of shape (m, n_features_out), (m, n_samples_fit) or (m, n_features_in_)
        """
        check_is_fitted(self, "A_")
        space = self._resolve_space(space)
        H = self._check_latent(H, "H")
        if space == "feature":
            return H @ self.W_.T + self.feature_mean_
        k_c = H @ self._KcA.T
        if space == "kernel":
            return k_c
        return kernel_smoother(k_c, self.X_fit_, self.centerer_, mean_term=H @ self._mean_of_A, top_k=top_k)

    def reconstruct(self, X, space="auto", *, top_k=None):
        """Reconstruction ``decode(transform(X))``: dimensionality reduction and back.

        Implements :eq:`eq-ppca-map` (eq. 10 in the primal, eq. 17/22 in the dual):
        ``phi_MAP = W (W^T W + sigma^2 I)^{-1} W^T (phi - mu) + mu`` and
        ``(k_c)_MAP = K_c A h_MAP``; ``space="input"`` adds the kernel-smoother pre-image
        :eq:`eq-kernel-smoother`. As ``sigma2 -> 0`` this is the reconstruction of kernel PCA.

        Parameters
        ----------
        X : array-like of shape (n_samples_new, n_features_in_)
        space : {"auto", "kernel", "feature", "input"}, default="auto"
            See :meth:`decode`.
        top_k : int, optional
            Passed to the kernel smoother (``space="input"`` only).

        Returns
        -------
        X_rec : ndarray
            Shape as in :meth:`decode`.
        """
        return self.decode(self.transform(X), space, top_k=top_k)

    # ------------------------------------------------------------------------------------------
    # generation
    # ------------------------------------------------------------------------------------------
    def _check_latent(self, H, name):
        q = self.A_.shape[1]
        H = check_array(H, name, ensure_2d=False)
        if H.ndim == 1:
            H = H[None, :]
        if H.shape[1] != q:
            raise ValueError(
                f"{name} must have n_components = {q} columns (one per latent coordinate); got "
                f"shape {H.shape}. Pad unused coordinates with zeros."
            )
        return H

    def _sampling_rng(self, random_state):
        seed = self.random_state if random_state is None else random_state
        if isinstance(seed, np.random.Generator):
            return seed
        return check_random_state(seed)

    def sample(self, n_samples=None, latent=None, *, space="auto", top_k=None, random_state=None):
        """Generate from the trained model: ``k_c = B u`` (dual) or ``phi`` (primal).

        Implements :eq:`eq-ppca-kernel-sampling` (eq. 18/24) and, in the primal,
        :eq:`eq-ppca-marginal` (Prop. 2). ``u = (u_q, u_rest) ~ N(0, I)``:

        * implicit kernel: ``k_c = E_q diag(lambda_p / sqrt(N)) u_q + sigma P_perp F u_rest``,
          with ``F`` a pivoted Cholesky factor of ``K_c`` and ``P_perp = I - E_q E_q^T``. Its
          covariance is ``B B^T = K_c A A^T K_c + sigma^2 K_c`` (derivation in the module
          docstring);
        * explicit features (either setting; Prop. 2):
          ``phi = mu + V_q diag((lambda_p / N)^{1/2}) u_q + sigma P_perp Q u_rest``, with ``Q``
          an orthonormal basis of ``H_E`` (identity when ``rank_ = d``) and
          ``P_perp = I - V_q V_q^T``; covariance ``W W^T + sigma^2 I_{H_E}``. Its kernel vector
          ``Phi_c (phi - mu)`` has covariance ``B B^T`` and, for the same ``u_q``, equals the
          kernel sample above.

        ``latent`` fixes ``u_q`` and sets the noise coordinates to 0: the paper's Figure 4c
        (the first two coordinates on a grid, the others 0) is ``latent = [[a, b, 0, ...]]``.

        Parameters
        ----------
        n_samples : int, optional
            Number of samples (default 1). With ``latent`` it must be None or ``len(latent)``.
        latent : array-like of shape (m, n_components) or (n_components,), optional
            The first q coordinates ``u_q`` of ``u`` (standard-normal scale).
        space : {"auto", "kernel", "feature", "input"}, default="auto"
            ``"auto"``: ``"feature"`` (primal) or ``"kernel"`` (dual). ``"input"``: the
            kernel-smoother pre-image :eq:`eq-kernel-smoother` of each sample, with the exact
            ``mu^T phi_c``.
        top_k : int, optional
            Passed to the kernel smoother (``space="input"`` only).
        random_state : int, RandomState instance, Generator or None, optional
            Seed for this call; default: the estimator's ``random_state``.

        Returns
        -------
        samples : ndarray of shape (m, n_samples_fit), (m, n_features_out) or (m, n_features_in_)
            Centred kernel vectors ``k_c`` (kernel), features ``phi`` (feature, mean included) or
            input-space pre-images (input).
        """
        check_is_fitted(self, "A_")
        space = self._resolve_space(space)
        q = self.A_.shape[1]
        if latent is None:
            n = 1 if n_samples is None else check_scalar_range(
                n_samples, "n_samples", low=1, low_inclusive=True, integer=True
            )
            rng = self._sampling_rng(random_state)
            U_q = rng.standard_normal((n, q))
            U_rest = rng.standard_normal((n, self.rank_))
        else:
            U_q = self._check_latent(latent, "latent")
            if n_samples is not None and n_samples != U_q.shape[0]:
                raise ValueError(
                    f"n_samples={n_samples!r} does not match latent, which has {U_q.shape[0]} rows; "
                    "leave n_samples=None when latent is given."
                )
            U_rest = None
        if self.feature_map_ is not None:
            return self._sample_features(U_q, U_rest, space, top_k)
        return self._sample_kernel(U_q, U_rest, space, top_k)

    def _sample_kernel(self, U_q, U_rest, space, top_k):
        """Implicit kernel: ``k_c = E_q diag(lambda / sqrt(N)) u_q + sigma P_perp F u_rest``."""
        N = self.A_.shape[0]
        E = self.E_
        k_c = (U_q * (self.eigenvalues_ / np.sqrt(N))) @ E.T
        # alpha with phi_c = Phi_c^T alpha (for mu^T phi_c): E_q u_q / sqrt(N) for the first part
        alpha = (U_q / np.sqrt(N)) @ E.T
        if U_rest is not None:
            F, piv = self._factor()
            noise = U_rest @ F.T
            noise -= (noise @ E) @ E.T
            k_c += np.sqrt(self.sigma2_) * noise
            if space == "input":
                # K_c beta = P_perp F u for beta = P_perp P [L11^{-T} u; 0], where F = P [L11; L21]
                # (then F^T P [L11^{-T} u; 0] = u, and P_perp commutes with K_c)
                beta = np.zeros((U_rest.shape[0], N))
                beta[:, piv] = scipy.linalg.solve_triangular(F[piv], U_rest.T, lower=True, trans="T").T
                beta -= (beta @ E) @ E.T
                alpha += np.sqrt(self.sigma2_) * beta
        if space == "kernel":
            return k_c
        offsets = self.centerer_.row_means_ - self.centerer_.grand_mean_
        return kernel_smoother(k_c, self.X_fit_, self.centerer_, mean_term=alpha @ offsets, top_k=top_k)

    def _sample_features(self, U_q, U_rest, space, top_k):
        """Explicit features (either setting): ``phi_c = V_q (lambda/N)^{1/2} u_q + sigma P_perp Q u'``.

        Its kernel vector ``Phi_c phi_c`` is ``E_q diag(lambda / sqrt(N)) u_q + ...``: the
        kernel sample with the same ``u_q``.
        """
        N = self.A_.shape[0]
        V = self.V_
        phi_c = (U_q * np.sqrt(self.eigenvalues_ / N)) @ V.T
        if U_rest is not None:
            Q = self._feature_basis()
            noise = U_rest.copy() if Q is None else U_rest @ Q.T  # N(0, I_{H_E})
            noise -= (noise @ V) @ V.T
            phi_c += np.sqrt(self.sigma2_) * noise
        if space == "feature":
            return phi_c + self.feature_mean_
        k_c = phi_c @ self._train_features_centred().T
        if space == "kernel":
            return k_c
        mean_term = phi_c @ self.feature_mean_
        return kernel_smoother(k_c, self.X_fit_, self.centerer_, mean_term=mean_term, top_k=top_k)

    def kernel_covariance(self):
        """Covariance of generated kernel vectors, ``B B^T = K_c A A^T K_c + sigma^2 K_c``.

        Implements the covariance of :eq:`eq-ppca-kernel-sampling` (the marginal of ``k_c``,
        Prop. 9 corrected as in the module docstring). Rebuilds the ``N x N`` centred Gram
        matrix.

        Returns
        -------
        covariance : ndarray of shape (n_samples_fit, n_samples_fit)
        """
        check_is_fitted(self, "A_")
        if self.feature_map_ is not None:
            Phi_c = self._train_features_centred()
            K_c = Phi_c @ Phi_c.T
        else:
            K_c = GramCenterer().fit_transform(self.kernel_(self.X_fit_))
        return self._KcA @ self._KcA.T + self.sigma2_ * K_c

    # ------------------------------------------------------------------------------------------
    # likelihood
    # ------------------------------------------------------------------------------------------
    def score_samples(self, X):
        """Log-density of each sample under the model, ``log p(phi(x))`` in ``H_E``.

        Implements :eq:`eq-ppca-log-likelihood` (Prop. 2, eq. 35): with ``y_p = v_p^T phi_c``
        (``= eps_p^T k_c / sqrt(lambda_p)`` in the dual) and ``phi_c`` projected onto ``H_E``,

        ``log p = -1/2 [ r log(2 pi) + sum_p log(lambda_p / N) + (r - q) log sigma^2
        + sum_p N y_p^2 / lambda_p + ||P_perp phi_c||^2 / sigma^2 ]``, ``r = rank_``.

        The component of ``phi(x)`` outside ``H_E`` is ignored (the paper's ``phi = I_{H_E}
        varphi``). For an implicit kernel, ``||P_{H_E} phi_c||^2 = k_c^T K_c^+ k_c`` comes from a
        pivoted Cholesky factor of ``K_c`` (rebuilt here); with explicit features the feature
        vectors are used directly, in both settings.

        Parameters
        ----------
        X : array-like of shape (n_samples_new, n_features_in_)

        Returns
        -------
        log_density : ndarray of shape (n_samples_new,)
        """
        X = self._check_X(X)
        N, q = self.A_.shape
        if self.feature_map_ is not None:
            phi_c = self._explicit_features(X) - self.feature_mean_
            y = phi_c @ self.V_
            Q = self._feature_basis()
            if Q is None:
                perp = phi_c - y @ self.V_.T
            else:
                perp = phi_c @ Q - y @ (self.V_.T @ Q)  # coordinates in the basis Q of H_E
        else:
            k_c = self._kernel_rows(X)
            y = (k_c @ self.E_) / np.sqrt(self.eigenvalues_)
            F, piv = self._factor()
            # F = P [L11; L21], K_c = F F^T = Phi_c Phi_c^T: z = L11^{-1} k_c[piv] are the
            # coordinates of P_{H_E} phi_c in an orthonormal basis of H_E, where v_p has
            # coordinates F^T eps_p / sqrt(lambda_p).
            z = scipy.linalg.solve_triangular(F[piv], k_c[:, piv].T, lower=True).T
            perp = z - y @ ((F.T @ self.E_) / np.sqrt(self.eigenvalues_)).T
        r = self.rank_
        log_det = np.sum(np.log(self.eigenvalues_ / N)) + (r - q) * np.log(self.sigma2_)
        mahalanobis = (y**2 @ (N / self.eigenvalues_)) + np.einsum("ij,ij->i", perp, perp) / self.sigma2_
        return -0.5 * (r * np.log(2.0 * np.pi) + log_det + mahalanobis)

    def score(self, X, y=None):
        """Mean log-density of the samples, ``mean(score_samples(X))``.

        Implements the average of :eq:`eq-ppca-log-likelihood`; larger is better, so it can
        compare latent dimensions or ``sigma2`` on held-out data (same kernel: the dimension
        ``rank_`` of ``H_E`` must be the same for the densities to be comparable).

        Parameters
        ----------
        X : array-like of shape (n_samples_new, n_features_in_)
        y : ignored

        Returns
        -------
        score : float
        """
        return float(np.mean(self.score_samples(X)))

    def log_likelihood(self, X):
        """Total log-likelihood ``L_phi = sum_i log p(phi(x_i))`` (the paper's eq. 42).

        Implements the sum of :eq:`eq-ppca-log-likelihood`. On the training data with
        ``sigma2="ml"`` it equals ``-(N/2) [r log(2 pi) + sum_p log(lambda_p / N)
        + (r - q) log sigma^2_ML + r]``.

        Parameters
        ----------
        X : array-like of shape (n_samples_new, n_features_in_)

        Returns
        -------
        log_likelihood : float
        """
        return float(np.sum(self.score_samples(X)))

    def fit_transform(self, X, y=None):
        """Fit the model and return the latent MAP of the training data.

        Implements :eq:`eq-ppca-dual-ml` then :eq:`eq-ppca-dual-posterior` (eq. 20).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        H : ndarray of shape (n_samples, n_components)
        """
        return self.fit(X).transform(X)


def _residual_energy(F, basis):
    """``||(I - basis basis^T) F||_F^2``: the variance outside the leading eigendirections.

    Equals ``trace(S) - sum_{p<=q} lambda_p`` for ``S = F F^T``, without the cancellation of
    that difference when the discarded variance is small.
    """
    residual = F - basis @ (basis.T @ F)
    return float(np.einsum("ij,ij->", residual, residual))


def _legacy_seed(random_state):
    """A seed that sklearn's check_random_state accepts (a Generator draws one int)."""
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(np.iinfo(np.int32).max))
    return random_state

