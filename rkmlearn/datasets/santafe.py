"""The Santa Fe laser series A: the real data, shipped with rkmlearn; or the original files."""

from __future__ import annotations

from importlib import resources

import numpy as np
from sklearn.utils import Bunch

from .._validation import check_bool
from . import _fetch

__all__ = [
    "load_santafe",
    "SANTAFE_URL",
    "SANTAFE_URL_ENV",
    "SANTAFE_SHA256",
    "SANTAFE_N_TRAIN",
    "SANTAFE_N_TEST",
]

#: The archive distributed with the public code of the duality paper (Achten et al.).
SANTAFE_URL = "https://cloud.esat.kuleuven.be/index.php/s/Jbgosg3XZWWrtEA/download/santafe.zip"
#: Environment variable that overrides :data:`SANTAFE_URL` (a mirror, a local server).
SANTAFE_URL_ENV = "RKMLEARN_SANTAFE_URL"
#: SHA-256 of the two original files: the data is trusted by these, wherever it comes from.
SANTAFE_SHA256 = {
    "lasertrain.dat": "2471442ddccb9b7aa0214e1ba5a885d990c523df6cbdc694abacb0fd191da5f6",
    "laserpred.dat": "be420706e3928409159f22aac148ea6748f54b4e6863653b31c6e9d6e19ce18f",
}
#: The split of the competition and of the papers (duality paper, Table 4; recurrent RKM paper).
SANTAFE_N_TRAIN, SANTAFE_N_TEST = 1000, 100
_N_VALUES = {"lasertrain.dat": SANTAFE_N_TRAIN, "laserpred.dat": SANTAFE_N_TEST}
_TRAIN, _TEST = "lasertrain.dat", "laserpred.dat"
_BUNDLED = "santafe_laser_a.txt"
_HOLDING = "lasertrain.dat and laserpred.dat"

_DESCRIPTION = """\
Santa Fe time-series competition, data set A
--------------------------------------------
The intensity of a far-infrared NH3 laser in a chaotic regime close to the Lorenz-Haken model,
integer detector counts (0..255; 2..255 in the first 1100 values). 7 to 8 samples per pulsation;
trains of pulsations grow slowly in amplitude, then collapse.

train: the first 1000 values, the competition's training file lasertrain.dat.
test: the 100 values that follow, the competition's continuation laserpred.dat.
This is the split of Achten et al., "Duality in Multi-View Restricted Kernel Machines" (Table 4:
1000 training and 100 test values, lag p = 70) and of Pandey et al., "Recurrent Restricted Kernel
Machines for Time-series Forecasting" (Table 1).
series: {series}

Source: {source}

Cite: A. S. Weigend and N. A. Gershenfeld (eds.), "Time Series Prediction: Forecasting the Future
and Understanding the Past", Addison-Wesley, 1993 (Santa Fe Institute Studies in the Sciences of
Complexity, vol. XV).
"""
_SOURCE_BUNDLED = (
    "the copy shipped with rkmlearn (rkmlearn/datasets/santafe_laser_a.txt), taken from the file\n"
    "santafe_laser.npy of the reservoirpy 0.4.2 wheel (MIT licence; reservoirpy took it from James\n"
    "McNames' data sets page). Its first 1100 values equal lasertrain.dat and laserpred.dat element\n"
    "by element; rkmlearn's tests check them against the SHA-256 of the original files."
)
_SOURCE_FILES = (
    "the original files lasertrain.dat and laserpred.dat from {folder},\n"
    "verified by SHA-256 (as distributed with the public code of Achten et al.)."
)


