"""pytest plugin for the UNSANDBOXED local check (macOS, Windows): for your own code only.

The grader's sandbox needs Linux (process namespaces, Landlock, ``fork``). Elsewhere a student can
still run an exercise's public tests on their own code: ``python -m rkmlearn.grading local
EXERCISE SUBMISSION`` (or :func:`rkmlearn.grading.check` in a notebook) runs pytest with this
plugin instead of :mod:`rkmlearn.grading.plugin`. The ``submission`` fixture then imports the
module in the test process: nothing protects the tests from the code they test, so this mode is
refused for other people's work (batch grading never uses it).

The fixture offers what the sandboxed proxy offers (:mod:`rkmlearn.grading.proxy`): each call
works on copies of its arguments, ``last_call.modified`` names the arguments it changed in place,
and ``calls``/``cpu_seconds`` measure it: without a worker process to read from outside, CPU time
is this process's own during the call (``time.process_time``), never missing. With ``$RKMLEARN_LOCAL_RESULTS`` set, every test's
points, outcome and message are written there as JSON for :func:`rkmlearn.grading.local_check`.
"""
from __future__ import annotations

import _thread
import copy
import importlib.util
import json
import math
import os
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from .feedback import assertion_message

SUBMISSION_ENV = "RKMLEARN_SUBMISSION"
RESULTS_ENV = "RKMLEARN_LOCAL_RESULTS"
TIMEOUT_ENV = "RKMLEARN_GRADING_TIMEOUT"
SEED = 20240601  # the same data as the sandboxed plugin's rng fixture
TIMEOUT = float(os.environ.get(TIMEOUT_ENV, "30"))  # seconds per call
HUNG: dict[str, str] = {}  # function -> why its later tests fail at once
_RESULTS = []


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "points(n): points an autograded exercise test is worth")


def _load(path: Path):
    name = f"rkmlearn_local_submission_{abs(hash(str(path)))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        pytest.fail(f"{path.name} is not a Python file; check a .py file or an exercise notebook "
                    "(.ipynb)", pytrace=False)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - the student's import error, said plainly
        pytest.fail(f"submission failed to import: {type(exc).__name__}: {exc}"
                    f"{_where(exc, path)}", pytrace=False)
    return module


def _where(exc: BaseException, path: Path) -> str:
    tb, line = exc.__traceback__, None
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename) == path:
            line = tb.tb_lineno
        tb = tb.tb_next
    return "" if line is None else f" (raised at {path.name}:{line})"


@dataclass
class LocalCall:
    """One call, as :class:`rkmlearn.grading.proxy.CallStats` has it; its CPU time is this
    process's (``time.process_time``) during the call: tests and submission share it here."""

    name: str
    wall_seconds: float
    cpu_seconds: float
    modified: tuple = ()


def _arrays(tree, path=()):
    if isinstance(tree, np.ndarray):
        yield path, tree
    elif isinstance(tree, (list, tuple)):
        for i, item in enumerate(tree):
            yield from _arrays(item, path + (i,))
    elif isinstance(tree, dict):
        for key, item in tree.items():
            yield from _arrays(item, path + (key,))


class LocalSubmission:
    """The ``submission`` fixture without a sandbox: calls run here, on copies of the arguments."""

    def __init__(self, module, path: Path) -> None:
        self._module, self._path, self._calls = module, path, []

    @property
    def calls(self) -> tuple:
        return tuple(self._calls)

    @property
    def last_call(self):
        return self._calls[-1] if self._calls else None

    @property
    def cpu_seconds(self):
        """CPU seconds of all the calls, read in this process (there is no worker to read)."""
        return math.fsum(c.cpu_seconds for c in self._calls) if self._calls else None

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        function = getattr(self._module, name, None)
        if not callable(function):
            pytest.fail(f"the submission does not define {name}(); keep the function names of "
                        "starter.py", pytrace=False)

        def call(*args, **kwargs):
            __tracebackhide__ = True
            if name in HUNG:
                pytest.fail(HUNG[name], pytrace=False)
            arguments = copy.deepcopy((list(args), dict(kwargs)))
            before = [(p, a.copy()) for p, a in _arrays(arguments)]
            start, cpu = time.monotonic(), time.process_time()
            # The time-out interrupts the main thread (KeyboardInterrupt), on every platform.
            timer = threading.Timer(TIMEOUT, _thread.interrupt_main)
            timer.start()
            try:
                value = function(*arguments[0], **arguments[1])
            except KeyboardInterrupt:
                if time.monotonic() - start < TIMEOUT:
                    raise  # the student's own Ctrl+C
                HUNG[name] = (f"not run: {name}() timed out in an earlier test (it ran for more "
                              f"than {TIMEOUT:g} s), so its other tests fail at once; make it "
                              "finish")
                pytest.fail(f"timed out in {name}(): it ran for more than {TIMEOUT:g} s and was "
                            "stopped (an endless loop?)", pytrace=False)
            finally:
                timer.cancel()
            wall, cpu = time.monotonic() - start, time.process_time() - cpu
            leaves = dict(_arrays(arguments))
            modified = tuple(p for p, old in before
                             if p in leaves and not np.array_equal(leaves[p], old, equal_nan=True))
            self._calls.append(LocalCall(name, wall, cpu, modified))
            return value

        return call


@pytest.fixture
def submission():
    """The submission module, imported afresh in this process (no sandbox), behind a proxy."""
    path = os.environ.get(SUBMISSION_ENV)
    if not path:
        pytest.fail(f"set {SUBMISSION_ENV} to the file to check", pytrace=False)
    return LocalSubmission(_load(Path(path)), Path(path))


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(SEED)


def _message(call: pytest.CallInfo) -> str:
    exc = call.excinfo.value
    if isinstance(exc, (pytest.fail.Exception, pytest.skip.Exception)):
        return str(exc.msg)
    if isinstance(exc, AssertionError):
        try:
            statement = str(call.excinfo.traceback[-1].statement)
        except Exception:  # noqa: BLE001 - no source: the message alone
            statement = ""
        return assertion_message(str(exc), statement)
    path = Path(os.environ.get(SUBMISSION_ENV, ""))
    text = str(exc).strip()
    return (f"{type(exc).__name__}: {text}" if text else type(exc).__name__) + _where(exc, path)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    if os.environ.get(RESULTS_ENV) and (report.failed or call.when == "call"):
        marker = item.get_closest_marker("points")
        points = marker.args[0] if marker is not None and marker.args else 1.0
        message = _message(call) if call.excinfo is not None and report.failed else ""
        if message and call.when != "call":
            message = f"error in {call.when}: {message}"
        _RESULTS.append({"nodeid": item.nodeid, "points": float(points),
                         "passed": report.passed, "message": message,
                         "hidden": "/hidden/" in Path(str(item.path)).as_posix()})
    return report


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    out = os.environ.get(RESULTS_ENV)
    if out:
        by_test: dict[str, dict] = {}
        for entry in _RESULTS:  # a failed teardown fails a test that passed its call
            old = by_test.get(entry["nodeid"])
            if old is None or (old["passed"] and not entry["passed"]):
                by_test[entry["nodeid"]] = entry
        Path(out).write_text(json.dumps({"tests": list(by_test.values()),
                                         "exitstatus": int(exitstatus)}), encoding="utf-8")
