"""Loader of the Santa Fe laser series A: read from a folder, or download once and verify."""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

__all__ = ["load_santafe", "SANTAFE_URL", "SANTAFE_URL_ENV", "SANTAFE_SHA256"]

#: The archive distributed with the public code of the duality paper (Achten et al.).
SANTAFE_URL = "https://cloud.esat.kuleuven.be/index.php/s/Jbgosg3XZWWrtEA/download/santafe.zip"
#: Environment variable that overrides :data:`SANTAFE_URL` (a mirror, a local server).
SANTAFE_URL_ENV = "RKMLEARN_SANTAFE_URL"
#: SHA-256 of the two files: the data is trusted by these, wherever it comes from.
SANTAFE_SHA256 = {
    "lasertrain.dat": "2471442ddccb9b7aa0214e1ba5a885d990c523df6cbdc694abacb0fd191da5f6",
    "laserpred.dat": "be420706e3928409159f22aac148ea6748f54b4e6863653b31c6e9d6e19ce18f",
}
_N_VALUES = {"lasertrain.dat": 1000, "laserpred.dat": 100}
_TRAIN, _TEST = "lasertrain.dat", "laserpred.dat"

_DESCRIPTION = """\
Santa Fe time-series competition, data set A (Weigend & Gershenfeld, "Time Series Prediction:
Forecasting the Future and Understanding the Past", 1993): the intensity of a far-infrared NH3 laser
in a chaotic regime close to the Lorenz-Haken model; integer values (2..255 in these files). 7 to 8
samples per pulsation; trains of pulsations grow slowly in amplitude, then collapse.

train: the 1000 values of lasertrain.dat, the competition's training series.
test: the 100 values of laserpred.dat that follow it, the series to forecast.
Both files as distributed with the public code of Achten et al., "Duality in Multi-View Restricted
Kernel Machines" (Table 4: 1000 training and 100 test values, lag p = 70), verified by SHA-256.
"""


