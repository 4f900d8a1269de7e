"""Kernel functions and Gram-matrix centring (Chapter 1).

Each :class:`Kernel` evaluates ``k(x, y) = <phi(x), phi(y)>`` (:eq:`eq-kernel-trick`) for all pairs
of rows of two data matrices (the zoo of :eq:`eq-kernel-zoo`); :class:`GramCenterer` centres Gram
matrices with the TRAINING statistics (:eq:`eq-centering-train`, :eq:`eq-centering-test`).
RBF and Laplacian use the papers' bandwidth ``sigma`` (scikit-learn's ``gamma = 1 / (2 sigma^2)``
and ``1 / sigma``). Float64 throughout; ``K(X)`` is exactly symmetric with the exact diagonal.
"""

from __future__ import annotations

import inspect

import numpy as np
from sklearn.metrics.pairwise import manhattan_distances

from ._blas import gram_upper, product
from ._validation import _all_finite, check_array, check_n_features, check_scalar_range
from .solvers.eigen import SYMMETRY_RTOL, max_asymmetry
from .solvers.eigen import symmetrize_inplace as _symmetrize

__all__ = [
    "Kernel",
    "Linear",
    "RBF",
    "Laplacian",
    "Polynomial",
    "Cosine",
    "CallableKernel",
    "KERNELS",
    "make_kernel",
    "squared_euclidean_distances",
    "centering_matrix",
    "GramCenterer",
]


#: Tile edge of the element-wise passes over an n x n matrix: a 256 x 256 float64 tile (512 kB)
#: and its temporary stay in a core's L2 cache, so each pass costs cache, not memory, bandwidth.
_TILE = 256


def squared_euclidean_distances(X, Y=None):
    """Pairwise squared Euclidean distances in BLAS form, clipped at zero.

    Implements :eq:`eq-sqdist` (Chapter 1): ``||x - y||^2 = ||x||^2 + ||y||^2 - 2 x^T y``, one
    BLAS product, clipped at 0 (rounding). ``X`` (n_X, d), ``Y`` (n_Y, d) or None for ``X``; the
    result (n_X, n_Y) is exactly symmetric with a zero diagonal when ``Y`` is None.
    """
    X = check_array(X, "X")
    if Y is not None:
        Y = check_array(Y, "Y")
        _check_same_features(X, Y)
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
    n = X.shape[0]
    D = gram_upper(X)
    for i in range(0, n, _TILE):
        rows = slice(i, i + _TILE)
        for j in range(i, n, _TILE):
            cols = slice(j, j + _TILE)
            block = D[rows, cols]
            block *= -2.0
            block += np.add.outer(x_sq[rows], x_sq[cols])  # x_i^2 + x_j^2: symmetric, addition commutes
            if i == j:
                np.fill_diagonal(block, 0.0)
            np.maximum(block, 0.0, out=block)
            if then is not None:
                then(block)
            if i == j:  # the diagonal tile: its upper triangle is the valid one
                lower = np.tril_indices(block.shape[0], -1)
                block[lower] = block.T[lower]
            else:
                D[cols, rows] = block.T
    return D


