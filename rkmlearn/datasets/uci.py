"""The UCI time series of the recurrent RKM paper's Table 1, downloaded once and verified.

Pandey et al. (ESANN 2022, Table 1) forecast Santa Fe (shipped: :func:`load_santafe`) and three
UCI Machine Learning Repository sets, which no installed package ships:

* :func:`fetch_chickenpox` -- Hungarian Chickenpox Cases (UCI 580, CC BY 4.0);
* :func:`fetch_appliances_energy` -- Appliances Energy Prediction (UCI 374, CC BY 4.0);
* :func:`fetch_gas_turbine` -- Gas Turbine CO and NOx Emission Data Set (UCI 551, CC BY 4.0).

Each is the zip archive of its UCI page, downloaded once with pooch into ``data_home`` (default
the user cache), of which only the CSV members are kept, each verified by its SHA-256
(:data:`UCI_SHA256`). The book does not use them (it must build offline); readers online can.

**Where the checksums come from.** rkmlearn could not download the files when this was written
(no internet), so it could not hash them itself. The SHA-256 of the Appliances Energy and Gas
Turbine members were taken from several independent public projects that pin them and agree
with each other. For Hungarian Chickenpox no published checksum was found: its entry is None,
and the file is **trusted on first use** -- its SHA-256 is recorded beside it
(``hungary_chickenpox.csv.sha256``), a ``UserWarning`` says so, and later loads are checked
against that record. Pass ``sha256=`` to pin a hash you trust instead.
"""

from __future__ import annotations

import csv
import io

import numpy as np
from sklearn.utils import Bunch

from .._validation import check_bool
from . import _fetch

__all__ = [
    "fetch_chickenpox",
    "fetch_appliances_energy",
    "fetch_gas_turbine",
    "UCI_URLS",
    "UCI_SHA256",
]

#: Archive address of each set (override with the ``url`` argument, e.g. a mirror).
UCI_URLS = {
    "chickenpox": "https://archive.ics.uci.edu/static/public/580/hungarian+chickenpox+cases.zip",
    "appliances_energy": "https://archive.ics.uci.edu/static/public/374/appliances+energy+prediction.zip",
    "gas_turbine": "https://archive.ics.uci.edu/static/public/551/gas+turbine+co+and+nox+emission+data+set.zip",
}
#: SHA-256 of each CSV member; None: no published checksum, trusted on first use (see module doc).
UCI_SHA256 = {
    "chickenpox": {"hungary_chickenpox.csv": None},
    "appliances_energy": {
        "energydata_complete.csv": "2820bf712ad0275cb18b85a05250926100d8e65ebb9f4d2d016ca91ea152a25d",
    },
    "gas_turbine": {
        "gt_2011.csv": "d87ceef9aa59533cc7d924d10de241b1b06ecd11f9b26bab59191ea0f8a76b9a",
        "gt_2012.csv": "be54b9d0e1a7de40c55d32fa489e75de892b000c066b5a09f09a19124ee29100",
        "gt_2013.csv": "13c437bb440ec2045bd12057e6654c41dd4107a661eac16ba2e878e897a08f9e",
        "gt_2014.csv": "c2a03c92c9c3207aad0c6be7de8d9b5b4bfa4720ad0efb2c1f21b6cec4d3f3fa",
        "gt_2015.csv": "9b08f35fde0d4b138232a605db4093c2b8bf9d6757e6f1fbd9534ad616c13591",
    },
}
_URL_ENV = "RKMLEARN_UCI_URL"

_CITE = {
    "chickenpox": "B. Rozemberczki, P. Scherer, O. Kiss, R. Sarkar, T. Ferenci, \"Chickenpox Cases in Hungary: "
    "a Benchmark Dataset for Spatiotemporal Signal Processing with Graph Neural Networks\", 2021. "
    "UCI Machine Learning Repository, doi:10.24432/C5103B (CC BY 4.0).",
    "appliances_energy": "L. M. Candanedo, V. Feldheim, D. Deramaix, \"Data driven prediction models of energy use "
    "of appliances in a low-energy house\", Energy and Buildings 140 (2017) 81-97. UCI Machine "
    "Learning Repository, doi:10.24432/C5VC8G (CC BY 4.0).",
    "gas_turbine": "H. Kaya, P. Tufekci, E. Uzun, \"Predicting CO and NOx emissions from gas turbines: novel data "
    "and a benchmark PEMS\", Turkish Journal of Electrical Engineering & Computer Sciences 27 "
    "(2019). UCI Machine Learning Repository, doi:10.24432/C5WC95 (CC BY 4.0).",
}
_WHAT = {
    "chickenpox": "Weekly chickenpox cases in the 20 counties of Hungary (Budapest and 19 counties), "
    "2005-2014. data[:, j] is county feature_names[j]; dates are the Mondays.",
    "appliances_energy": "Energy use of appliances in a low-energy house (Wh), lights, indoor temperatures and "
    "humidities, and weather, every 10 minutes for about 4.5 months of 2016: 19 735 rows. "
    "'Appliances' (column 0) is the usual forecasting target.",
    "gas_turbine": "Hourly sensor averages of a gas turbine in Turkey, 2011-2015: 36 733 rows of 9 ambient "
    "and process variables and the CO and NOx emissions, in file order (2011 first).",
}


