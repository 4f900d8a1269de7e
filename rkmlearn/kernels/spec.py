"""A kernel from its specification: a name and parameters, a :class:`~rkmlearn.kernels.Kernel`, or a callable.

:func:`make_kernel` is the one place where a kernel specification (``kernel`` + ``kernel_params``)
becomes a kernel; :class:`CallableKernel` wraps a user's function and checks its output.
"""

from __future__ import annotations

import inspect

import numpy as np

from .._symmetric import SYMMETRY_RTOL, symmetrize_inplace
from .._validation import array, check_array, user_code, validate
from .zoo import RBF, Cosine, Kernel, Laplacian, Linear, Polynomial, _same_features

__all__ = ["CallableKernel", "KERNELS", "make_kernel"]


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
    ``SYMMETRY_RTOL`` (1e-8; then symmetrised exactly). The function is trusted to be positive semi-definite.
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

    @validate(X=array(), Y=array(optional=True), then=_same_features)
    def __call__(self, X, Y=None):
        Yc = X if Y is None else Y
        with user_code():  # the user's function: its own calls into the library are checked
            K = self.function(X, Yc, **self.params)
        K = check_array(K, "kernel output")
        if K.shape != (X.shape[0], Yc.shape[0]):
            raise ValueError(
                f"kernel output has shape {K.shape}, expected {(X.shape[0], Yc.shape[0])}; the "
                "callable must return the matrix of k(x_i, y_j) for all rows of X and Y."
            )
        if Y is None:
            scale = max(np.abs(K).max(), np.finfo(np.float64).tiny)
            if np.abs(K - K.T).max() > SYMMETRY_RTOL * scale:
                raise ValueError(
                    "kernel output is not symmetric for Y=None; the callable must define a "
                    "symmetric kernel k(x, y) = k(y, x)."
                )
            K = symmetrize_inplace(K.copy())  # never modify the caller's array
        return K

    @validate(X=array())
    def diag(self, X):
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