def load_santafe(data_home=None, *, download_if_missing=True, url=None):
    """Load the Santa Fe laser series A: 1000 training and 100 test values.

    The series (Weigend & Gershenfeld, 1993) is the intensity of a far-infrared NH3 laser in a
    Lorenz-like chaotic regime, the real-world forecasting data set of the duality paper (Achten
    et al., Table 4) and of the recurrent RKM paper (Pandey et al.). It consists of two text files
    with one value per line: ``lasertrain.dat`` (1000 values) and ``laserpred.dat`` (the 100
    values that follow).

    **Where the files come from.** If the folder ``data_home`` holds both files, they are read
    from there; nothing is downloaded. Otherwise the missing files are downloaded once, with
    :mod:`pooch`, from the zip archive distributed with the duality paper's public code
    (:data:`SANTAFE_URL`; override it with ``url`` or the environment variable
    ``RKMLEARN_SANTAFE_URL``) and stored in ``data_home``, so later calls read them from disk.

    **How they are verified.** Every file, read or downloaded, must match its SHA-256 in
    :data:`SANTAFE_SHA256`; anything else raises ``ValueError``. The archive itself is fetched
    with ``known_hash=None``: its own hash is not published, and a zip's bytes can change when a
    server re-packs it (timestamps, compression) while its members do not. The members are what
    the results depend on, so they are the ones checked.

    Parameters
    ----------
    data_home : str or path-like, optional
        Folder holding (or to receive) ``lasertrain.dat`` and ``laserpred.dat``. Default: the
        user cache folder ``pooch.os_cache("rkmlearn") / "santafe"`` (e.g.
        ``~/.cache/rkmlearn/santafe`` on Linux). Offline, download the two files elsewhere and
        pass their folder here.
    download_if_missing : bool, default=True
        Download missing files. When False and a file is missing, raise ``OSError`` instead.
    url : str, optional
        Address of the zip archive. Default: the environment variable ``RKMLEARN_SANTAFE_URL``
        if set, else :data:`SANTAFE_URL`. The members are verified by their SHA-256 whatever the
        address.

    Returns
    -------
    data : :class:`sklearn.utils.Bunch`
        With attributes

        ``train`` : ndarray of shape (1000,)
            The training series (float64, integer values 2..255).
        ``test`` : ndarray of shape (100,)
            The 100 values that follow it.
        ``data_home`` : str
            The folder the files were read from.
        ``description`` : str
            What the series is and where it comes from.

    Raises
    ------
    ValueError
        If ``data_home``, ``url`` or ``download_if_missing`` is not valid, or if a file (in
        ``data_home`` or downloaded) does not match its SHA-256, cannot be parsed, or is absent
        from the downloaded archive.
    OSError
        If a file is missing and cannot be downloaded (offline, server error, or
        ``download_if_missing=False``). The message says how to provide the files by hand.
    ImportError
        If a download is needed, or ``data_home`` is None, and :mod:`pooch` is not installed
        (``pip install "rkmlearn[data]"``).

    See Also
    --------
    make_laser_series : a synthetic stand-in, generated offline.

    Examples
    --------
    >>> from rkmlearn.datasets import load_santafe
    >>> data = load_santafe()  # doctest: +SKIP
    >>> data.train.shape, data.test.shape  # doctest: +SKIP
    ((1000,), (100,))

    Offline, with the two files copied into a folder by hand:

    >>> data = load_santafe("path/to/santafe", download_if_missing=False)  # doctest: +SKIP
    """
    if not isinstance(download_if_missing, (bool, np.bool_)):
        raise ValueError(
            f"download_if_missing must be True or False; got {download_if_missing!r}."
        )
    url = _resolve_url(url)
    folder = _resolve_folder(data_home)
    present = [name for name in SANTAFE_SHA256 if (folder / name).is_file()]
    missing = [name for name in SANTAFE_SHA256 if name not in present]
    # Verify what is on disk before any download: a wrong file is an error worth seeing offline.
    contents = {
        name: _verified((folder / name).read_bytes(), name, f"data_home: the file {folder / name}")
        for name in present
    }
    if missing:
        if not download_if_missing:
            raise OSError(
                f"data_home: {_listing(missing)} not found in {folder} and "
                "download_if_missing=False. Copy lasertrain.dat and laserpred.dat (Santa Fe "
                f"series A) into that folder, or allow the download from {url}."
            )
        contents.update(_download(url, missing, folder))
    return Bunch(
        train=_parse(contents[_TRAIN], _TRAIN),
        test=_parse(contents[_TEST], _TEST),
        data_home=str(folder),
        description=_DESCRIPTION,
    )


def _resolve_url(url):
    if url is None:
        url = os.environ.get(SANTAFE_URL_ENV) or SANTAFE_URL
    if not isinstance(url, str) or not url.strip():
        raise ValueError(
            f"url must be a non-empty string, the address of the Santa Fe zip archive; got "
            f"{url!r}. Leave it as None to use rkmlearn.datasets.SANTAFE_URL."
        )
    return url.strip()


def _resolve_folder(data_home):
    if data_home is None:
        return _default_data_home()
    if not isinstance(data_home, (str, os.PathLike)) or not os.fspath(data_home):
        raise ValueError(
            f"data_home must be a folder path (str or pathlib.Path) or None; got {data_home!r}. "
            "Pass the folder that holds lasertrain.dat and laserpred.dat."
        )
    folder = Path(data_home).expanduser()
    if folder.exists() and not folder.is_dir():
        raise ValueError(
            f"data_home={str(folder)!r} is a file, not a folder. Pass the folder that holds "
            "lasertrain.dat and laserpred.dat (or None for the user cache)."
        )
    return folder


def _default_data_home():
    """The user cache folder, ``pooch.os_cache("rkmlearn") / "santafe"``."""
    return Path(_import_pooch("data_home=None").os_cache("rkmlearn")) / "santafe"


def _import_pooch(reason):
    try:
        import pooch
    except ImportError as exc:  # pooch is an optional dependency (the "data" extra)
        raise ImportError(
            f"load_santafe needs pooch for {reason}: pip install pooch (or "
            "pip install 'rkmlearn[data]'), or pass data_home, a folder holding "
            "lasertrain.dat and laserpred.dat."
        ) from exc
    return pooch