def _row_blocks(n_rows, n_cols):
    """Row slices of about ``_TILE * _TILE`` entries each (the rectangular case's tiles)."""
    step = max(1, (_TILE * _TILE) // max(n_cols, 1))
    return [slice(i, i + step) for i in range(0, n_rows, step)]


def _check_same_features(X, Y):
    if Y.shape[1] != X.shape[1]:
        raise ValueError(
            f"Y has {Y.shape[1]} features but X has {X.shape[1]}; X and Y must have the same "
            "number of features (columns) to evaluate a kernel between them."
        )


class Kernel:
    """Base class of the kernels: a positive semi-definite function ``k(x, y)``.

    A kernel is called on data matrices: ``kernel(X, Y)`` returns the ``(n_X, n_Y)`` matrix of
    ``k(x_i, y_j)`` (:eq:`eq-kernel-trick`); ``kernel(X)`` returns the Gram matrix of ``X``,
    exactly symmetric and with exact diagonal :meth:`diag`.

    Subclasses set ``_param_names`` and implement ``_validate_params`` (returning the
    validated values), ``_compute(X, Y, params)`` and ``_diag(X, params)``.
    Hyperparameters are validated when the kernel is built and again on every call (they are
    plain attributes that can be changed in between).
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
        X = check_array(X, "X")
        if Y is not None:
            Y = check_array(Y, "Y")
            _check_same_features(X, Y)
        # An overflow to inf is either the right limit (RBF with a tiny sigma: exp(-inf) = 0) or
        # caught by the finiteness check below, with a message that names the cause.
        with np.errstate(over="ignore", invalid="ignore"):
            K = self._compute(X, Y, params)
            if Y is None:
                K[np.diag_indices_from(K)] = self._diag(X, params)
        self._check_finite(K)
        if Y is None and not self._symmetric_compute:
            K = _symmetrize(K)
        return K

    def _check_finite(self, K):
        """Finite inputs can still overflow (``X * 1e160``, a degree-400 polynomial): say so."""
        if not _all_finite(K):
            raise ValueError(
                f"the kernel values of {self!r} overflowed (inf or NaN from finite X): X is too large "
                "for this kernel. Rescale X (e.g. sklearn.preprocessing.StandardScaler) or choose "
                "smaller kernel parameters."
            )
        return K

    def diag(self, X):
        """Diagonal ``k(x_i, x_i)`` of the Gram matrix of ``X``, without forming the matrix.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        d : ndarray of shape (n_samples,)
        """
        params = self._validate_params()
        return self._diag(check_array(X, "X"), params)

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

        def gaussian(D):  # on each block of distances while it is in cache
            # divided twice, never by sigma**2, which over/underflows for sigma = 1e300 or 1e-300
            D /= -2.0 * sigma
            D /= sigma
            np.exp(D, out=D)

        return _distances_then(X, Y, gaussian)


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


class CallableKernel(Kernel):
    """A kernel given as a Python function of two data matrices.

    Parameters
    ----------
    function : callable
        ``function(X, Y, **params)`` returning the ``(n_X, n_Y)`` matrix of ``k(x_i, y_j)``
        (matrices in, matrix out: loops over pairs of samples would be far too slow).
    **params
        Keyword arguments passed to ``function``.

    Notes
    -----
    The output is checked: right shape, finite and, for ``Y=None``, symmetric up to a relative
    ``1e-8`` (then symmetrised exactly). The function is trusted to be positive semi-definite.
    """

    def __init__(self, function, **params):
        if not callable(function):
            raise ValueError(f"function must be callable; got {type(function).__name__}.")
        self.function = function
        self.params = params

    def get_params(self, deep=True):
        return {"function": self.function, **self.params}

    def set_params(self, **params):
        if "function" in params:
            self.function = params.pop("function")
        self.params.update(params)
        return self

    def __repr__(self):
        name = getattr(self.function, "__name__", repr(self.function))
        args = "".join(f", {k}={v!r}" for k, v in self.params.items())
        return f"CallableKernel({name}{args})"

    def __call__(self, X, Y=None):
        X = check_array(X, "X")
        Yc = X if Y is None else check_array(Y, "Y")
        _check_same_features(X, Yc)
        K = check_array(self.function(X, Yc, **self.params), "kernel output")
        if K.shape != (X.shape[0], Yc.shape[0]):
            raise ValueError(
                f"kernel output has shape {K.shape}, expected {(X.shape[0], Yc.shape[0])}; the "
                "callable must return the matrix of k(x_i, y_j) for all rows of X and Y."
            )
        if Y is None:
            scale = max(np.abs(K).max(), np.finfo(np.float64).tiny)
            if np.abs(K - K.T).max() > 1e-8 * scale:
                raise ValueError(
                    "kernel output is not symmetric for Y=None; the callable must define a "
                    "symmetric kernel k(x, y) = k(y, x)."
                )
            K = _symmetrize(K.copy())  # never modify the caller's array
        return K

    def diag(self, X):
        X = check_array(X, "X")
        return np.diag(self(X)).copy()


KERNELS = {
    "linear": Linear,
    "rbf": RBF,
    "laplacian": Laplacian,
    "polynomial": Polynomial,
    "cosine": Cosine,
}


def make_kernel(kernel="rbf", **params):
    """Build a :class:`Kernel` from a name, an instance or a callable.

    Parameters
    ----------
    kernel : str, Kernel or callable, default="rbf"
        ``'linear'``, ``'rbf'``, ``'laplacian'``, ``'polynomial'`` or ``'cosine'`` (see
        :eq:`eq-kernel-zoo`, Chapter 1, *Kernels, feature maps and conjugate feature duality*);
        a :class:`Kernel` instance (returned as is); or a callable ``f(X, Y, **params)``
        returning the kernel matrix (wrapped in :class:`CallableKernel`).
    **params
        Hyperparameters of the named kernel (e.g. ``sigma=2.0``) or keyword arguments of the
        callable. Not allowed with a :class:`Kernel` instance.

    Returns
    -------
    kernel : Kernel

    Examples
    --------
    >>> make_kernel("rbf", sigma=2.0)
    RBF(sigma=2.0)
    """
    if isinstance(kernel, Kernel):
        if params:
            raise ValueError(
                f"kernel_params {sorted(params)} cannot be combined with the Kernel instance "
                f"{kernel!r}; set them on the instance instead, e.g. RBF(sigma=2.0)."
            )
        return kernel
    if isinstance(kernel, str):
        key = kernel.lower()
        if key not in KERNELS:
            raise ValueError(
                f"kernel={kernel!r} is unknown; valid names are {sorted(KERNELS)}, or pass a "
                "Kernel instance or a callable f(X, Y)."
            )
        cls = KERNELS[key]
        valid = [p for p in inspect.signature(cls).parameters]
        unknown = sorted(set(params) - set(valid))
        if unknown:
            raise ValueError(
                f"kernel_params {unknown} are not parameters of the {key!r} kernel; valid "
                f"parameters: {valid}."
            )
        return cls(**params)
    if callable(kernel):
        return CallableKernel(kernel, **params)
    raise ValueError(
        f"kernel must be a name in {sorted(KERNELS)}, a Kernel instance or a callable; got "
        f"{type(kernel).__name__}."
    )


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


def _check_square(K, name):
    K = check_array(K, name)
    if K.shape[0] != K.shape[1]:
        raise ValueError(
            f"{name} must be a square (n_samples, n_samples) Gram matrix; got shape {K.shape}. "
            "Compute it as kernel(X) on the training data."
        )
    return K


class GramCenterer:
    """Centre kernel matrices in feature space with the training statistics.

    ``fit_transform(K)`` implements :eq:`eq-centering-train`, ``K_c = M_c K M_c``;
    ``transform(K_test)`` implements :eq:`eq-centering-test` (Chapter 1): test rows centred with
    the row means and grand mean of the UNcentred training Gram matrix, i.e. with the training
    feature mean. Same result as scikit-learn's ``KernelCenterer``.

    Attributes
    ----------
    row_means_ : ndarray of shape (n_samples,)
        ``(1/N) sum_j k(x_i, x_j)`` for each training sample ``i``.
    grand_mean_ : float
        ``(1/N^2) sum_jl k(x_j, x_l)``.
    n_samples_fit_ : int
        Number of training samples ``N``.
    """

    def fit(self, K, y=None):
        """Store the statistics of the uncentred, symmetric training Gram matrix ``K`` (n, n)."""
        self._fit(K)
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
        if not hasattr(self, "row_means_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError(
                "This GramCenterer instance is not fitted yet; call fit(K_train) first."
            )
        K_test = check_array(K_test, "K_test")
        if K_test.shape[1] != self.n_samples_fit_:
            raise ValueError(
                f"K_test has {K_test.shape[1]} columns but the centerer was fitted on "
                f"{self.n_samples_fit_} training samples; K_test must be k(X_test, X_train) with "
                "one column per training sample."
            )
        K_c = K_test - K_test.mean(axis=1, keepdims=True)
        K_c -= self.row_means_[None, :]
        K_c += self.grand_mean_
        return K_c

    def fit_transform(self, K, y=None):
        """Fit on ``K`` and return ``K_c = M_c K M_c`` (:eq:`eq-centering-train`).

        The result is exactly symmetric, and its rows and columns sum to 0 (up to rounding).
        """
        K = self._fit(K)
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

    def _fit(self, K):
        """Validate the training Gram matrix, store its statistics, return it exactly symmetric."""
        K = self._check_train_gram(K)
        self._store_statistics(K)
        return K

    def _store_statistics(self, K):
        self.row_means_ = K.mean(axis=1)
        self.grand_mean_ = float(self.row_means_.mean())
        self.n_samples_fit_ = K.shape[0]

    @staticmethod
    def _check_train_gram(K):
        """A square training Gram matrix, made exactly symmetric (copied only if it is not)."""
        K = _check_square(K, "K")
        asym = max_asymmetry(K)
        if asym == 0.0:
            return K
        if asym > SYMMETRY_RTOL * np.abs(K).max():
            raise ValueError(
                "K must be a symmetric Gram matrix k(x_i, x_j) of the training data; got an "
                f"asymmetric matrix (max|K - K^T| = {asym:.2e}). For a test-vs-train matrix call "
                "transform after fit."
            )
        return _symmetrize(K.copy())  # rounding-level asymmetry: never modify the caller's array