def _load(name, data_home, sha256, download_if_missing, url, loader):
    expected = dict(UCI_SHA256[name])
    if sha256 is not None:
        expected = _pinned(sha256, expected)
    members = list(expected)
    holding = " and ".join(members)
    url = _fetch.resolve_url(url, _URL_ENV, UCI_URLS[name], name)
    download_if_missing = check_bool(download_if_missing, "download_if_missing")
    folder = _fetch.resolve_folder(data_home, name, holding, loader)
    contents = _fetch.read_members(
        folder,
        expected,
        url=url,
        download_if_missing=download_if_missing,
        loader=loader,
        holding=holding,
        env_var=_URL_ENV,
        archive_name=f"{name}.zip",
    )
    return contents, folder


def _pinned(sha256, expected):
    """The user's hashes in place of the registry's: one str (one member) or a dict."""
    if isinstance(sha256, str) and len(expected) == 1:
        sha256 = {next(iter(expected)): sha256}
    if not isinstance(sha256, dict) or set(sha256) - set(expected) or not all(
        isinstance(v, str) and len(v) == 64 for v in sha256.values()
    ):
        raise ValueError(
            f"sha256 must be a 64-character hex SHA-256 (data sets of one file) or a dict "
            f"{{file name: SHA-256}} with file names among {sorted(expected)}; got {sha256!r}."
        )
    return {**expected, **{k: v.lower() for k, v in sha256.items()}}


def _table(raw, name):
    """Header and rows of a CSV member (text, comma separated, a header line)."""
    try:
        rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    except UnicodeDecodeError as exc:
        raise ValueError(f"{name} is not a UTF-8 CSV file ({exc}).") from exc
    rows = [r for r in rows if r]
    if len(rows) < 2:
        raise ValueError(f"{name} must hold a header line and at least one row of values.")
    header = [h.strip() for h in rows[0]]
    if any(len(r) != len(header) for r in rows[1:]):
        raise ValueError(f"{name}: every row must have the {len(header)} columns of the header.")
    return header, rows[1:]


def _numbers(rows, name, columns):
    try:
        values = np.array([[float(r[j]) for j in columns] for r in rows], dtype=np.float64)
    except ValueError as exc:
        raise ValueError(f"{name}: a value is not a number ({exc}).") from exc
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{name}: values must be finite.")
    return values


def _describe(name, folder, digests):
    hashes = "\n".join(f"  {member}: {digest}" for member, digest in digests.items())
    return (
        f"{_WHAT[name]}\n\nFiles in {folder}, SHA-256:\n{hashes}\n\nSource: {UCI_URLS[name]}\n"
        f"Cite: {_CITE[name]}\nUsed by Pandey et al., \"Recurrent Restricted Kernel Machines for "
        "Time-series Forecasting\" (ESANN 2022), Table 1; the paper does not say which column it "
        "forecasts."
    )


_COMMON_PARAMETERS = """
    Parameters
    ----------
    data_home : str or path-like, optional
        Folder holding (or to receive) the CSV file(s). Default: the user cache folder
        ``pooch.os_cache("rkmlearn") / "{name}"``. Offline, put the file(s) from the UCI archive
        there by hand.
    sha256 : str or dict, optional
        Pin the SHA-256 of the file ({{file name: hash}}, or one hash for a one-file set) instead
        of :data:`UCI_SHA256` (or of the trust-on-first-use record).
    download_if_missing : bool, default=True
        Download missing files; when False, raise ``OSError`` instead.
    url : str, optional
        Address of the zip archive. Default: ``$RKMLEARN_UCI_URL`` if set, else
        ``UCI_URLS["{name}"]``.
"""
_COMMON_RAISES = """
    Raises
    ------
    ValueError
        Invalid argument; a file that does not match its SHA-256, cannot be parsed, or is absent
        from the downloaded archive.
    OSError
        A file is missing and cannot be downloaded (offline, or ``download_if_missing=False``).
    ImportError
        A download is needed, or ``data_home`` is None, and :mod:`pooch` is not installed.
"""


def _dated_series(name, contents, folder, date_column, date_format, to_iso, unit):
    """A one-file set whose first column is a date: values, names, dates and description."""
    (member,) = contents
    header, rows = _table(contents[member], member)
    if header[0] != date_column:
        raise ValueError(f"{member}: the first column must be {date_column} ({date_format}); got {header[0]!r}.")
    try:
        dates = np.array([to_iso(r[0].strip()) for r in rows], dtype=f"datetime64[{unit}]")
    except ValueError as exc:
        raise ValueError(f"{member}: a {date_column} is not {date_format} ({exc}).") from exc
    return Bunch(
        data=_numbers(rows, member, range(1, len(header))),
        feature_names=header[1:],
        dates=dates,
        data_home=str(folder),
        DESCR=_describe(name, folder, {member: _fetch.sha256(contents[member])}),
    )


