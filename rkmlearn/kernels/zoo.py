"""The kernel zoo of Chapter 1 and the squared distances it is built on.

Each :class:`Kernel` evaluates ``k(x, y) = <phi(x), phi(y)>`` (:eq:`eq-kernel-trick`) for all pairs
of rows of two data matrices (the zoo of :eq:`eq-kernel-zoo`). RBF and Laplacian use the papers'
bandwidth ``sigma`` (scikit-learn's ``gamma = 1 / (2 sigma^2)`` and ``1 / sigma``). Float64
throughout; ``K(X)`` is exactly symmetric with the exact diagonal.
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics.pairwise import manhattan_distances

from .._blas import gram_upper, product
from .._symmetric import TILE, finish_upper_tiles, symmetrize_inplace
from .._validation import all_finite, array, check_scalar_range, validate

__all__ = ["Kernel", "Linear", "RBF", "Laplacian", "Polynomial", "Cosine", "squared_euclidean_distances"]


def _same_features(arguments):
    """``X`` and ``Y`` (when given) have the same number of features: the cross-check of a kernel's inputs."""
    X, Y = arguments["X"], arguments.get("Y")
    if Y is not None and Y.shape[1] != X.shape[1]:
        raise ValueError(
            f"Y has {Y.shape[1]} features but X has {X.shape[1]}; X and Y must have the same "
            "number of features (columns) to evaluate a kernel between them."
        )


#: The inputs of a kernel evaluation: ``X`` and an optional ``Y`` with the same columns.
kernel_inputs = validate(X=array(), Y=array(optional=True), then=_same_features)


@kernel_inputs
def squared_euclidean_distances(X, Y=None):
    """Pairwise squared Euclidean distances in BLAS form, clipped at zero.

    Implements :eq:`eq-sqdist` (Chapter 1): ``||x - y||^2 = ||x||^2 + ||y||^2 - 2 x^T y``, one
    BLAS product, clipped at 0 (rounding). ``X`` (n_X, d), ``Y`` (n_Y, d) or None for ``X``; the
    result (n_X, n_Y) is exactly symmetric with a zero diagonal when ``Y`` is None.
    """
    return _distances_then(X, Y)


def _distances_then(X, Y, then=None):
    """Squared distances (validated ``X``, ``Y``), each block passed to ``then(block)`` in place.

    ``then`` is a kernel's element-wise map of the distances (``exp(-d / 2 sigma^2)`` for RBF),
    applied while the block is in cache. ``Y is None``: only the upper triangle is computed (BLAS
    ``syrk``, half a GEMM) and finished, tile by tile, each tile mirrored into the lower triangle
    as it is done: exactly symmetric by construction, half the element-wise work. The products
    are SciPy's BLAS, the factorisations' library (:mod:`rkmlearn._blas` says why).
    """
    x_sq = np.einsum("ij,ij->i", X, X)
    if Y is not None:
        D = product(X, Y.T)
        y_sq = np.einsum("ij,ij->i", Y, Y)
        for rows in _row_blocks(D.shape[0], D.shape[1]):
            block = D[rows]
            block *= -2.0
            block += x_sq[rows, None]
            block += y_sq[None, :]
            np.maximum(block, 0.0, out=block)
            if then is not None:
                then(block)
        return D

    def finish(block, rows, cols):
        block *= -2.0
        # x_i^2 + x_j^2: symmetric, addition commutes
        block += np.add.outer(x_sq[rows], x_sq[cols])
        if rows == cols:
            np.fill_diagonal(block, 0.0)
        np.maximum(block, 0.0, out=block)
        if then is not None:
            then(block)

    return finish_upper_tiles(gram_upper(X), finish)


