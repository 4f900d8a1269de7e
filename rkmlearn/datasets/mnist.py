"""Digit images for Part IV: MNIST through scikit-learn's OpenML cache, and the bundled digits that stand in for it."""

from __future__ import annotations

import numpy as np
from sklearn.datasets import fetch_openml, load_digits
from sklearn.model_selection import train_test_split
from sklearn.utils import Bunch

from .._validation import check_scalar_range, check_seed

__all__ = ["load_mnist", "load_digits_split", "MNIST_OPENML_ID"]

#: OpenML data set ``mnist_784``, version 1: the 70 000 MNIST digits in their original order.
MNIST_OPENML_ID = 554
# The original split: the first 60 000 images are MNIST's training set, the last 10 000 its test set.
_MNIST_N_TRAIN, _MNIST_N_TEST, _MNIST_SIDE = 60_000, 10_000, 28


def load_mnist(data_home=None, *, scale=True, n_retries=3):
    """Load MNIST (70 000 handwritten digits, 28 x 28) with its original 60 000 / 10 000 split.

    Goes through :func:`sklearn.datasets.fetch_openml` (OpenML data set ``mnist_784``, id 554):
    the first call downloads it (about 15 MB) and stores it in scikit-learn's OpenML cache under
    ``data_home`` (default :func:`sklearn.datasets.get_data_home`); later calls read the cache and
    need no network. OpenML's own MD5 checksum of the file is verified by scikit-learn.

    **The book does not call this** (it builds offline): its Part IV runs on the 8 x 8 digits that
    scikit-learn ships (:func:`load_digits_split`) and says so beside the paper's MNIST numbers.

    Parameters
    ----------
    data_home : str or path-like, optional
        scikit-learn's data folder (the cache is its ``openml`` subfolder).
    scale : bool, default=True
        Divide the 0..255 grey levels by 255, so pixels lie in [0, 1].
    n_retries : int, default=3
        Retries on network errors (passed to ``fetch_openml``).

    Returns
    -------
    data : :class:`sklearn.utils.Bunch`
        ``X_train`` (60000, 784), ``y_train`` (60000,), ``X_test`` (10000, 784), ``y_test``
        (10000,): float64 pixels, int labels 0..9; ``images_shape`` ``(28, 28)``; ``DESCR``.

    Raises
    ------
    ValueError
        If ``scale`` is not a bool, or the data fetched does not have MNIST's shape.
    OSError
        Offline with an empty cache (scikit-learn's network error, re-raised with advice).

    Examples
    --------
    >>> from rkmlearn.datasets import load_mnist
    >>> mnist = load_mnist()  # doctest: +SKIP
    >>> mnist.X_train.shape, mnist.X_test.shape  # doctest: +SKIP
    ((60000, 784), (10000, 784))
    """
    if not isinstance(scale, (bool, np.bool_)):
        raise ValueError(f"scale must be True or False; got {scale!r}.")
    try:
        # liac-arff: the parser that needs no pandas; as_frame=False gives plain arrays.
        X, y = fetch_openml(
            data_id=MNIST_OPENML_ID,
            data_home=data_home,
            as_frame=False,
            parser="liac-arff",
            return_X_y=True,
            n_retries=n_retries,
        )
    except OSError as exc:  # URLError and friends
        raise OSError(
            f"Could not fetch MNIST from OpenML ({type(exc).__name__}: {exc}). It is downloaded once "
            "into scikit-learn's cache (data_home); offline, copy a cache folder filled on a "
            "connected machine, or use load_digits_split(), the 8 x 8 digits scikit-learn ships."
        ) from exc
    n = _MNIST_N_TRAIN + _MNIST_N_TEST
    if X.shape != (n, _MNIST_SIDE**2):
        raise ValueError(f"OpenML data set {MNIST_OPENML_ID} should be MNIST, {n} x 784; got {X.shape}.")
    X = np.asarray(X, dtype=np.float64)
    if scale:
        X = X / 255.0
    y = np.asarray(y).astype(np.int64)
    return Bunch(
        X_train=X[:_MNIST_N_TRAIN],
        y_train=y[:_MNIST_N_TRAIN],
        X_test=X[_MNIST_N_TRAIN:],
        y_test=y[_MNIST_N_TRAIN:],
        images_shape=(_MNIST_SIDE, _MNIST_SIDE),
        DESCR=(
            "MNIST handwritten digits (LeCun, Bottou, Bengio & Haffner, 1998), OpenML data set "
            f"mnist_784 (id {MNIST_OPENML_ID}), original split: the first 60 000 images train, "
            "the last 10 000 test. Pixels " + ("scaled to [0, 1]." if scale else "0..255.")
        ),
    )


