"""Gram-matrix centring with the TRAINING statistics (Chapter 1).

:class:`GramCenterer` centres Gram matrices with the training statistics (:eq:`eq-centering-train`,
:eq:`eq-centering-test`); :func:`centering_matrix` is ``M_c`` itself, for teaching.
"""

from __future__ import annotations

import numpy as np
from sklearn.exceptions import NotFittedError

from .._symmetric import check_symmetric_matrix
from .._validation import check_array, check_scalar_range, validate
from .zoo import _row_blocks

__all__ = ["centering_matrix", "GramCenterer"]


def centering_matrix(n):
    """The centring matrix ``M_c = I - (1/n) 1 1^T`` of :eq:`eq-centering-train`.

    Implements ``M_c`` of :eq:`eq-centering-train` (Chapter 1, *Kernels, feature maps and
    conjugate feature duality*). Meant for teaching and small ``n``; :class:`GramCenterer`
    centres without forming it (``O(n^2)`` instead of two ``O(n^3)`` products).

    Parameters
    ----------
    n : int
        Size, ``n >= 1``.

    Returns
    -------
    M : ndarray of shape (n, n)
    """
    n = check_scalar_range(n, "n", low=1, low_inclusive=True, integer=True)
    M = np.full((n, n), -1.0 / n)
    M[np.diag_indices(n)] += 1.0
    return M


def _train_gram(K, param, arguments):
    """Rule: a square training Gram matrix, made exactly symmetric (copied only if it is not)."""
    return check_symmetric_matrix(K, "K", kind="(n_samples, n_samples) Gram matrix",
                                  what="a symmetric Gram matrix k(x_i, x_j) of the training data",
                                  square_advice=" Compute it as kernel(X) on the training data.",
                                  advice="For a test-vs-train matrix call transform after fit.")


def _test_rows(K_test, param, arguments):
    """Rule: a test-vs-train kernel matrix for a fitted centerer, one column per training sample."""
    centerer = arguments["self"]
    if not hasattr(centerer, "row_means_"):
        raise NotFittedError("This GramCenterer instance is not fitted yet; call fit(K_train) first.")
    K_test = check_array(K_test, "K_test")
    if K_test.shape[1] != centerer.n_samples_fit_:
        raise ValueError(
            f"K_test has {K_test.shape[1]} columns but the centerer was fitted on "
            f"{centerer.n_samples_fit_} training samples; K_test must be k(X_test, X_train) with "
            "one column per training sample."
        )
    return K_test


class GramCenterer:
    """Centre kernel matrices in feature space with the training statistics.

    ``fit_transform(K)`` implements :eq:`eq-centering-train`, ``K_c = M_c K M_c``;
    ``transform(K_test)`` implements :eq:`eq-centering-test` (Chapter 1): test rows centred with
    the row means and grand mean of the UNcentred training Gram matrix, i.e. with the training
    feature mean. Same result as scikit-learn's ``KernelCenterer``, which cannot centre in place
    (:meth:`fit_transform_inplace`: no second ``n x n`` array, the peak of a dual fit).

    Attributes
    ----------
    row_means_ : ndarray of shape (n_samples,)
        ``(1/N) sum_j k(x_i, x_j)`` for each training sample ``i``.
    grand_mean_ : float
        ``(1/N^2) sum_jl k(x_j, x_l)``.
    n_samples_fit_ : int
        Number of training samples ``N``.
    """

    @validate(K=_train_gram)
    def fit(self, K, y=None):
        """Store the statistics of the uncentred, symmetric training Gram matrix ``K`` (n, n)."""
        self._store_statistics(K)
        return self

    def fit_features(self, Phi_c, mean):
        """Store the statistics of the Gram matrix of explicit features, without forming it.

        With ``Phi = Phi_c + 1 mean^T`` the row means of ``Phi Phi^T`` are ``phi_{c,i}^T mean +
        mean^T mean`` and the grand mean ``mean^T mean``: O(n d) instead of the O(n^2 d) Gram.
        ``Phi_c`` (n, d) are the centred features, ``mean`` (d,) their mean.
        """
        mean_sq = float(mean @ mean)
        self.row_means_ = Phi_c @ mean + mean_sq
        self.grand_mean_ = mean_sq
        self.n_samples_fit_ = Phi_c.shape[0]
        return self

    @validate(K_test=_test_rows)
    def transform(self, K_test):
        """Centre a test-vs-train kernel matrix with the training statistics.

        Implements :eq:`eq-centering-test`.

        Parameters
        ----------
        K_test : array-like of shape (n_test, n_samples_fit)
            ``k(x, x_i)`` for test points ``x`` (rows) and training points ``x_i`` (columns).

        Returns
        -------
        K_test_c : ndarray of shape (n_test, n_samples_fit)
        """
        K_c = K_test - K_test.mean(axis=1, keepdims=True)
        K_c -= self.row_means_[None, :]
        K_c += self.grand_mean_
        return K_c

    @validate(K=_train_gram)
    def fit_transform(self, K, y=None):
        """Fit on ``K`` and return ``K_c = M_c K M_c`` (:eq:`eq-centering-train`).

        The result is exactly symmetric, and its rows and columns sum to 0 (up to rounding).
        """
        self._store_statistics(K)
        # K_c = K - (r_i + r_j - g): the offset matrix is exactly symmetric (addition commutes),
        # so K_c is exactly symmetric whenever K is, with one n x n temporary and no transposes.
        K_c = np.add.outer(self.row_means_, self.row_means_)
        K_c -= self.grand_mean_
        np.subtract(K, K_c, out=K_c)
        return K_c

    def fit_transform_inplace(self, K):
        """``fit_transform`` of a Gram matrix the caller owns and built exactly symmetric, in place.

        For the library's own ``kernel(X)``: no symmetry scan (the matrix is symmetric by
        construction) and no second ``n x n`` array; the same bits as :meth:`fit_transform`, row
        block by row block (each block's offset ``r_i + r_j - g`` is formed as there).
        """
        self._store_statistics(K)
        return self.transform_train_inplace(K)

    def transform_train_inplace(self, K):
        """Centre the training Gram matrix ``K`` (exactly symmetric, owned by the caller) in place with
        the fitted statistics: ``K - (r_i + r_j - g)``, row block by row block."""
        r, g = self.row_means_, self.grand_mean_
        for rows in _row_blocks(K.shape[0], K.shape[1]):
            offset = np.add.outer(r[rows], r)
            offset -= g
            K[rows] -= offset
        return K

    @classmethod
    def from_statistics(cls, row_means, grand_mean):
        """A centerer holding given training statistics: the Gram matrix's row means ``r`` (n,) and
        grand mean ``g`` (e.g. computed over row chunks of streamed features, never forming the matrix)."""
        centerer = cls()
        centerer.row_means_, centerer.grand_mean_ = row_means, float(grand_mean)
        centerer.n_samples_fit_ = row_means.shape[0]
        return centerer

    def _store_statistics(self, K):
        self.row_means_ = K.mean(axis=1)
        self.grand_mean_ = float(self.row_means_.mean())
        self.n_samples_fit_ = K.shape[0]