def _row_blocks(n_rows, n_cols):
    """Row slices of about ``TILE * TILE`` entries each (the rectangular case's tiles)."""
    step = max(1, (TILE * TILE) // max(n_cols, 1))
    return [slice(i, i + step) for i in range(0, n_rows, step)]


class Kernel:
    """Base class of the kernels: a positive semi-definite function ``k(x, y)``.

    A kernel is called on data matrices: ``kernel(X, Y)`` returns the ``(n_X, n_Y)`` matrix of
    ``k(x_i, y_j)`` (:eq:`eq-kernel-trick`); ``kernel(X)`` returns the Gram matrix of ``X``,
    exactly symmetric and with exact diagonal :meth:`diag`.

    Subclasses set ``_param_names`` and implement ``_validate_params`` (returning the
    validated values), ``_compute(X, Y, params)`` and ``_diag(X, params)``.
    Hyperparameters are validated when the kernel is built and again on every call (they are
    plain attributes that can be changed in between); the data only when the call comes from
    outside the library (:func:`~rkmlearn._validation.validate`).
    """

    _param_names: tuple[str, ...] = ()
    # True when ``_compute(X, None)`` is already exactly symmetric (saves one n x n pass).
    _symmetric_compute = False

    def _validate_params(self):
        return {}

    def _compute(self, X, Y, params):  # pragma: no cover - abstract
        raise NotImplementedError

    def _diag(self, X, params):  # pragma: no cover - abstract
        raise NotImplementedError

    @kernel_inputs
    def __call__(self, X, Y=None):
        """Evaluate the kernel between the rows of ``X`` and of ``Y`` (default ``Y = X``).

        Parameters
        ----------
        X : array-like of shape (n_X, n_features)
        Y : array-like of shape (n_Y, n_features), optional

        Returns
        -------
        K : ndarray of shape (n_X, n_Y), float64
        """
        params = self._validate_params()
        # An overflow to inf is either the right limit (RBF with a tiny sigma: exp(-inf) = 0) or
        # caught by the finiteness check below, with a message that names the cause.
        with np.errstate(over="ignore", invalid="ignore"):
            K = self._compute(X, Y, params)
            if Y is None:
                K[np.diag_indices_from(K)] = self._diag(X, params)
        if not self._finite_by_construction(X, Y, params):
            self._check_finite(K)
        if Y is None and not self._symmetric_compute:
            K = symmetrize_inplace(K)
        return K

    @kernel_inputs
    def blocks(self, X, Y=None):
        """``block(rows, cols)``: the block ``K(X, Y)[rows, cols]`` (two slices of rows; ``Y = None``:
        of the Gram matrix ``K(X)``), to work with a kernel matrix a tile at a time without forming it
        (Chapter 8's coupled system and its decision values). A diagonal block of the Gram matrix
        (``rows == cols``) has the exact diagonal; other entries may differ from the whole matrix's
        in the last bit. Here: the kernel called on the two slices."""
        if Y is not None:
            return lambda rows, cols: self(X[rows], Y[cols])
        return lambda rows, cols: self(X[rows]) if rows == cols else self(X[rows], X[cols])

    def _finite_by_construction(self, X, Y, params):
        """Whether ``_compute`` cannot have overflowed on these inputs (a bound, O(n d)): then the
        O(n^2) finiteness scan of the result is skipped."""
        return False

    def _check_finite(self, K):
        """Finite inputs can still overflow (``X * 1e160``, a degree-400 polynomial): say so."""
        if not all_finite(K):
            raise ValueError(
                f"the kernel values of {self!r} overflowed (inf or NaN from finite X): X is too large "
                "for this kernel. Rescale X (e.g. sklearn.preprocessing.StandardScaler) or choose "
                "smaller kernel parameters."
            )
        return K

    @validate(X=array())
    def diag(self, X):
        """Diagonal ``k(x_i, x_i)``, shape (n_samples,), of the Gram matrix of ``X`` (n_samples, n_features),
        without forming the matrix."""
        params = self._validate_params()
        return self._diag(X, params)

    def get_params(self, deep=True):
        """Hyperparameters as a dict (same contract as scikit-learn's ``get_params``)."""
        return {name: getattr(self, name) for name in self._param_names}

    def set_params(self, **params):
        """Set hyperparameters (validated on the next call); returns ``self``."""
        for name, value in params.items():
            if name not in self._param_names:
                raise ValueError(
                    f"{name!r} is not a parameter of {type(self).__name__}; valid parameters: "
                    f"{list(self._param_names)}."
                )
            setattr(self, name, value)
        self._validate_params()
        return self

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other):
        if type(self) is not type(other):
            return NotImplemented
        return self.get_params() == other.get_params()

    def __hash__(self):
        return hash((type(self).__name__, tuple(map(repr, self.get_params().values()))))