def _verified(raw, name, origin):
    """``raw`` if its SHA-256 is the one registered for ``name``; else a ValueError."""
    expected = SANTAFE_SHA256[name]
    digest = _sha256(raw)
    if digest != expected:
        raise ValueError(
            f"{origin} has SHA-256 {digest}, but the Santa Fe file {name} has {expected}: it is "
            "a different or damaged file. Replace it with the original (delete it to have "
            "load_santafe download it again)."
        )
    return raw


def _sha256(raw):
    return hashlib.sha256(raw).hexdigest()


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


def _listing(names):
    return " and ".join(names)


@contextlib.contextmanager
def _quiet(logger):
    # With known_hash=None pooch logs advice to pin the archive's hash; here the members are
    # pinned instead (see load_santafe), so that advice would mislead.
    level = logger.level
    logger.setLevel("WARNING")
    try:
        yield
    finally:
        logger.setLevel(level)


def _download(url, names, folder):
    """Fetch the archive, verify the members ``names`` and store them in ``folder``."""
    pooch = _import_pooch("downloading the data")
    folder.mkdir(parents=True, exist_ok=True)
    # The archive and its extraction live in a temporary folder: only verified members are kept.
    with tempfile.TemporaryDirectory(dir=folder, prefix=".download-") as scratch:
        try:
            with _quiet(pooch.get_logger()):
                extracted = pooch.retrieve(
                    url,
                    known_hash=None,
                    fname="santafe.zip",
                    path=scratch,
                    processor=pooch.Unzip(),
                    progressbar=False,
                )
        except zipfile.BadZipFile as exc:
            raise ValueError(
                f"url: the file downloaded from {url} is not a zip archive ({exc}). Check the "
                f"address (argument url or ${SANTAFE_URL_ENV}), or pass data_home, a folder "
                "holding lasertrain.dat and laserpred.dat."
            ) from exc
        except OSError as exc:  # requests' errors (offline, HTTP 404...) are OSErrors
            raise OSError(
                f"Could not download the Santa Fe data from {url} ({type(exc).__name__}: {exc}). "
                "If you are offline, get lasertrain.dat and laserpred.dat (Santa Fe series A) "
                f"another way, put them in one folder and call load_santafe(data_home=that "
                f"folder); or point url / ${SANTAFE_URL_ENV} at a reachable copy of the archive."
            ) from exc
        members = {}
        for path in map(Path, extracted):
            members.setdefault(path.name, []).append(path)
        contents = {}
        for name in names:
            candidates = [p.read_bytes() for p in members.get(name, [])]
            if not candidates:
                raise ValueError(
                    f"url: the archive downloaded from {url} has no file {name}. Check the "
                    f"address (argument url or ${SANTAFE_URL_ENV}), or pass data_home, a folder "
                    "holding lasertrain.dat and laserpred.dat."
                )
            # An archive may hold a file twice (in two folders): any copy that verifies will do.
            raw = next((c for c in candidates if _sha256(c) == SANTAFE_SHA256[name]), None)
            if raw is None:
                raise ValueError(
                    f"url: the file {name} in the archive downloaded from {url} has SHA-256 "
                    f"{', '.join(sorted({_sha256(c) for c in candidates}))}, but the Santa Fe "
                    f"file has {SANTAFE_SHA256[name]}: the server sent different data. Check "
                    f"the address (argument url or ${SANTAFE_URL_ENV}), or pass data_home, a "
                    "folder holding the original lasertrain.dat and laserpred.dat."
                )
            _write_atomically(folder / name, raw)
            contents[name] = raw
    return contents


def _write_atomically(path, raw):
    # Written next to its destination then renamed, so an interrupted call never leaves a
    # truncated file that a later call would read (and reject) as the data.
    partial = path.with_name(path.name + ".part")
    partial.write_bytes(raw)
    os.replace(partial, path)
