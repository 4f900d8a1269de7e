"""The pytest plugin that runs inside every grading subprocess.

The grader (:mod:`rkmlearn.grading.runner`) never runs a student's code in its own process. It
starts ``python -c <bootstrap>``, which loads this file *by path* (so that the subprocess does not
import :mod:`rkmlearn` and its numerical dependencies just to grade) and hands it to
``pytest.main``. The plugin then works in one of two modes, chosen by environment variables:

``RKMLEARN_GRADING_COLLECT=<file>``
    Collection only: write every collected test (node id, points, file) and every collection error
    to ``<file>`` as JSON.
``RKMLEARN_GRADING_SELECT=<file>`` and ``RKMLEARN_GRADING_RESULT=<file>``
    Run the tests whose node ids the first file lists (a JSON list; all others are deselected)
    and keep the second file up to date: which test is running since when, and the outcome of
    every phase (setup, call, teardown) of every test so far. Writing after each event,
    atomically, means that a process killed half-way (time-out, crash, ``os._exit``) still leaves a
    readable record of how far it got, and the grader can watch the running test's clock.

Only the standard library and pytest are imported here.
"""
from __future__ import annotations

import json
import os
import time
import traceback
from pathlib import Path

import pytest

COLLECT_ENV = "RKMLEARN_GRADING_COLLECT"
SELECT_ENV = "RKMLEARN_GRADING_SELECT"
RESULT_ENV = "RKMLEARN_GRADING_RESULT"
SUBMISSION_ENV = "RKMLEARN_SUBMISSION"

# Messages are excerpts for a results table, not full tracebacks.
MAX_MESSAGE_CHARS = 2000


def _write_json(path: str, payload: dict) -> None:
    """Write atomically: a reader never sees half a file, even if this process dies next."""
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(payload, fh)
    os.replace(tmp, path)


def _points_of(item: pytest.Item) -> object:
    """The first argument of the closest ``points`` marker, or None when the test has none."""
    marker = item.get_closest_marker("points")
    if marker is None:
        return None
    if marker.args:
        return marker.args[0]
    return marker.kwargs.get("n", "missing")


def _submission_location(tb: traceback.StackSummary) -> str:
    """``file:line`` of the innermost traceback frame inside the submission, or ''."""
    target = os.environ.get(SUBMISSION_ENV)
    if not target:
        return ""
    target = os.path.realpath(target)
    for frame in reversed(tb):
        if os.path.realpath(frame.filename) == target:
            return f"{os.path.basename(frame.filename)}:{frame.lineno}"
    return ""


def _describe(excinfo: pytest.ExceptionInfo) -> str:
    """A short, readable account of an exception raised by a test or a fixture."""
    exc = excinfo.value
    if isinstance(exc, pytest.skip.Exception):
        return f"skipped: {exc.msg}"
    if isinstance(exc, pytest.fail.Exception):
        # pytest.fail(...) in a test or in the `submission` fixture: the text is the message.
        return str(exc.msg)
    name = type(exc).__name__
    text = str(exc).strip()
    if isinstance(exc, SystemExit):
        message = f"the submission called sys.exit({exc.code!r}); a graded function must return"
    elif isinstance(exc, AssertionError):
        message = f"AssertionError: {text}" if text else "AssertionError"
    else:
        message = f"{name}: {text}" if text else name
    where = _submission_location(traceback.extract_tb(exc.__traceback__))
    if where:
        message += f" (raised at {where})"
    return message[:MAX_MESSAGE_CHARS]


class _Collector:
    """Collection mode: record the tests and their points."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.errors: list[dict] = []

    @pytest.hookimpl
    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.errors.append({"nodeid": report.nodeid,
                                "message": str(report.longrepr)[-MAX_MESSAGE_CHARS:]})

    @pytest.hookimpl
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        tests = []
        for item in session.items:
            points = _points_of(item)
            # JSON can carry only plain numbers; the grader validates and reports anything else.
            is_number = isinstance(points, (int, float)) and not isinstance(points, bool)
            if points is not None and not is_number:
                points = repr(points)
            tests.append({"nodeid": item.nodeid, "points": points,
                          "path": str(Path(str(item.path)).resolve())})
        _write_json(self.path, {"tests": tests, "errors": self.errors})


class _SelectedTestsRunner:
    """Run mode: keep the selected tests, record each phase of each and which one is running."""

    def __init__(self, select_path: str, result_path: str) -> None:
        with open(select_path, encoding="utf-8") as fh:
            self.selected = set(json.load(fh))
        self.path = result_path
        self.record: dict = {"found": [], "tests": {}, "current": None, "started_at": None,
                             "last_event": time.time(), "finished": False}

    def _save(self) -> None:
        self.record["last_event"] = time.time()
        _write_json(self.path, self.record)

    @pytest.hookimpl
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        keep = [item for item in items if item.nodeid in self.selected]
        drop = [item for item in items if item.nodeid not in self.selected]
        if drop:
            config.hook.pytest_deselected(items=drop)
        items[:] = keep
        self.record["found"] = [item.nodeid for item in keep]
        self._save()

    @pytest.hookimpl
    def pytest_runtest_logstart(self, nodeid: str, location) -> None:
        self.record["current"] = nodeid
        self.record["started_at"] = time.time()
        self.record["tests"][nodeid] = {"phases": {}}
        self._save()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        report = yield
        phase = {"outcome": report.outcome, "duration": call.duration, "message": ""}
        if call.excinfo is not None:
            phase["message"] = _describe(call.excinfo)
        self.record["tests"].setdefault(item.nodeid, {"phases": {}})["phases"][call.when] = phase
        self._save()
        return report

    @pytest.hookimpl
    def pytest_runtest_logfinish(self, nodeid: str, location) -> None:
        self.record["current"] = None
        self._save()

    @pytest.hookimpl
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.record["finished"] = True
        self.record["exitstatus"] = int(exitstatus)
        self._save()


def pytest_configure(config: pytest.Config) -> None:
    # Registered here as well as in each exercise's conftest, so --strict-markers never trips.
    config.addinivalue_line("markers", "points(n): points this test is worth in the autograder")
    collect_path = os.environ.get(COLLECT_ENV)
    select = os.environ.get(SELECT_ENV)
    result_path = os.environ.get(RESULT_ENV)
    if collect_path:
        config.pluginmanager.register(_Collector(collect_path), "rkmlearn-grading-collector")
    elif select is not None and result_path:
        config.pluginmanager.register(_SelectedTestsRunner(select, result_path),
                                      "rkmlearn-grading-runner")