class Linear(Kernel):
    """Linear kernel ``k(x, y) = x^T y`` (:eq:`eq-kernel-zoo`, Chapter 1, *Kernels, feature
    maps and conjugate feature duality*); its feature map is the identity.

    Examples
    --------
    >>> Linear()([[1.0, 2.0]], [[3.0, 4.0]])
    array([[11.]])
    """

    def _compute(self, X, Y, params):
        return X @ (X if Y is None else Y).T

    def _diag(self, X, params):
        return np.einsum("ij,ij->i", X, X)


class _BandwidthKernel(Kernel):
    """A kernel ``exp(-distance / bandwidth)`` with one parameter ``sigma > 0``; diagonal exactly 1."""

    _param_names = ("sigma",)

    def __init__(self, sigma=1.0):
        self.sigma = sigma
        self._validate_params()

    def _validate_params(self):
        return {"sigma": check_scalar_range(self.sigma, "sigma", low=0.0)}

    def _diag(self, X, params):
        return np.ones(X.shape[0])


class RBF(_BandwidthKernel):
    """Gaussian (RBF) kernel ``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))``.

    Implements the RBF entry of :eq:`eq-kernel-zoo` with squared distances from
    :eq:`eq-sqdist` (Chapter 1, *Kernels, feature maps and conjugate feature duality*). This is
    scikit-learn's ``rbf_kernel`` with ``gamma = 1 / (2 sigma^2)``, computed the same way (BLAS
    form, clipped at 0); values lie in (0, 1] and the diagonal is exactly 1.

    Parameters
    ----------
    sigma : float, default=1.0
        Bandwidth, ``sigma > 0`` (finite).
    """

    _symmetric_compute = True  # the distances are symmetrised, exp keeps exact symmetry

    def _compute(self, X, Y, params):
        sigma = params["sigma"]
        c = _rbf_scale(X, Y, sigma)
        if c is not None:
            return _rbf_exponents_then_exp(X, Y, c)
        unit = extreme_scale(X, Y)
        if unit is not None:
            return _rbf_scaled_first(X, Y, sigma, unit)

        def gaussian(D):  # on each block of distances while it is in cache
            # divided twice, never by sigma**2, which over/underflows for sigma = 1e300 or 1e-300
            D /= -2.0 * sigma
            D /= sigma
            np.exp(D, out=D)

        return _distances_then(X, Y, gaussian)

    @kernel_inputs
    def blocks(self, X, Y=None, *, multiply=product):
        # the exponents as ONE product of augmented rows (_rbf_augmented_rows): no broadcast pass per block;
        # multiply=np.matmul: NumPy's BLAS, which releases the GIL (the matrix-free level's threads)
        c = _rbf_scale(X, Y, self._validate_params()["sigma"])
        if c is None:
            return super().blocks(X, Y)
        left, right = _rbf_augmented_rows(X, X if Y is None else Y, c)

        def block(rows, cols):
            B = _exp_clipped(multiply(left[rows], right[cols].T))
            if Y is None and rows == cols:
                np.fill_diagonal(B, 1.0)
            return B

        return block

    def _finite_by_construction(self, X, Y, params):
        # the fused path's exponents are bounded by 4 c max ||x||^2 < 1e300: exp of them is finite
        return _rbf_scale(X, Y, params["sigma"]) is not None


