"""Run the book from the page: what a reader downloads from the built site installs and works.

As a student with only the site: serve ``_build/html`` on 127.0.0.1, follow the links of the
page "Running the book" to the wheel and Chapter 1's hand-out, download both over HTTP, install
``rkmlearn-*.whl[book,grading]`` into a FRESH virtual environment outside the repository, unzip
the hand-out and grade its starter with the installed grader: it runs, and scores 0 (every
function still raises ``NotImplementedError``).

No network: the venv sees the test environment's installed packages through a ``.pth`` line
(numpy, scipy, matplotlib, pytest, ...) and pip runs with ``--no-index``, so the wheel's
dependencies and extras are resolved against those; the wheel's own ``rkmlearn`` comes first on
the path (the venv's site-packages), so the source tree is never imported (no PYTHONPATH, the
working directory outside the repository, and the test asserts where rkmlearn came from).
"""
from __future__ import annotations

import functools
import http.server
import json
import os
import re
import subprocess
import sys
import sysconfig
import threading
import urllib.parse
import urllib.request
import venv
import zipfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
HTML = REPO_ROOT / "_build" / "html"
RUNNING = HTML / "book" / "running.html"

if not RUNNING.is_file():
    pytest.skip("the book is not built (run `make book`)", allow_module_level=True)
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _env() -> dict:
    return {k: v for k, v in os.environ.items()
            if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}


def _run(cmd, cwd):
    done = subprocess.run([str(c) for c in cmd], cwd=cwd, env=_env(), capture_output=True,
                          text=True)
    assert done.returncode == 0, f"{cmd}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def downloaded(tmp_path_factory):
    """(wheel, hand-out zip), fetched over HTTP by the links of "Running the book"."""
    work = tmp_path_factory.mktemp("reader")
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(HTML)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        page = f"http://127.0.0.1:{server.server_port}/book/running.html"
        html = urllib.request.urlopen(page).read().decode()
        links = re.findall(r'href="([^"]*downloads/[^"]+)"', html)
        wheel = next(link for link in links if link.endswith(".whl"))
        handout = next(link for link in links if link.endswith("handout-ch01_kernels.zip"))
        files = []
        for link in (wheel, handout):
            url = urllib.parse.urljoin(page, link)
            target = work / url.rsplit("/", 1)[-1]
            target.write_bytes(urllib.request.urlopen(url).read())
            files.append(target)
    finally:
        server.shutdown()
        server.server_close()
    return work, files[0], files[1]


def test_the_downloaded_wheel_installs_and_grades_the_downloaded_handout(downloaded):
    work, wheel, handout = downloaded
    venv.create(work / "venv", with_pip=True)
    python = work / "venv" / "bin" / "python"
    site = _run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                work).strip()
    # the test environment's packages (not its rkmlearn: the venv's own site-packages, where the
    # wheel goes, comes first on the path)
    (Path(site) / "_test_environment.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _run([python, "-m", "pip", "install", "-q", "--no-index", f"{wheel.name}[book,grading]"],
         work)
    where = _run([python, "-c", "import rkmlearn; print(rkmlearn.__file__)"], work).strip()
    assert where.startswith(str(work / "venv")), f"rkmlearn imported from {where}"
    with zipfile.ZipFile(handout) as archive:
        archive.extractall(work)
    results = work / "results.json"
    out = _run([python, "-m", "rkmlearn.grading", "ch01_kernels", "ch01_kernels/starter.py",
                "--json", results], work)
    report = json.loads(results.read_text())
    assert report["tests"], f"the hand-out's check ran no test:\n{out}"
    assert report["score"] == 0, f"the starter scored {report['score']}:\n{out}"
    assert not (work / "ch01_kernels" / "solution.py").exists()
    print(f"\ndownload test: {wheel.name} installed in a fresh venv; hand-out "
          f"{handout.name}: {len(report['tests'])} tests run on the starter, score "
          f"{report['score']} of {sum(t.get('max_score', 0) for t in report['tests'])}")