def load_santafe(data_home=None, *, source=None, download_if_missing=True, url=None):
    """Load the Santa Fe laser series A: 1000 training and 100 test values, offline.

    The series (Weigend & Gershenfeld, 1993) is the intensity of a far-infrared NH3 laser in a
    Lorenz-like chaotic regime, the real-world forecasting data set of the duality paper (Achten
    et al., Table 4: lag 70, 1000 training and 100 test values) and of the recurrent RKM paper
    (Pandey et al., Table 1).

    **Two sources, the same values.**

    * ``source="bundled"`` (the default when neither ``data_home`` nor ``url`` is given): the
      complete recording of 10 093 values shipped with rkmlearn, copied from the reservoirpy 0.4.2
      wheel (MIT). No network, no extra package. Its first 1000 values are exactly the
      competition's ``lasertrain.dat`` and the next 100 exactly ``laserpred.dat``; the test suite
      checks this against the SHA-256 of the original files (:data:`SANTAFE_SHA256`).
    * ``source="files"`` (the default when ``data_home`` or ``url`` is given): the two original
      text files. If the folder ``data_home`` holds them, they are read from there; missing ones
      are downloaded once with :mod:`pooch` from the zip archive of the duality paper's public
      code (:data:`SANTAFE_URL`; override with ``url`` or ``$RKMLEARN_SANTAFE_URL``) and stored
      in ``data_home``. Every file, read or downloaded, must match its SHA-256 in
      :data:`SANTAFE_SHA256`. The archive itself is not hashed: a server may re-pack a zip
      without changing its members, and the members are what results depend on.

    Parameters
    ----------
    data_home : str or path-like, optional
        ``source="files"`` only: folder holding (or to receive) ``lasertrain.dat`` and
        ``laserpred.dat``. Default: the user cache folder ``pooch.os_cache("rkmlearn") / "santafe"``.
    source : {"bundled", "files"} or None, default=None
        Where the values come from (see above). None chooses ``"files"`` when ``data_home`` or
        ``url`` is given, else ``"bundled"``.
    download_if_missing : bool, default=True
        ``source="files"`` only: download missing files. When False and a file is missing,
        raise ``OSError`` instead.
    url : str, optional
        ``source="files"`` only: address of the zip archive. Default: ``$RKMLEARN_SANTAFE_URL``
        if set, else :data:`SANTAFE_URL`.

    Returns
    -------
    data : :class:`sklearn.utils.Bunch`
        With attributes

        ``train`` : ndarray of shape (1000,)
            The training series (float64, integer values).
        ``test`` : ndarray of shape (100,)
            The 100 values that follow it.
        ``series`` : ndarray
            The whole recording the source holds, starting with ``train`` then ``test``: 10 093
            values bundled, 1100 from the files.
        ``source`` : str
            ``"bundled"`` or ``"files"``.
        ``data_home`` : str or None
            The folder the files were read from (None when bundled).
        ``DESCR`` : str
            What the series is, where these values come from, and how to cite it.

    Raises
    ------
    ValueError
        If an argument is not valid (``data_home`` or ``url`` with ``source="bundled"``
        included), or if a file (in ``data_home`` or downloaded) does not match its SHA-256,
        cannot be parsed, or is absent from the downloaded archive.
    OSError
        ``source="files"``: a file is missing and cannot be downloaded (offline, server error,
        or ``download_if_missing=False``). The message says how to provide the files by hand.
    ImportError
        ``source="files"``: a download is needed, or ``data_home`` is None, and :mod:`pooch` is
        not installed (``pip install "rkmlearn[data]"``).

    Examples
    --------
    >>> from rkmlearn.datasets import load_santafe
    >>> data = load_santafe()
    >>> data.train.shape, data.test.shape, data.series.shape
    ((1000,), (100,), (10093,))
    >>> data.train[:5]
    array([ 86., 141.,  95.,  41.,  22.])

    The original files, from a folder or downloaded once into the user cache:

    >>> data = load_santafe("path/to/santafe", download_if_missing=False)  # doctest: +SKIP
    """
    source = _resolve_source(source, data_home, url)
    download_if_missing = check_bool(download_if_missing, "download_if_missing")
    if source == "bundled":
        series = _bundled_series()
        folder = None
    else:
        url = _fetch.resolve_url(url, SANTAFE_URL_ENV, SANTAFE_URL, "Santa Fe")
        folder = _fetch.resolve_folder(data_home, "santafe", _HOLDING, "load_santafe")
        contents = _fetch.read_members(
            folder,
            SANTAFE_SHA256,
            url=url,
            download_if_missing=download_if_missing,
            loader="load_santafe",
            holding=_HOLDING,
            env_var=SANTAFE_URL_ENV,
            archive_name="santafe.zip",
        )
        series = np.concatenate([_parse(contents[_TRAIN], _TRAIN), _parse(contents[_TEST], _TEST)])
    described = (
        f"all {series.size} values of the recording."
        if source == "bundled"
        else f"train followed by test ({series.size} values; the bundled copy has the whole recording)."
    )
    return Bunch(
        train=series[:SANTAFE_N_TRAIN].copy(),
        test=series[SANTAFE_N_TRAIN : SANTAFE_N_TRAIN + SANTAFE_N_TEST].copy(),
        series=series,
        source=source,
        data_home=None if folder is None else str(folder),
        DESCR=_DESCRIPTION.format(
            series=described,
            source=_SOURCE_BUNDLED if folder is None else _SOURCE_FILES.format(folder=folder),
        ),
    )


def _resolve_source(source, data_home, url):
    if source is None:
        return "files" if data_home is not None or url is not None else "bundled"
    if source not in ("bundled", "files"):
        raise ValueError(
            f"source must be 'bundled' (the copy shipped with rkmlearn) or 'files' (the original "
            f"lasertrain.dat and laserpred.dat); got {source!r}."
        )
    if source == "bundled" and (data_home is not None or url is not None):
        raise ValueError(
            "data_home and url locate the original files: use them with source='files' (or "
            "leave source=None), or drop them to load the bundled copy."
        )
    return source


def _bundled_series():
    """The 10 093 values of the bundled copy, float64."""
    text = resources.files(__package__).joinpath(_BUNDLED).read_text(encoding="ascii")
    values = [line for line in text.splitlines() if not line.startswith("#")]
    return np.array(" ".join(values).split(), dtype=np.int64).astype(np.float64)


def _parse(raw, name):
    """The values of a verified file as a float64 array, checked for length and finiteness."""
    try:
        values = np.loadtxt(raw.decode("ascii").splitlines(), dtype=np.float64, ndmin=1)
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{name} is not a text file of numbers, one per line ({exc}).") from exc
    expected = _N_VALUES[name]
    if values.shape != (expected,) or not np.all(np.isfinite(values)):
        raise ValueError(
            f"{name} must hold {expected} finite values, one per line; got shape "
            f"{values.shape}. Replace it with the original Santa Fe file."
        )
    return values
