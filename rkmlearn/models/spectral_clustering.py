r"""Kernel spectral clustering (KSC) in its LS-SVM / RKM form (Alzate & Suykens, 2010; Part VI).

The primal problem is a weighted kernel PCA: for ``l = 1 .. k-1`` score variables
``e_l = Phi w_l + b_l 1`` with the weighting ``V = D^{-1}`` (``D = diag(Omega 1)``, the degrees
of the kernel graph). Its dual is the eigenproblem

``D^{-1} M_D Omega alpha_l = lambda_l alpha_l``,  ``M_D = I - 1 1^T D^{-1} / (1^T D^{-1} 1)``,

``b_l = -1^T D^{-1} Omega alpha_l / (1^T D^{-1} 1)``. The matrix is not symmetric, but
``Q = D^{-1} M_D = D^{-1} - D^{-1} 1 1^T D^{-1} / (1^T D^{-1} 1)`` is: with
``S = D^{-1/2} Omega D^{-1/2}`` (the normalised affinity), ``v = D^{-1/2} 1 / ||D^{-1/2} 1||`` and
the projector ``P = I - v v^T``, ``Q = D^{-1/2} P D^{-1/2}``. For ``beta = D^{1/2} alpha`` the
problem reads ``P S beta = lambda beta``; an eigenvector with ``lambda != 0`` lies in the range of
``P`` (``beta = P beta``), so it is an eigenvector of the SYMMETRIC matrix ``P S P``, and back.
The nonzero eigenpairs of ``Q Omega`` are therefore ``alpha = D^{-1/2} beta`` for the top
eigenpairs ``beta`` of ``P S P``. (``P`` is not the deflation of the normalised affinity's
trivial eigenvector ``D^{1/2} 1``: the weighting ``V = D^{-1}`` centres with ``D^{-1/2} 1``.) So
one symmetric eigensolve of ``k - 1`` pairs
(:func:`~rkmlearn.solvers.eigen.top_eigenpairs`) solves the dual; ``tests/test_spectral_clustering.py``
checks it against a dense solve of the non-symmetric problem.

Cluster codes are the signs of the scores; the ``k`` most frequent training codewords form the
codebook and a point goes to the codeword nearest in Hamming distance. The out-of-sample extension
is the dual model itself: ``e(x) = sum_i alpha_i K(x, x_i) + b``.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import array, check_scalar_range, checked_by, validate
from ..base import estimator_init
from ..solvers.eigen import top_eigenpairs
from ..views import View

__all__ = ["KernelSpectralClustering", "balanced_line_fit"]


class KernelSpectralClustering(ClusterMixin, TransformerMixin, BaseEstimator):
    r"""Kernel spectral clustering, the weighted kernel PCA of Alzate & Suykens (2010) (Part VI).

    Implements :eq:`eq-ksc-dual`, :eq:`eq-ksc-bias` and the model selection criterion
    :eq:`eq-ksc-blf` (Chapter 11, *Kernel spectral clustering*).

    Parameters
    ----------
    n_clusters : int, default=2
        ``k``; the model has ``k - 1`` score variables (``k = 1``, scikit-learn's trivial case: no
        score variable, every point in cluster 0).
    kernel : str, Kernel, callable or None, default="rbf"
        As in :class:`~rkmlearn.KPCA`; the kernel values must be non-negative with positive row sums
        (the degrees), as the RBF kernel's are.
    kernel_params : dict or None, default=None
        E.g. ``{"sigma": 0.5}``.
    random_state : int, RandomState, Generator or None, default=None
        Start of the iterative eigensolver (results do not depend on it beyond rounding).

    Attributes
    ----------
    alpha_ : ndarray of shape (n_samples, n_clusters - 1)
        Dual coefficients ``alpha_l``.
    intercept_ : ndarray of shape (n_clusters - 1,)
        Biases ``b_l``.
    eigenvalues_ : ndarray of shape (n_clusters - 1,)
        ``lambda_l``, descending (``<= 1``).
    codebook_ : ndarray of shape (n_clusters, n_clusters - 1)
        Codewords in {-1, +1}, most frequent in training first: cluster ``c`` is row ``c``.
    labels_ : ndarray of shape (n_samples,)
        Training clusters.
    degrees_ : ndarray of shape (n_samples,)
        ``Omega 1``.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(size=(20, 2)), rng.normal(size=(20, 2)) + 6])
    >>> labels = KernelSpectralClustering(2, kernel_params={"sigma": 2.0}).fit_predict(X)
    >>> sorted(np.bincount(labels).tolist())
    [20, 20]
    """

    __init__ = estimator_init({"n_clusters": 2}, {"kernel": "rbf", "kernel_params": None, "random_state": None})

    def _check_n_clusters(self, X, name, arguments):
        n = X.shape[0]
        if isinstance(self.n_clusters, (bool, np.bool_)) or not isinstance(self.n_clusters, (int, np.integer)):
            raise ValueError(f"n_clusters must be an integer >= 1; got {self.n_clusters!r}.")
        if self.n_clusters < 1:
            raise ValueError(f"n_clusters must be >= 1 (KSC has n_clusters - 1 score variables); got {self.n_clusters}.")
        if self.n_clusters > n:
            raise ValueError(f"n_clusters={self.n_clusters} is larger than the number of samples ({n}); "
                             "pass fewer clusters or more samples.")
        return X

    @validate(X=array(), then=lambda a: a["self"]._check_n_clusters(a["X"], "X", a))
    def fit(self, X, y=None):
        """Solve the dual eigenproblem on ``X`` (n_samples, n_features) and cluster the training points."""
        view = View(kernel=self.kernel, kernel_params=self.kernel_params).fit(X, centre=False)
        Omega = view.gram()
        degrees = Omega.sum(axis=1)
        if np.any(Omega < 0) or np.any(degrees <= 0):
            raise ValueError(
                "the kernel matrix must be non-negative with positive row sums (the degrees of the kernel graph); "
                f"kernel={self.kernel!r} gave a negative value or a zero degree. Use the RBF kernel (kernel='rbf') "
                "or a larger sigma.")
        k1 = self.n_clusters - 1
        self.view_, self.degrees_, self.n_features_in_ = view, degrees, X.shape[1]
        if k1 == 0:  # one cluster: nothing to solve
            self.alpha_, self.intercept_, self.eigenvalues_ = np.zeros((len(X), 0)), np.zeros(0), np.zeros(0)
            self.codebook_, self.labels_ = np.zeros((1, 0)), np.zeros(len(X), dtype=np.intp)
            return self
        root = np.sqrt(degrees)
        S = Omega / root[:, None] / root[None, :]
        v = 1.0 / root
        v /= np.linalg.norm(v)
        Sv = S @ v
        S += np.outer(v, (v @ Sv) * v - Sv) - np.outer(Sv, v)  # P S P = S - v (Sv)^T - (Sv) v^T + (v^T S v) v v^T
        S = 0.5 * (S + S.T)  # exactly symmetric for the symmetric eigensolver
        seed = 0 if self.random_state is None else self.random_state
        values, beta = top_eigenpairs(S, k1, check_rank=False, random_state=seed, symmetric=True)
        alpha = beta / root[:, None]
        inv_deg = 1.0 / degrees
        self.intercept_ = -(inv_deg @ (Omega @ alpha)) / inv_deg.sum()
        self.alpha_, self.eigenvalues_ = alpha, values
        scores = Omega @ alpha + self.intercept_
        self.codebook_ = _codebook(np.where(scores >= 0, 1.0, -1.0), self.n_clusters)
        self.labels_ = _decode(scores, self.codebook_)
        return self

    def _check_input(self, X):
        check_is_fitted(self, "alpha_")
        return self.view_.check_input(X, "X", estimator=self)

    @validate(X=checked_by("_check_input"))
    def transform(self, X):
        """Score variables ``e(x) = sum_i alpha_i K(x, x_i) + b`` (m, n_clusters - 1): the out-of-sample extension."""
        return self.view_.kernel_rows(X) @ self.alpha_ + self.intercept_

    @validate(X=checked_by("_check_input"))
    def predict(self, X):
        """Cluster of each row of ``X``: the codeword nearest (Hamming) to the signs of its scores."""
        return _decode(self.transform(X), self.codebook_)

    @validate(X=checked_by("_check_input"))
    def score(self, X, y=None, eta=0.75):
        """The balanced line fit criterion (:func:`balanced_line_fit`) of validation points ``X``; higher is better."""
        scores = self.transform(X)
        return balanced_line_fit(scores, _decode(scores, self.codebook_), self.n_clusters, eta=eta)


def _codebook(codes, k):
    """The ``k`` most frequent rows of ``codes`` (ties: lexicographic order of the codeword), as float rows."""
    words, counts = np.unique(codes, axis=0, return_counts=True)
    order = np.lexsort((np.arange(len(words)), -counts))  # np.unique sorted the words: ties stay in that order
    chosen = words[order[:k]]
    if len(chosen) < k:  # fewer distinct sign patterns than clusters: pad with unused codewords
        extra = [w for w in _all_words(codes.shape[1]) if not (chosen == w).all(axis=1).any()]
        chosen = np.vstack([chosen, extra[:k - len(chosen)]])
    return chosen


def _all_words(bits):
    grid = np.array(np.meshgrid(*[[-1.0, 1.0]] * bits, indexing="ij")).reshape(bits, -1).T
    return list(grid)


def _decode(scores, codebook):
    """Nearest codeword in Hamming distance of ``sign(scores)``; ties go to the more frequent codeword."""
    signs = np.where(scores >= 0, 1.0, -1.0)
    distances = (signs[:, None, :] != codebook[None, :, :]).sum(axis=2)
    return np.argmin(distances, axis=1)


def balanced_line_fit(scores, labels, n_clusters, *, eta=0.75):
    r"""The balanced line fit (BLF) model-selection criterion of KSC, in [0, 1], higher is better.

    ``BLF = eta * linefit + (1 - eta) * balance`` over validation scores (Alzate & Suykens, 2010).
    ``balance`` is the size of the smallest cluster over that of the largest. For ``k >= 3``
    ``linefit`` is the paper's collinearity of each cluster's score vectors: with ``zeta_1 >= ...``
    the eigenvalues of the covariance of cluster ``p``'s scores,
    ``(1/k) sum_p (k-1)/(k-2) (zeta_1 / sum_i zeta_i - 1/(k-1))`` (1 when every cluster lies on a
    line). For ``k = 2`` the scores are one number per point; we use its one-dimensional analogue,
    the share of the scores' variance between the two clusters,
    ``1 - sum_p sum_{i in p} (e_i - mean_p)^2 / sum_i (e_i - mean)^2`` (1 when each cluster's scores
    collapse to one value); this is ours, not the paper's definition.

    Parameters
    ----------
    scores : ndarray of shape (m, n_clusters - 1)
    labels : ndarray of shape (m,)
        Clusters 0 .. n_clusters - 1 (a missing cluster gives balance 0).
    n_clusters : int
    eta : float, default=0.75
        Weight of the line fit, in [0, 1].
    """
    scores = np.asarray(scores, dtype=np.float64).reshape(len(labels), -1)
    eta = check_scalar_range(eta, "eta", low=0.0, high=1.0, low_inclusive=True, high_inclusive=True)
    sizes = np.bincount(labels, minlength=n_clusters)
    balance = sizes.min() / sizes.max()
    if n_clusters == 2:
        total = ((scores - scores.mean(axis=0)) ** 2).sum()
        within = sum(((scores[labels == p] - scores[labels == p].mean(axis=0)) ** 2).sum()
                     for p in range(2) if sizes[p])
        linefit = 1.0 - within / total if total > 0 else 0.0
    else:
        fits = []
        for p in range(n_clusters):
            if sizes[p] < 2:
                fits.append(0.0)
                continue
            zeta = np.linalg.eigvalsh(np.cov(scores[labels == p], rowvar=False))
            total = zeta.sum()
            share = zeta[-1] / total if total > 0 else 1.0
            fits.append((n_clusters - 1) / (n_clusters - 2) * (share - 1.0 / (n_clusters - 1)))
        linefit = float(np.mean(fits))
    return float(eta * linefit + (1.0 - eta) * balance)
