"""Test fixtures of this exercise: the submission under test, and shared data.

The submission is the file named by the environment variable ``RKMLEARN_SUBMISSION``; when it is
unset, ``solution.py`` next to this file (so ``pytest exercises/ch02_primal_dual`` checks the reference
solution), or ``starter.py`` in a student copy, which has no solution. Tests reach the submission
only through the ``submission`` fixture, never at import time: a submission that fails to import
then fails each test with a readable message instead of breaking collection.

Self-contained on purpose (standard library, pytest, numpy): a student copy must run without
the rest of the course's code.
"""
from __future__ import annotations

import importlib.util
import os
import sys
import traceback
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
SUBMISSION_ENV = "RKMLEARN_SUBMISSION"


def pytest_configure(config):
    config.addinivalue_line("markers", "points(n): points this test is worth in the autograder")


def _submission_path() -> Path:
    chosen = os.environ.get(SUBMISSION_ENV)
    if chosen:
        return Path(chosen).expanduser().resolve()
    solution = HERE / "solution.py"
    return solution if solution.is_file() else HERE / "starter.py"


@pytest.fixture
def submission():
    """The submitted module, freshly imported for each test."""
    path = _submission_path()
    if not path.is_file():
        pytest.fail(f"submission file {path} not found (set {SUBMISSION_ENV} to your .py file)",
                    pytrace=False)
    spec = importlib.util.spec_from_file_location("submission", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["submission"] = module
    try:
        spec.loader.exec_module(module)
    except SystemExit as exc:
        pytest.fail(f"submission failed to import: it calls sys.exit({exc.code!r}) at import "
                    "time; remove that call", pytrace=False)
    except Exception as exc:  # any error in the student's module-level code
        frames = [f for f in traceback.extract_tb(exc.__traceback__)
                  if Path(f.filename).resolve() == path]
        where = f" (line {frames[-1].lineno})" if frames else ""
        pytest.fail(f"submission failed to import: {type(exc).__name__}: {exc}{where}",
                    pytrace=False)
    yield module
    sys.modules.pop("submission", None)


@pytest.fixture
def rng():
    """A fixed random generator: the tests' data are random but reproducible."""
    return np.random.default_rng(20240601)
