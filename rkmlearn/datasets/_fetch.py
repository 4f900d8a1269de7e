"""Files read from a folder, or downloaded once with pooch and verified by SHA-256.

Shared by the loaders of data that no installed package ships (the original Santa Fe files, the
UCI series of Part V). Every loader names a set of files ("members") of one zip archive. A member
present in ``data_home`` is read from there; missing ones are downloaded once (the archive goes to
a temporary folder, only verified members are kept) and stored in ``data_home``.

What is verified is each member, not the archive: a server may re-pack a zip (timestamps,
compression) without changing its members, and the members are what the results depend on.
A member whose SHA-256 is not known in advance (``expected[name] is None``) is recorded on first
use in ``<name>.sha256`` beside it and checked against that record afterwards; the loader that
allows this says so loudly (see :func:`trust_on_first_use`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import warnings
import zipfile
from pathlib import Path

import numpy as np

__all__ = ["sha256", "resolve_folder", "resolve_url", "read_members"]


def sha256(raw):
    """Hex SHA-256 of bytes."""
    return hashlib.sha256(raw).hexdigest()


def resolve_url(url, env_var, default, what):
    """``url``, else the environment variable ``env_var``, else ``default``; a non-empty str."""
    if url is None:
        url = os.environ.get(env_var) or default
    if not isinstance(url, str) or not url.strip():
        raise ValueError(
            f"url must be a non-empty string, the address of the {what} zip archive; got "
            f"{url!r}. Leave it as None to use the default address."
        )
    return url.strip()


def resolve_folder(data_home, subfolder, holding, loader):
    """The folder of the files: ``data_home``, or the user cache ``<os cache>/rkmlearn/<subfolder>``."""
    if data_home is None:
        return Path(import_pooch(loader, "data_home=None", holding).os_cache("rkmlearn")) / subfolder
    if not isinstance(data_home, (str, os.PathLike)) or not os.fspath(data_home):
        raise ValueError(
            f"data_home must be a folder path (str or pathlib.Path) or None; got {data_home!r}. "
            f"Pass the folder that holds {holding}."
        )
    folder = Path(data_home).expanduser()
    if folder.exists() and not folder.is_dir():
        raise ValueError(
            f"data_home={str(folder)!r} is a file, not a folder. Pass the folder that holds "
            f"{holding} (or None for the user cache)."
        )
    return folder


def import_pooch(loader, reason, holding):
    try:
        import pooch
    except ImportError as exc:  # pooch is an optional dependency (the "data" extra)
        raise ImportError(
            f"{loader} needs pooch for {reason}: pip install pooch (or "
            f"pip install 'rkmlearn[data]'), or pass data_home, a folder holding {holding}."
        ) from exc
    return pooch


def read_members(
    folder, expected, *, url, download_if_missing, loader, holding, env_var, archive_name
):
    """Bytes of every member ``name`` in ``expected`` (name -> SHA-256 or None), verified.

    Present files are read and verified first (a wrong file is an error worth seeing offline);
    missing ones are downloaded from ``url`` unless ``download_if_missing`` is False (OSError).
    """
    present = [name for name in expected if (folder / name).is_file()]
    missing = [name for name in expected if name not in present]
    contents = {}
    for name in present:
        raw = (folder / name).read_bytes()
        contents[name] = _verified(raw, name, expected[name], folder, f"data_home: the file {folder / name}", loader)
    if missing:
        if not download_if_missing:
            raise OSError(
                f"data_home: {' and '.join(missing)} not found in {folder} and "
                f"download_if_missing=False. Copy {holding} into that folder, or allow the "
                f"download from {url}."
            )
        contents.update(
            _download(url, missing, expected, folder, loader, holding, env_var, archive_name)
        )
    return contents


def _record_path(folder, name):
    return folder / f"{name}.sha256"


def trust_on_first_use(raw, name, folder, loader):
    """Record the SHA-256 of a member that has no published checksum, with a loud warning."""
    digest = sha256(raw)
    write_atomically(_record_path(folder, name), (digest + "\n").encode("ascii"))
    warnings.warn(
        f"{loader}: no published SHA-256 is known for {name}, so rkmlearn cannot tell whether "
        f"this copy is the original. Its SHA-256 {digest} is now recorded in "
        f"{_record_path(folder, name)} (trust on first use) and every later load is checked "
        "against that record. Compare it with a source you trust, or pin it with the sha256 "
        "argument.",
        UserWarning,
        stacklevel=6,  # about the caller of the fetch_* loader
    )
    return raw


def _verified(raw, name, expected, folder, origin, loader):
    """``raw`` if it matches ``expected`` (or the trust-on-first-use record); else ValueError."""
    if expected is None:
        record = _record_path(folder, name)
        if not record.is_file():
            return trust_on_first_use(raw, name, folder, loader)
        expected = record.read_text(encoding="ascii").strip()
        source = f"the SHA-256 recorded on first use in {record}"
    else:
        source = f"the SHA-256 of the original file, {expected}"
    digest = sha256(raw)
    if digest != expected:
        raise ValueError(
            f"{origin} has SHA-256 {digest}, but {name} must match {source}: it is a different "
            f"or damaged file. Replace it with the original (delete it to have {loader} "
            "download it again)."
        )
    return raw


@contextlib.contextmanager
def _quiet(logger):
    # With known_hash=None pooch logs advice to pin the archive's hash; here the members are
    # pinned instead, so that advice would mislead.
    level = logger.level
    logger.setLevel("WARNING")
    try:
        yield
    finally:
        logger.setLevel(level)


def _download(url, names, expected, folder, loader, holding, env_var, archive_name):
    """Fetch the archive, verify the members ``names`` and store them in ``folder``."""
    pooch = import_pooch(loader, "downloading the data", holding)
    folder.mkdir(parents=True, exist_ok=True)
    fix = f"Check the address (argument url or ${env_var}), or pass data_home, a folder holding {holding}."
    # The archive and its extraction live in a temporary folder: only verified members are kept.
    with tempfile.TemporaryDirectory(dir=folder, prefix=".download-") as scratch:
        try:
            with _quiet(pooch.get_logger()):
                extracted = pooch.retrieve(
                    url,
                    known_hash=None,
                    fname=archive_name,
                    path=scratch,
                    processor=pooch.Unzip(),
                    progressbar=False,
                )
        except zipfile.BadZipFile as exc:
            raise ValueError(f"url: the file downloaded from {url} is not a zip archive ({exc}). {fix}") from exc
        except OSError as exc:  # requests' errors (offline, HTTP 404...) are OSErrors
            raise OSError(
                f"Could not download from {url} ({type(exc).__name__}: {exc}). If you are "
                f"offline, get {holding} another way, put them in one folder and call "
                f"{loader}(data_home=that folder); or point url / ${env_var} at a reachable copy "
                "of the archive."
            ) from exc
        members = {}
        for path in map(Path, extracted):
            members.setdefault(path.name, []).append(path)
        contents = {}
        for name in names:
            candidates = [p.read_bytes() for p in members.get(name, [])]
            if not candidates:
                raise ValueError(f"url: the archive downloaded from {url} has no file {name}. {fix}")
            if expected[name] is None:
                raw = _verified(candidates[0], name, None, folder, f"url: the file {name} downloaded from {url}", loader)
            else:
                # An archive may hold a file twice (in two folders): any copy that verifies will do.
                raw = next((c for c in candidates if sha256(c) == expected[name]), None)
                if raw is None:
                    raise ValueError(
                        f"url: the file {name} in the archive downloaded from {url} has SHA-256 "
                        f"{', '.join(sorted({sha256(c) for c in candidates}))}, but the original "
                        f"has {expected[name]}: the server sent different data. {fix}"
                    )
            write_atomically(folder / name, raw)
            contents[name] = raw
    return contents


def write_atomically(path, raw):
    # Written next to its destination then renamed, so an interrupted call never leaves a
    # truncated file that a later call would read (and reject) as the data.
    partial = path.with_name(path.name + ".part")
    partial.write_bytes(raw)
    os.replace(partial, path)
