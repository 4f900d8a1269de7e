r"""Pre-images: from a point of feature space, given by its kernel values, back to input space.

The kernel smoother :eq:`eq-kernel-smoother` (Schreurs & Suykens, 2018) maps a feature-space point
to a weighted mean of the training inputs, with its UNcentred kernel values as weights. Models work
with centred values ``k_c``; :eq:`eq-kernel-smoother-uncentre` (Chapter 7) undoes the centring,
``k(x_i, phi) = k_c,i + r_i + mu^T phi_c``, where only the caller knows ``mu^T phi_c``
(``(r - g)^T alpha`` for ``phi_c = Phi_c^T alpha``).
"""

from __future__ import annotations

import numpy as np

from ._validation import array, check_array, check_scalar_range, validate

__all__ = ["kernel_smoother", "SUM_RTOL"]

#: Stabilisation threshold of :func:`kernel_smoother`: a row whose weight sum is
#: ``<= SUM_RTOL * max_i |k(x_i, phi)|`` is not normalised (its weights would be amplified by
#: more than ``1 / SUM_RTOL``, about 6.7e7) but falls back to the nearest training point.
SUM_RTOL = float(np.sqrt(np.finfo(np.float64).eps))


def _check_centerer(centerer, n_train):
    """A fitted GramCenterer of ``n_train`` training samples, or None (uncentred values)."""
    if centerer is None:  # the values are uncentred kernel values already: nothing to undo
        return
    if getattr(centerer, "row_means_", None) is None or getattr(centerer, "grand_mean_", None) is None:
        raise ValueError(
            "centerer must be a fitted rkmlearn.kernels.GramCenterer (with row_means_ and "
            f"grand_mean_); got {centerer!r}. Call GramCenterer().fit(K_train) on the uncentred "
            "training Gram matrix, or pass the model's centerer_."
        )
    fitted_on = np.shape(centerer.row_means_)[0]
    if np.shape(centerer.row_means_) != (n_train,):
        raise ValueError(
            f"centerer was fitted on {fitted_on} training samples but X_train has "
            f"{n_train}; pass the centerer fitted on the Gram matrix of X_train."
        )


def _check_mean_term(mean_term, n_queries):
    """None, a number, or one value per query row (the body broadcasts it)."""
    if mean_term is None or np.ndim(mean_term) == 0:
        return mean_term if mean_term is None else check_scalar_range(mean_term, "mean_term")
    mean_term = check_array(mean_term, "mean_term", ensure_2d=False)
    if mean_term.shape != (n_queries,):
        raise ValueError(
            f"mean_term must have shape ({n_queries},), one value mu^T phi_c per row of "
            f"k_centred; got shape {mean_term.shape}."
        )
    return mean_term


def check_top_k(top_k, n_train):
    """``top_k`` of :func:`kernel_smoother`: None, or an integer in ``[1, n_train]`` (for callers that pass it on)."""
    if top_k is None:
        return None
    return check_scalar_range(top_k, "top_k", low=1, high=n_train, low_inclusive=True, integer=True)


def _smoother_inputs(arguments):
    """The checks of :func:`kernel_smoother` (after ``k_centred`` and ``X_train``), once at the door."""
    m, n = arguments["k_centred"].shape
    if arguments["X_train"].shape[0] != n:
        raise ValueError(
            f"k_centred has {n} columns but X_train has {arguments['X_train'].shape[0]} rows; k_centred must "
            "hold one column per training point, in the order of the rows of X_train."
        )
    _check_centerer(arguments["centerer"], n)
    arguments["mean_term"] = _check_mean_term(arguments["mean_term"], m)
    arguments["top_k"] = check_top_k(arguments["top_k"], n)
    if not isinstance(arguments["clamp"], (bool, np.bool_)):
        raise ValueError(f"clamp must be True or False; got {arguments['clamp']!r}.")


