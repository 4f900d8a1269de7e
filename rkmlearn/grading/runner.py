"""A runner: ``python -m rkmlearn.grading.runner PYTEST_ARGS``, started by the judge.

It runs pytest over the grading folder with the exercise's plugin (:mod:`rkmlearn.grading.plugin`),
so the tests and their comparisons run here, and the submission is only ever imported in the
sandbox's workers below it. ``$RKMLEARN_GRADING_RUNNER`` (JSON) is its job: which tests to run
(a share of them, or a list of ids), the sandbox policy, whether to probe the import first, and
``event_fd``, a pipe on which every test's start, phases and end are reported to the judge (the
worker does not have it). A runner is the parent and subreaper of its sandbox, is not dumpable,
and kills everything it started when the judge goes away (its stdin reaches end-of-file).
"""
from __future__ import annotations

import json
import os
import resource
import shutil
import sys
import threading
from pathlib import Path

import pytest

from . import plugin, procs
from .judge import RUNNER_ENV
from .proxy import RaisedBySubmission, SubmissionFailure
from .sandbox import SandboxError
from .testfiles import base_id

MAX_MESSAGE_CHARS = 2000
_REPORTERS: list = []  # this process's reporter, for the emergency stop


def points_of(item: pytest.Item) -> object:
    """The first argument of the closest ``points`` marker, or None when the test has none."""
    marker = item.get_closest_marker("points")
    if marker is None:
        return None
    if marker.args:
        return marker.args[0]
    return marker.kwargs.get("n", "missing")


def describe(excinfo: pytest.ExceptionInfo) -> str:
    """A short account of why a test failed, for the results table."""
    exc = excinfo.value
    if isinstance(exc, pytest.skip.Exception):
        return f"skipped: {exc.msg}"
    if isinstance(exc, pytest.fail.Exception):
        return str(exc.msg)[:MAX_MESSAGE_CHARS]
    if isinstance(exc, SubmissionFailure):
        return str(exc)[:MAX_MESSAGE_CHARS]
    if isinstance(exc, RaisedBySubmission):
        where = f" (raised at {exc.where})" if exc.where else ""
        return f"{exc.remote_type}: {exc}{where}"[:MAX_MESSAGE_CHARS]
    text = str(exc).strip()
    name = type(exc).__name__
    return (f"{name}: {text}" if text else name)[:MAX_MESSAGE_CHARS]


class Reporter:
    """The runner's own pytest plugin: select this runner's tests, probe the import, report
    every event to the judge."""

    def __init__(self, settings: dict) -> None:
        self.fd = settings["event_fd"]
        self.settings = settings
        self.harness: plugin.Harness | None = None
        self.errors: list[dict] = []
        _REPORTERS.append(self)

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        config.stash[plugin.RUNNER_SETTINGS] = self.settings  # before the plugin's own hook

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.harness = session.config.stash[plugin.HARNESS]
        self.harness.failure_listeners.append(
            lambda why: self.emit(event="sandbox_error", message=why[:MAX_MESSAGE_CHARS]))

    def emit(self, **event) -> None:
        data = memoryview((json.dumps(event) + "\n").encode("utf-8"))
        while data:
            data = data[os.write(self.fd, data):]

    @pytest.hookimpl
    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.errors.append({"nodeid": report.nodeid,
                                "message": str(report.longrepr)[-MAX_MESSAGE_CHARS:]})

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list) -> None:
        tests = []
        for item in items:
            points = points_of(item)
            if points is not None and (isinstance(points, bool)
                                       or not isinstance(points, (int, float))):
                points = repr(points)  # the judge reports it as an instructor error
            tests.append({"nodeid": item.nodeid, "points": points,
                          "path": str(Path(str(item.path)).resolve())})
        self.emit(event="collected", tests=tests, errors=self.errors)
        only = self.settings.get("only")
        if only is not None:  # the tests of one function (rkmlearn.grading.check)
            wanted_tests = set(only)
            items[:] = [item for item in items if base_id(item.nodeid) in wanted_tests]
        select = self.settings.get("select") or {}
        if "nodeids" in select:
            wanted = set(select["nodeids"])
            keep = [item for item in items if item.nodeid in wanted]
        else:
            share, shares = select.get("share", 0), select.get("of", 1)
            lo, hi = round(share * len(items) / shares), round((share + 1) * len(items) / shares)
            keep = items[lo:hi]
        if keep and self.settings.get("probe"):
            try:
                ok, message = self.harness.probe()
            except SandboxError as exc:
                self.emit(event="sandbox_error", message=str(exc)[:MAX_MESSAGE_CHARS])
                keep = []
            else:
                self.emit(event="probe", ok=ok, message=message[:MAX_MESSAGE_CHARS],
                          layers=self.harness.layers)
                if not ok:
                    keep = []
        dropped = [item for item in items if item not in keep]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = keep

    @pytest.hookimpl
    def pytest_runtest_logstart(self, nodeid: str, location) -> None:
        self.emit(event="start", nodeid=nodeid)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        report = yield
        message = describe(call.excinfo) if call.excinfo is not None else ""
        self.emit(event="phase", nodeid=item.nodeid, when=call.when, outcome=report.outcome,
                  message=message, duration=call.duration, layers=self.harness.layers)
        return report

    @pytest.hookimpl
    def pytest_runtest_logfinish(self, nodeid: str, location) -> None:
        self.emit(event="finish", nodeid=nodeid)

    @pytest.hookimpl
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.emit(event="done", exitstatus=int(exitstatus))


def _watch_judge() -> None:
    """Runs in a thread of each runner: the judge holds our stdin open for as long as it lives.

    End-of-file means the judge died (or wants us gone): kill everything this runner started,
    wherever it went, and exit. A judge killed with SIGKILL thus leaves nothing behind.
    """
    while True:
        try:
            if not os.read(0, 4096):
                break
        except InterruptedError:
            continue
        except OSError:
            break
    emergency_stop(3)


def emergency_stop(code: int) -> None:
    """Kill this runner's sandbox and everything it started; exit with ``code``.

    When the judge is gone (this runner was re-parented), also remove the grading's folders,
    which the judge would have removed.
    """
    settings = json.loads(os.environ.get(RUNNER_ENV) or "{}")
    for reporter in _REPORTERS:
        if reporter.harness is not None:
            reporter.harness.kill_now()
    procs.sweep_descendants()
    uid = settings.get("policy", {}).get("uid")
    if uid is not None and os.geteuid() == 0:
        procs.kill_uid(uid)
    if os.getppid() != settings.get("judge_pid"):
        for folder in settings.get("cleanup", []):
            shutil.rmtree(folder, ignore_errors=True)
    os._exit(code)


def main(argv: list[str]) -> int:
    """Run this runner's share of the tests (pytest arguments ``argv``); pytest's exit code."""
    procs.become_subreaper()
    procs.not_dumpable()
    threading.Thread(target=_watch_judge, daemon=True).start()
    settings = json.loads(os.environ[RUNNER_ENV])
    if settings.get("memory_bytes"):
        # The tests compare here, with values a worker sent: numpy raises MemoryError before a
        # runner grows past its limit (the zygote lowers it further for the submission).
        limit = int(settings["memory_bytes"])
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return int(pytest.main(argv, plugins=[plugin, Reporter(settings)]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
