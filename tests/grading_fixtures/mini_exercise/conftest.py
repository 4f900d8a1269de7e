"""The `submission` fixture of the mini exercise (the same mechanism as the book's exercises)."""
import importlib.util
import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_configure(config):
    config.addinivalue_line("markers", "points(n): points this test is worth in the autograder")


@pytest.fixture
def submission():
    path = Path(os.environ.get("RKMLEARN_SUBMISSION") or HERE / "solution.py")
    spec = importlib.util.spec_from_file_location("submission", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["submission"] = module
    try:
        spec.loader.exec_module(module)
    except SystemExit as exc:
        pytest.fail(f"submission failed to import: it calls sys.exit({exc.code!r}) at import "
                    "time; remove that call", pytrace=False)
    except Exception as exc:
        pytest.fail(f"submission failed to import: {type(exc).__name__}: {exc}", pytrace=False)
    yield module
    sys.modules.pop("submission", None)
