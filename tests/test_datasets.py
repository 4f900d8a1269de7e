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
import socket
import sys
import threading
import zipfile
from functools import partial

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rkmlearn.datasets import (
    SANTAFE_SHA256,
    SANTAFE_URL_ENV,
    load_santafe,
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