def fetch_chickenpox(data_home=None, *, sha256=None, download_if_missing=True, url=None):
    # Docstring assembled below from the shared parameter text.
    contents, folder = _load("chickenpox", data_home, sha256, download_if_missing, url, "fetch_chickenpox")
    return _dated_series(
        "chickenpox", contents, folder, "Date", "dd/mm/yyyy", lambda d: f"{d[6:10]}-{d[3:5]}-{d[0:2]}", "D"
    )


def fetch_appliances_energy(data_home=None, *, sha256=None, download_if_missing=True, url=None):
    contents, folder = _load(
        "appliances_energy", data_home, sha256, download_if_missing, url, "fetch_appliances_energy"
    )
    return _dated_series(
        "appliances_energy", contents, folder, "date", "yyyy-mm-dd hh:mm:ss", lambda d: d.replace(" ", "T"), "s"
    )


def fetch_gas_turbine(data_home=None, *, sha256=None, download_if_missing=True, url=None):
    contents, folder = _load("gas_turbine", data_home, sha256, download_if_missing, url, "fetch_gas_turbine")
    blocks, years, names = [], [], None
    for member in sorted(contents):
        header, rows = _table(contents[member], member)
        if names is not None and header != names:
            raise ValueError(f"{member}: columns {header} differ from the other years' {names}.")
        names = header
        blocks.append(_numbers(rows, member, range(len(header))))
        years.append(np.full(len(rows), int(member[3:7])))
    return Bunch(
        data=np.vstack(blocks),
        feature_names=names,
        year=np.concatenate(years),
        data_home=str(folder),
        DESCR=_describe("gas_turbine", folder, {m: _fetch.sha256(contents[m]) for m in sorted(contents)}),
    )

def _docstring(summary, name, returns, examples):
    """A fetcher's docstring: its summary, the common parameters, its ``Bunch``, the common errors, its examples."""
    return (summary + _COMMON_PARAMETERS.format(name=name)
            + "\n    Returns\n    -------\n    data : :class:`sklearn.utils.Bunch`\n" + returns
            + _COMMON_RAISES + "\n    Examples\n    --------\n" + examples + "    ")


fetch_chickenpox.__doc__ = _docstring(
    """Hungarian Chickenpox Cases (UCI 580): weekly cases in 20 Hungarian counties, 2005-2014.

    **No published checksum is known for this file**: the first load records its SHA-256 beside
    it and warns (trust on first use); later loads are checked against that record. Pin a hash
    you trust with ``sha256=``.
""",
    "chickenpox",
    """        ``data`` (n_weeks, 20) float64 case counts, ``feature_names`` (the county of each
        column, BUDAPEST first), ``dates`` (n_weeks,) datetime64[D], ``data_home``, ``DESCR``.
""",
    """    >>> from rkmlearn.datasets import fetch_chickenpox
    >>> data = fetch_chickenpox()  # doctest: +SKIP
    >>> budapest = data.data[:, data.feature_names.index("BUDAPEST")]  # doctest: +SKIP
""",
)
fetch_appliances_energy.__doc__ = _docstring(
    """Appliances Energy Prediction (UCI 374): a low-energy house every 10 minutes, 2016.

    The file ``energydata_complete.csv`` is verified by the SHA-256 in :data:`UCI_SHA256`.
""",
    "appliances_energy",
    """        ``data`` (n_rows, 28) float64 (``Appliances`` first), ``feature_names``, ``dates``
        (n_rows,) datetime64[s], ``data_home``, ``DESCR``.
""",
    """    >>> from rkmlearn.datasets import fetch_appliances_energy
    >>> data = fetch_appliances_energy()  # doctest: +SKIP
    >>> appliances = data.data[:, 0]  # doctest: +SKIP
""",
)
fetch_gas_turbine.__doc__ = _docstring(
    """Gas Turbine CO and NOx Emission Data Set (UCI 551): hourly, 2011-2015, five files.

    The files ``gt_2011.csv`` .. ``gt_2015.csv`` are verified by the SHA-256 in
    :data:`UCI_SHA256` and stacked in year order.
""",
    "gas_turbine",
    """        ``data`` (n_rows, 11) float64 (columns AT, AP, AH, AFDP, GTEP, TIT, TAT, TEY, CDP, CO,
        NOX), ``feature_names``, ``year`` (n_rows,) int, ``data_home``, ``DESCR``.
""",
    """    >>> from rkmlearn.datasets import fetch_gas_turbine
    >>> data = fetch_gas_turbine()  # doctest: +SKIP
    >>> nox = data.data[:, data.feature_names.index("NOX")]  # doctest: +SKIP
""",
)