def load_digits_split(n_train=1000, *, n_test=500, scale=True, random_state=0):
    """scikit-learn's bundled 8 x 8 digits, split into a stratified training subset and a test set.

    The book's stand-in for MNIST (Part IV): 1797 digits of 8 x 8 pixels with 17 grey levels, shipped
    with scikit-learn (the UCI "Optical Recognition of Handwritten Digits" test set), so the
    chapters run offline. The paper's experiments (Tonin et al., Table 2) vary the number of
    training samples N in {50, 100, 250, 500, 750, 1000}; this draws a training set of
    ``n_train`` and a disjoint test set of ``n_test``, both stratified by class and seeded, so
    runs with different seeds give the mean and spread.

    Parameters
    ----------
    n_train : int, default=1000
        Training samples, at least 10 (one per class).
    n_test : int, default=500
        Test samples, at least 10; ``n_train + n_test <= 1797``.
    scale : bool, default=True
        Divide the 0..16 grey levels by 16, so pixels lie in [0, 1] as MNIST's do after
        :func:`load_mnist`'s scaling.
    random_state : int, RandomState, Generator or None, default=0
        Seeds both draws.

    Returns
    -------
    data : :class:`sklearn.utils.Bunch`
        ``X_train`` (n_train, 64), ``y_train``, ``X_test`` (n_test, 64), ``y_test``: float64
        pixels, int labels 0..9; ``train_index``, ``test_index`` into scikit-learn's
        ``load_digits()``; ``images_shape`` ``(8, 8)``; ``DESCR``.

    Raises
    ------
    ValueError
        If a size is not an integer in range (the message gives the bound), or ``scale`` is not
        a bool.

    Examples
    --------
    >>> from rkmlearn.datasets import load_digits_split
    >>> data = load_digits_split(500, n_test=300, random_state=0)
    >>> data.X_train.shape, data.X_test.shape
    ((500, 64), (300, 64))
    >>> sorted(set(data.y_train.tolist())) == list(range(10))
    True
    """
    digits = load_digits()
    n_total = digits.data.shape[0]
    n_train = check_scalar_range(n_train, "n_train", low=10, low_inclusive=True, integer=True)
    n_test = check_scalar_range(n_test, "n_test", low=10, low_inclusive=True, integer=True)
    random_state = check_seed(random_state)  # a Generator: an int drawn from it (both splits use it)
    if n_train + n_test > n_total:
        raise ValueError(
            f"n_train + n_test must be at most the {n_total} bundled digits; got "
            f"{n_train} + {n_test}. Lower n_test (or n_train)."
        )
    if not isinstance(scale, (bool, np.bool_)):
        raise ValueError(f"scale must be True or False; got {scale!r}.")
    X = digits.data.astype(np.float64) / (16.0 if scale else 1.0)
    y = digits.target.astype(np.int64)
    idx = np.arange(n_total)
    rest, test_index = train_test_split(idx, test_size=n_test, stratify=y, random_state=random_state)
    if n_train < rest.size:
        train_index, _ = train_test_split(rest, train_size=n_train, stratify=y[rest], random_state=random_state)
    else:
        train_index = rest
    train_index, test_index = np.sort(train_index), np.sort(test_index)
    return Bunch(
        X_train=X[train_index],
        y_train=y[train_index],
        X_test=X[test_index],
        y_test=y[test_index],
        train_index=train_index,
        test_index=test_index,
        images_shape=(8, 8),
        DESCR=(
            "scikit-learn's bundled digits (sklearn.datasets.load_digits: 1797 images of 8 x 8 "
            "pixels, UCI Optical Recognition of Handwritten Digits), standing in for MNIST "
            f"(28 x 28, 70 000 images) so the book runs offline. Split: {n_train} training and "
            f"{n_test} test samples, disjoint, stratified, random_state={random_state!r}. Pixels "
            + ("scaled to [0, 1]." if scale else "0..16.")
        ),
    )