def _rbf_scale(X, Y, sigma):
    """``c = 1 / (2 sigma^2)`` when the fused RBF path is safe for these inputs, else None.

    Safe: ``c`` is a normal float and ``4 c max ||x||^2`` (a bound on every exponent and partial
    sum, by Cauchy-Schwarz) stays below ``1e300``. Outside that (``sigma = 1e-300``, ``1e300``,
    ``X * 1e160``) the distances path divides by ``sigma`` twice and saturates correctly.
    """
    c = (0.5 / sigma) / sigma
    if not (np.isfinite(c) and c >= np.finfo(np.float64).tiny) or extreme_scale(X, Y) is not None:
        return None
    sq = max(float(np.einsum("ij,ij->i", A, A).max(initial=0.0)) for A in ((X,) if Y is None else (X, Y)))
    return c if np.isfinite(sq) and 4.0 * c * sq < 1e300 else None


#: Entries of magnitude outside ``[1e-140, 1e140]``: their squares (and products) leave the normal
#: range of float64 (``2.2e-308 .. 1.8e308``) or come within a few digits of it, where squared
#: distances lose their digits to underflow (``X * 1e-160``: every distance 0) or overflow.
_SQUARE_SAFE = (1e-140, 1e140)


def extreme_scale(X, Y):
    """The power of two nearest below ``max |x_ij|`` (over ``X`` and ``Y``) when that magnitude is
    outside :data:`_SQUARE_SAFE`, else None (the ordinary case: an O(n d) look at the entries).

    Such inputs are divided by this power of two (exact, no rounding) before any square is taken:
    :func:`_rbf_scaled_first`. All-zero inputs are ordinary (every distance is exactly 0).
    """
    top = max(float(np.abs(A).max(initial=0.0)) for A in ((X,) if Y is None else (X, Y)))
    if top == 0.0 or _SQUARE_SAFE[0] <= top <= _SQUARE_SAFE[1]:
        return None
    return float(np.ldexp(1.0, np.frexp(top)[1] - 1))


def _rbf_scaled_first(X, Y, sigma, unit):
    """The RBF kernel of inputs of extreme magnitude: distances of ``X / unit`` (entries in
    ``[-1, 1]``, so the squares neither underflow nor overflow), then ``exp(-D r^2 / 2)`` with
    ``r = unit / sigma`` (clipped at 1e300: beyond it every nonzero distance gives exactly 0, and a
    zero distance gives 1 rather than ``0 * inf``)."""
    r = min(unit / sigma, 1e300)

    def gaussian(D):
        D *= -0.5 * r
        D *= r
        np.exp(D, out=D)

    return _distances_then(X / unit, None if Y is None else Y / unit, gaussian)


def _rbf_exponents_then_exp(X, Y, c):
    """``exp(min(2 c x^T y - c ||x||^2 - c ||y||^2, 0))``: the RBF kernel with the scale fused in.

    The same BLAS form as :eq:`eq-sqdist`, with the scale ``-c = -1 / (2 sigma^2)`` folded into the
    product and the squared norms, then the clip and ``exp`` (:func:`_exp_clipped`): half the
    element-wise passes of distances-then-map. ``Y is None``: ``syrk`` (``alpha = 2c``) forms the
    upper triangle, each tile gets the two norm terms, is finished and mirrored as it is done, so
    the matrix is exactly symmetric (the caller sets the diagonal to exactly 1); else ONE product
    of augmented rows (:func:`_rbf_augmented_rows`) finished a row block at a time, in cache.
    """
    if Y is not None:
        left, right = _rbf_augmented_rows(X, Y, c)
        K = product(left, right.T)
        for rows in _row_blocks(K.shape[0], K.shape[1]):
            _exp_clipped(K[rows])
        return K
    h = np.einsum("ij,ij->i", X, X)
    h *= -c

    def finish(block, rows, cols):
        block += h[rows, None]
        block += h[None, cols]
        _exp_clipped(block)

    return finish_upper_tiles(gram_upper(X, alpha=2.0 * c), finish)