@validate(k_centred=array(), X_train=array(), then=_smoother_inputs)
def kernel_smoother(k_centred, X_train, centerer, *, mean_term=None, top_k=None, clamp=True,
                    return_weights=False):
    r"""Kernel-smoother pre-image of feature-space points given by centred kernel values.

    Implements :eq:`eq-kernel-smoother` (Part II, Chapter 7, *Kernel sampling and pre-images*; the
    paper's eq. 19): ``x_hat = sum_i w_i x_i`` with weights proportional to the *uncentred*
    kernel values ``k(x_i, phi) = k_c,i + r_i + mu^T phi_c`` (:eq:`eq-kernel-smoother-uncentre`).

    Steps, row by row:

    1. undo the centring: ``k = k_centred + row_means_ + mean_term``;
    2. ``top_k``: keep the ``top_k`` largest ``k`` (the most similar training points), set the
       other weights to 0;
    3. ``clamp``: set negative weights to 0. A valid kernel value of an RBF/Laplacian kernel
       is positive, but a reconstructed or sampled ``phi`` is not the image of any input and
       its kernel values can be negative; a negative weight would push ``x_hat`` away from
       that training point and outside the convex hull of the data;
    4. normalise by the sum. **Stabilisation** (the paper warns that this normaliser is
       unstable for centred models): if the sum is ``<= SUM_RTOL * max_i |k_i|``
       (``SUM_RTOL = sqrt(eps)``, about 1.5e-8; this includes a row of zeros, or, with
       ``clamp``, a row with no positive value), normalising would blow the weights up by
       more than ``1 / SUM_RTOL`` or divide by zero. Such a row instead gets weight 1 on the
       training point of largest ``k`` (ties: the first), i.e. the pre-image is the nearest
       training point for kernels with a constant diagonal (RBF, Laplacian), where the
       largest kernel value is the smallest feature-space distance. No NaN or inf is ever
       produced; ``return_weights=True`` shows which rows fell back (a single weight 1).

    Parameters
    ----------
    k_centred : array-like of shape (m, n)
        Centred kernel values ``k_c,i = (phi_i - mu)^T (phi - mu)`` between ``m`` query points
        ``phi`` (rows) and the ``n`` training points (columns), e.g. a model's reconstruction
        ``K_c A h`` or a kernel sample.
    X_train : array-like of shape (n, d)
        Training inputs ``x_i`` (rows in the order of the columns of ``k_centred``).
    centerer : GramCenterer or None
        Fitted on the uncentred training Gram matrix: ``row_means_`` ``r`` and
        ``grand_mean_`` ``g``. ``None``: ``k_centred`` already holds uncentred kernel values (or
        any nonnegative smoother weights), used as given.
    mean_term : float or array-like of shape (m,), optional
        ``mu^T phi_c`` for each query. For ``phi_c = Phi_c^T alpha`` it is
        ``(row_means_ - grand_mean_) @ alpha``, a fitted view's
        :meth:`~rkmlearn.views.View.preimage_mean_term`. Default 0 (``phi_c`` orthogonal to the mean).
    top_k : int, optional
        Keep only the ``top_k`` largest kernel values, ``1 <= top_k <= n``. ``top_k=1``
        returns the most similar training point.
    clamp : bool, default=True
        Set negative weights to 0 before normalising.
    return_weights : bool, default=False
        Also return the weights.

    Returns
    -------
    X_hat : ndarray of shape (m, d)
        Pre-images.
    weights : ndarray of shape (m, n)
        Only when ``return_weights``: each row sums to 1 (non-negative with ``clamp``).

    Examples
    --------
    >>> import numpy as np
    >>> from rkmlearn.kernels import RBF, GramCenterer
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> centerer = GramCenterer()
    >>> K_c = centerer.fit_transform(RBF(0.3)(X))
    >>> # training point 1 is phi_c = Phi_c^T e_1, so mu^T phi_c = r_1 - g
    >>> mean_term = centerer.row_means_[1] - centerer.grand_mean_
    >>> kernel_smoother(K_c[[1]], X, centerer, mean_term=[mean_term], top_k=1)
    array([[1., 0.]])
    """
    m, n = k_centred.shape
    row_means = np.zeros(n) if centerer is None else np.asarray(centerer.row_means_, dtype=np.float64)
    mean_term = np.zeros(m) if mean_term is None else np.broadcast_to(np.asarray(mean_term, dtype=np.float64), (m,))

    # Scale each row by its largest term before adding: kernel values near 1e308 must not overflow
    # the sum (the weights, a ratio, do not change).
    scale = np.maximum(np.abs(k_centred).max(axis=1), np.abs(mean_term))
    scale = np.maximum(scale, np.abs(row_means).max())
    scale[scale == 0.0] = 1.0
    k = k_centred / scale[:, None]
    k += row_means[None, :] / scale[:, None]
    k += (mean_term / scale)[:, None]
    weights = k.copy()
    if top_k is not None and top_k < n:
        # argpartition puts the top_k largest values (of -k: smallest) in the first top_k slots
        keep = np.argpartition(-k, top_k - 1, axis=1)[:, :top_k]
        mask = np.zeros(k.shape, dtype=bool)
        mask[np.arange(m)[:, None], keep] = True
        weights[~mask] = 0.0
    if clamp:
        np.maximum(weights, 0.0, out=weights)

    total = weights.sum(axis=1)
    unstable = total <= SUM_RTOL * np.abs(k).max(axis=1)
    stable = ~unstable
    weights[stable] /= total[stable, None]
    if np.any(unstable):
        rows = np.flatnonzero(unstable)
        weights[rows] = 0.0
        weights[rows, np.argmax(k[rows], axis=1)] = 1.0
    X_hat = weights @ X_train
    return (X_hat, weights) if return_weights else X_hat
