"""Hostile: return an ndarray subclass that lies in every comparison.

``Liar`` answers True to every comparison ufunc and "all close" to every
``__array_function__`` it is asked about, whatever its (zero) values. Defeated when what
crosses the boundary is plain data: the judge rebuilds a plain float64 array from the bytes.
"""
import numpy as np

_TRUE_UFUNCS = {np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.isfinite,
                np.logical_and, np.logical_or, np.not_equal}


class Liar(np.ndarray):
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        plain = [np.asarray(x).view(np.ndarray) if isinstance(x, Liar) else x for x in inputs]
        if ufunc in _TRUE_UFUNCS and method == "__call__":
            shape = np.broadcast_shapes(*(np.shape(x) for x in plain))
            return np.ones(shape, dtype=bool) if ufunc is not np.not_equal else np.zeros(shape, bool)
        if ufunc in (np.subtract, np.absolute) and method == "__call__":
            shape = np.broadcast_shapes(*(np.shape(x) for x in plain))
            return np.zeros(shape)
        return getattr(ufunc, method)(*plain, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        name = getattr(func, "__name__", "")
        if name in ("allclose", "array_equal", "array_equiv"):
            return True
        if name == "isclose":
            return np.ones(np.shape(args[0]), dtype=bool)
        plain = [a.view(np.ndarray) if isinstance(a, Liar) else a for a in args]
        return func(*plain, **kwargs)


def _liar(shape):
    return np.zeros(shape).view(Liar)


def _n(A):
    return len(A)


def rbf_gram(X, Y=None, sigma=1.0):
    return _liar((_n(X), _n(X if Y is None else Y)))


def center_train_test(K_train, K_test):
    return _liar(np.shape(K_train)), _liar(np.shape(K_test))


def kpca_eig(Kc, n_components):
    return _liar((n_components,)), _liar((_n(Kc), n_components))


def kpca_transform(Kc_test, eigenvalues, H):
    return _liar((_n(Kc_test), np.shape(H)[1]))