def _rbf_augmented_rows(X, Y, c):
    """``[2c x, -c ||x||^2, 1]`` per row of ``X`` and ``[y, 1, -c ||y||^2]`` per row of ``Y``: their
    product is the matrix of RBF exponents ``2c x^T y - c ||x||^2 - c ||y||^2``, norms included
    (one BLAS product, no broadcast pass over the result)."""

    def augmented(A, scale, norm_first):
        h, ones = np.einsum("ij,ij->i", A, A)[:, None] * -c, np.ones((A.shape[0], 1))
        return np.hstack([A * scale, h, ones] if norm_first else [A, ones, h])

    return augmented(X, 2.0 * c, True), augmented(Y, 1.0, False)


def _exp_clipped(B):
    """``exp(min(B, 0))`` in place: a rounded exponent above 0 (a distance below 0) gives exactly 1."""
    np.minimum(B, 0.0, out=B)
    np.exp(B, out=B)
    return B


class Laplacian(_BandwidthKernel):
    """Laplacian kernel ``k(x, y) = exp(-||x - y||_1 / sigma)``.

    Implements the Laplacian entry of :eq:`eq-kernel-zoo` (Chapter 1, *Kernels, feature maps and
    conjugate feature duality*). The L1 distances come from scikit-learn's
    ``manhattan_distances`` (SciPy's ``cdist``, as fast as a NumPy version and without its
    ``n_X * n_Y * n_features`` temporary). Equals scikit-learn's ``laplacian_kernel`` with
    ``gamma = 1 / sigma``; the diagonal is exactly 1.

    Parameters
    ----------
    sigma : float, default=1.0
        Bandwidth, ``sigma > 0`` (finite).
    """

    def _compute(self, X, Y, params):
        K = manhattan_distances(X, X if Y is None else Y)
        K /= -params["sigma"]  # not * (-1 / sigma): 1 / sigma overflows for tiny sigma
        np.exp(K, out=K)
        return K


class Polynomial(Kernel):
    """Polynomial kernel ``k(x, y) = (x^T y + c)^degree``.

    Implements the polynomial entry of :eq:`eq-kernel-zoo` (Chapter 1, *Kernels, feature maps and
    conjugate feature duality*). Equals scikit-learn's ``polynomial_kernel`` with ``gamma=1`` and
    ``coef0=c``.

    Parameters
    ----------
    degree : int, default=3
        Integer ``degree >= 1``.
    c : float, default=1.0
        Offset ``c >= 0`` (``c > 0`` adds all monomials of lower degree).
    """

    _param_names = ("degree", "c")

    def __init__(self, degree=3, c=1.0):
        self.degree = degree
        self.c = c
        self._validate_params()

    def _validate_params(self):
        return {
            "degree": check_scalar_range(
                self.degree, "degree", low=1, low_inclusive=True, integer=True
            ),
            "c": check_scalar_range(self.c, "c", low=0.0, low_inclusive=True),
        }

    def _compute(self, X, Y, params):
        K = X @ (X if Y is None else Y).T
        K += params["c"]
        return K ** params["degree"]

    def _diag(self, X, params):
        return (np.einsum("ij,ij->i", X, X) + params["c"]) ** params["degree"]


class Cosine(Kernel):
    """Cosine kernel ``k(x, y) = x^T y / (||x|| ||y||)``.

    Implements the cosine entry of :eq:`eq-kernel-zoo` (Chapter 1, *Kernels, feature maps and
    conjugate feature duality*): the linear kernel of the rows scaled to unit length. As in
    scikit-learn's ``cosine_similarity``, a zero row stays zero, so its kernel values (and its
    diagonal entry) are 0; every other diagonal entry is exactly 1.
    """

    @staticmethod
    def _normalize(X):
        norms = np.sqrt(np.einsum("ij,ij->i", X, X))
        norms[norms == 0.0] = 1.0  # zero rows stay zero
        return X / norms[:, None]

    def _compute(self, X, Y, params):
        Xn = self._normalize(X)
        return Xn @ (Xn if Y is None else self._normalize(Y)).T

    def _diag(self, X, params):
        return (np.einsum("ij,ij->i", X, X) > 0.0).astype(np.float64)

