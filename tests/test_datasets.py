"""Tests of rkmlearn.datasets: the sum of sines, the laser stand-in, and the Santa Fe loader.

The loader is tested offline: a loopback HTTP server serves a zip built here from stand-in files
whose SHA-256 is computed here and patched into the registry (the real hashes cannot be produced
without the real data, which the tests must not read).
"""

from __future__ import annotations

import hashlib
import sys
import http.server
import socket
import threading
import zipfile
from functools import partial

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import solve_ivp
from scipy.signal import find_peaks

from rkmlearn.datasets import (
    SANTAFE_SHA256,
    SANTAFE_URL_ENV,
    load_santafe,
    make_laser_series,
    sum_of_sines,
)
from rkmlearn.datasets import santafe as santafe_module

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
    assert "identically zero" in data.description


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
# make_laser_series
# ----------------------------------------------------------------------------------------------


def lorenz(t, u, sigma, rho, beta):
    x, y, z = u
    return [sigma * (y - x), rho * x - y - x * z, x * y - beta * z]


@pytest.fixture(scope="module")
def laser():
    return make_laser_series(random_state=0)


def test_laser_series_looks_like_santa_fe_files(laser):
    assert laser.train.shape == (1000,) and laser.test.shape == (100,)
    x = np.r_[laser.train, laser.test]
    assert x.dtype == np.float64 and np.all(np.isfinite(x))
    np.testing.assert_array_equal(x, np.rint(x))
    assert x.min() >= 2 and x.max() <= 255
    # Uses the range: collapses reach the bottom, pulsation peaks reach high counts.
    assert x.min() <= 5 and x.max() >= 150
    assert "STAND-IN" in laser.description and "NOT THE SANTA FE DATA" in laser.description


def test_laser_series_pulsation_period_is_the_lasers(laser):
    sigma, beta, rho, dt = 2.0, 0.25, 15.0, 0.45
    # Oscillation frequency of the field around steady lasing, from the Jacobian at x = y = a.
    a = np.sqrt(beta * (rho - 1))
    jacobian = np.array([[-sigma, sigma, 0], [1, -1, -a], [a, a, -beta]])
    omega = np.max(np.abs(np.linalg.eigvals(jacobian).imag))
    linear_period = 2 * np.pi / omega / dt
    peaks, _ = find_peaks(np.r_[laser.train, laser.test])
    spacing = np.median(np.diff(peaks))
    # Large pulsations are slower than small ones around the steady state, never faster.
    assert linear_period <= spacing <= 1.5 * linear_period, (spacing, linear_period)


def test_laser_series_solves_the_documented_equations():
    kw = dict(sigma=2.5, beta=0.3, rho=18.0, sampling_interval=0.05)
    data = make_laser_series(30, 10, random_state=7, burn_in=0.0, quantize=False, **kw)
    times = 0.05 * np.arange(40)
    reference = solve_ivp(
        lorenz, (0, times[-1]), data.initial_condition, method="DOP853", t_eval=times,
        args=(kw["sigma"], kw["rho"], kw["beta"]), rtol=1e-11, atol=1e-11,
    )
    counts = 2 + 40 * reference.y[0] ** 2 / (kw["beta"] * (kw["rho"] - 1))
    np.testing.assert_allclose(np.r_[data.train, data.test], counts, rtol=1e-3, atol=1e-3)


def test_laser_series_quantize_rounds_and_clips_the_same_intensity():
    raw = make_laser_series(300, 50, random_state=2, quantize=False)
    counts = make_laser_series(300, 50, random_state=2)
    for r, c in ((raw.train, counts.train), (raw.test, counts.test)):
        assert np.all(r >= 2)
        np.testing.assert_array_equal(c, np.clip(np.rint(r), 2, 255))


def test_laser_series_is_deterministic_and_seeded(laser):
    again = make_laser_series(random_state=0)
    np.testing.assert_array_equal(again.train, laser.train)
    np.testing.assert_array_equal(again.test, laser.test)
    other = make_laser_series(random_state=1)
    assert not np.array_equal(other.train, laser.train)
    rng_state = make_laser_series(random_state=np.random.RandomState(0))
    np.testing.assert_array_equal(rng_state.train, laser.train)


def test_laser_series_test_size_does_not_change_training_values():
    short = make_laser_series(200, 20, random_state=4)
    long = make_laser_series(200, 80, random_state=4)
    np.testing.assert_array_equal(short.train, long.train)
    np.testing.assert_array_equal(short.test, long.test[:20])


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(n_train=0), "n_train"),
        (dict(n_test=1.5), "n_test"),
        (dict(sigma=-1.0), "sigma"),
        (dict(beta=np.nan), "beta"),
        (dict(rho=1.0), "rho"),
        (dict(rho=np.inf), "rho"),
        (dict(sampling_interval=0.0), "sampling_interval"),
        (dict(burn_in=-1.0), "burn_in"),
        (dict(quantize="yes"), "quantize"),
        (dict(random_state="seed"), "random_state"),
    ],
)
def test_laser_series_rejects_bad_parameters(kwargs, name):
    with pytest.raises(ValueError, match=name):
        make_laser_series(**{"n_train": 20, "n_test": 5, **kwargs})


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
    assert "Santa Fe" in data.description


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
    monkeypatch.setattr(santafe_module, "_default_data_home", lambda: tmp_path / "user-cache")
    data = load_santafe()
    np.testing.assert_array_equal(data.test, values["laserpred.dat"])
    assert hits == ["/mirror.zip"]
    assert (tmp_path / "user-cache" / "lasertrain.dat").read_bytes() == files["lasertrain.dat"]


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
        load_santafe()
    with pytest.raises(ImportError, match="pip install pooch"):
        load_santafe(tmp_path / "empty", url=closed_port_url)
