"""``make test`` runs the tests under the BLAS configurations issue 19 asks for (read from ``make -n``).

(1) every unit test under the machine's default BLAS (no ``OPENBLAS_*`` in its environment: a bug
that shows only under the default kernels, such as the SkylakeX-only short eigenvector return, must
be seen); (2) the unit tests under Sandybridge / 1 thread / NumPy at AVX2; nbval under two
configurations that differ in kernel AND thread count, every notebook of the book in exactly one.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_notebooks import IDS  # noqa: E402  (the notebooks of _toc.yml, relative paths)

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def passes():
    if shutil.which("make") is None:
        pytest.skip("no make on this machine")
    # -n: print the commands only; -o: take the venv, the book and the benchmarks as made
    out = subprocess.run(["make", "-n", "-o", ".venv/.installed", "-o", "book", "-o", "bench-quick", "test"],
                         cwd=REPO_ROOT, capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines() if " -m pytest " in line]


def _env(command):
    return dict(re.findall(r"\b([A-Z_]+)=(\"[^\"]*\"|\S+)", command.split(" -m pytest ")[0]))


def test_unit_tests_run_under_the_default_blas_and_the_alternative(passes):
    unit = [p for p in passes if re.search(r"\stests(\s|$)", p)]
    default = [p for p in unit if not any(k.startswith("OPENBLAS") or k.startswith("NPY_") for k in _env(p))]
    assert default, "no pass runs the unit tests under the machine's default BLAS"
    assert "--ignore" not in default[0], "the default-BLAS pass must run every unit test"
    alternative = [p for p in unit if _env(p).get("OPENBLAS_CORETYPE") == "Sandybridge"
                   and _env(p).get("OPENBLAS_NUM_THREADS") == "1" and "AVX512F" in _env(p).get("NPY_DISABLE_CPU_FEATURES", "")]
    assert alternative, "no pass runs the unit tests under Sandybridge / 1 thread / AVX2"
    assert all(_env(p).get("PYTHONHASHSEED") == "0" for p in passes)


def test_nbval_runs_every_notebook_under_one_of_two_configurations_that_differ_in_kernel_and_threads(passes):
    nbval = [p for p in passes if "--nbval" in p]
    configurations = [(_env(p).get("OPENBLAS_CORETYPE"), _env(p).get("OPENBLAS_NUM_THREADS")) for p in nbval]
    assert len(set(configurations)) >= 2, configurations
    (kernel_a, threads_a), (kernel_b, threads_b) = configurations[:2]
    assert kernel_a != kernel_b and threads_a != threads_b and None not in (kernel_a, kernel_b, threads_a, threads_b)
    for notebook in IDS:
        runs = [p for p in nbval if re.search(rf"(\s|^){re.escape(notebook)}(\s|$)", p) or re.search(r"\sbook(\s|$)", p)]
        assert len(runs) == 1, f"{notebook} is re-executed by {len(runs)} nbval passes of make test, not one"
