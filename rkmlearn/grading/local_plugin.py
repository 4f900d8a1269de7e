"""pytest plugin for the UNSANDBOXED local check (macOS, Windows): for your own code only.

The grader's sandbox needs Linux (process namespaces, Landlock, ``fork``). Elsewhere a student can
still run an exercise's public tests on their own code: ``python -m rkmlearn.grading local
EXERCISE SUBMISSION`` (or :func:`rkmlearn.grading.check` in a notebook) runs pytest with this
plugin instead of :mod:`rkmlearn.grading.plugin`. The ``submission`` fixture is then the module
itself, imported in the test process: nothing protects the tests from the code they test, so this
mode is refused for other people's work (batch grading never uses it).
"""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import numpy as np
import pytest

SUBMISSION_ENV = "RKMLEARN_SUBMISSION"
SEED = 20240601  # the same data as the sandboxed plugin's rng fixture


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "points(n): points an autograded exercise test is worth")


def _load(path: Path):
    name = f"rkmlearn_local_submission_{abs(hash(str(path)))}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def submission():
    """The submission module, imported afresh in this process (no sandbox)."""
    path = os.environ.get(SUBMISSION_ENV)
    if not path:
        pytest.fail(f"set {SUBMISSION_ENV} to the file to check", pytrace=False)
    return _load(Path(path))


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(SEED)
