"""The exercises' pytest plugin: the ``points`` marker and the ``submission`` and ``rng`` fixtures.

Every exercise's ``pytest.ini`` loads it (``-p rkmlearn.grading.plugin``), so that
``python -m pytest exercises/ch01_kernels`` runs the tests exactly as the grader does: the
submission is imported in a sandboxed worker (:mod:`rkmlearn.grading.sandbox`), never in the
pytest process, and the ``submission`` fixture is a proxy whose calls are sent to that worker.
Which file is the submission, outside the grader: ``$RKMLEARN_SUBMISSION``, else the folder's
``solution.py``, else its ``starter.py`` (a student copy has no solution). Seconds per test:
``$RKMLEARN_GRADING_TIMEOUT`` (default 30).

The grader's runner processes load this module too (:func:`runner_main`), with
``$RKMLEARN_GRADING_RUNNER`` describing their job: which tests to run, the sandbox policy, and a
pipe on which every test's start, phases and end are reported to the judge. A runner is the
parent (and subreaper) of its sandbox; it never imports the submission.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from . import procs
from .exercise import load_config
from .sandbox import (Policy, RaisedBySubmission, SandboxDirs, SandboxError, Session, Submission,
                      SubmissionFailure, SubmissionTimeout, Zygote)

RUNNER_ENV = "RKMLEARN_GRADING_RUNNER"
SUBMISSION_ENV = "RKMLEARN_SUBMISSION"
TIMEOUT_ENV = "RKMLEARN_GRADING_TIMEOUT"
SEED = 20240601
MAX_MESSAGE_CHARS = 2000
_HARNESS = pytest.StashKey()
_CALL_PASSED = pytest.StashKey()
_ACTIVE: list = []  # the harness of this process, for the emergency stop



def _base_test_id(nodeid: str) -> str:
    """``file::name`` of a test id, without its class and parameters."""
    file_part, _, rest = nodeid.partition("::")
    return file_part + "::" + rest.split("[", 1)[0].split("::")[-1]

class Harness:
    """This pytest process's sandbox: one zygote, a fresh worker for every test."""

    def __init__(self, rootdir: Path, settings: dict | None) -> None:
        self.rootdir, self.settings = rootdir, settings
        self._policy: Policy | None = None
        self._zygote: Zygote | None = None
        self._dirs: SandboxDirs | None = None
        self._uid: procs.SandboxUid | None = None
        self.layers: dict = {}
        self.declared: tuple[str, ...] = ()
        _ACTIVE.append(self)

    def policy(self) -> Policy:
        if self._policy is None:
            if self.settings is not None:
                spec = dict(self.settings["policy"])
                spec["allowed_imports"] = tuple(spec["allowed_imports"])
                spec["preload"] = tuple(spec["preload"])
                self._policy = Policy(**spec)
                self.declared = tuple(self.settings["functions"])
            else:
                self._policy = self._standalone_policy()
        return self._policy

    def _standalone_policy(self) -> Policy:
        config = load_config(self.rootdir)
        chosen = os.environ.get(SUBMISSION_ENV)
        if chosen:
            path = Path(chosen).expanduser().resolve()
        else:
            path = self.rootdir / "solution.py"
            path = path if path.is_file() else self.rootdir / "starter.py"
        if not path.is_file():
            raise pytest.UsageError(f"submission file {path} not found (set {SUBMISSION_ENV} to "
                                    "your .py file)")
        procs.become_subreaper()
        if os.geteuid() == 0:
            self._uid = procs.SandboxUid()
        uid = self._uid.uid if self._uid else None
        self._dirs = SandboxDirs(path, uid)
        self.declared = config.functions
        return Policy(submission=str(self._dirs.submission), scratch=self._dirs.scratch("scratch"),
                      allowed_imports=config.allowed_imports, preload=config.preload,
                      processes=config.processes,
                      timeout=float(os.environ.get(TIMEOUT_ENV, "30")),
                      memory_bytes=config.memory_mb * 2**20, uid=uid, gid=uid)

    def zygote(self) -> Zygote:
        if self._zygote is not None and not self._zygote.alive():
            self._zygote.close()  # killed during a test (by the student's code, say)
            self._zygote = None
        if self._zygote is None:
            self._zygote = Zygote(self.policy())
            self.layers = self._zygote.layers
        return self._zygote

    def open_session(self) -> Session:
        return Session(self.zygote(), self.policy(), declared=self.declared)

    def end_session(self, session: Session) -> None:
        """Close the test's worker, kill whatever it left running, empty the scratch folder."""
        session.close()
        zygote = self._zygote
        keep = (zygote.proc.pid,) if zygote is not None and zygote.alive() else ()
        procs.sweep_descendants(keep=keep)
        SandboxDirs.wipe(self.policy().scratch)

    def probe(self) -> tuple[bool, str]:
        """Import the submission once; (False, why) when it hangs, crashes or raises."""
        session = self.open_session()
        try:
            session.start()
        except SubmissionTimeout:
            return False, (f"submission failed to import: it did not finish importing within "
                           f"{session.policy.timeout:g} s (an endless loop at module level?); "
                           "every test scores 0")
        except SubmissionFailure as exc:
            return False, f"{exc}; every test scores 0"
        finally:
            self.end_session(session)
        return True, ""

    def close(self) -> None:
        if self._zygote is not None:
            self._zygote.close()
            self._zygote = None
        procs.sweep_descendants()
        if self._dirs is not None:
            self._dirs.cleanup()
            self._dirs = None
        if self._uid is not None:
            self._uid.close()
            self._uid = None


# --------------------------------------------------------------------------------------------
# fixtures and hooks (students, instructors and the grader alike)
# --------------------------------------------------------------------------------------------
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "points(n): points this test is worth in the autograder")
    settings = json.loads(os.environ[RUNNER_ENV]) if os.environ.get(RUNNER_ENV) else None
    harness = Harness(Path(str(config.rootpath)), settings)
    config.stash[_HARNESS] = harness
    if settings is not None:
        config.pluginmanager.register(Reporter(settings, harness), "rkmlearn-grading-reporter")


def pytest_unconfigure(config: pytest.Config) -> None:
    harness = config.stash.get(_HARNESS, None)
    if harness is not None:
        harness.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    if call.when == "call":
        item.stash[_CALL_PASSED] = report.passed
    return report


@pytest.fixture
def submission(request: pytest.FixtureRequest):
    """The submission, imported afresh for this test in a sandboxed worker (a proxy)."""
    harness: Harness = request.config.stash[_HARNESS]
    try:
        session = harness.open_session()
    except SandboxError as exc:
        pytest.fail(f"the grader could not start the sandbox (not the submission's fault): {exc}",
                    pytrace=False)
    try:
        session.start()
    except SubmissionFailure as exc:
        harness.end_session(session)
        pytest.fail(str(exc), pytrace=False)
    yield Submission(session)
    harness.end_session(session)
    if session.failure is not None and request.node.stash.get(_CALL_PASSED, False):
        pytest.fail(f"{session.failure} (the test caught it, but it counts)", pytrace=False)


@pytest.fixture
def rng() -> np.random.Generator:
    """A fixed random generator: the tests' data are random but reproducible."""
    return np.random.default_rng(SEED)


# --------------------------------------------------------------------------------------------
# the grader's runners
# --------------------------------------------------------------------------------------------
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
    """Runner mode: select this runner's tests, probe the import, report every event."""

    def __init__(self, settings: dict, harness: Harness) -> None:
        self.fd = settings["event_fd"]
        self.settings, self.harness = settings, harness
        self.errors: list[dict] = []

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
            items[:] = [item for item in items if _base_test_id(item.nodeid) in wanted_tests]
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
    for harness in _ACTIVE:
        zygote = harness._zygote
        if zygote is not None:
            try:
                os.killpg(zygote.proc.pid, 9)
            except OSError:
                pass
    procs.sweep_descendants()
    uid = settings.get("policy", {}).get("uid")
    if uid is not None and os.geteuid() == 0:
        procs.kill_uid(uid)
    if os.getppid() != settings.get("judge_pid"):
        for folder in settings.get("cleanup", []):
            shutil.rmtree(folder, ignore_errors=True)
    os._exit(code)


def runner_main(argv: list[str]) -> int:
    """Entry point of a grader runner process (see :mod:`rkmlearn.grading.runner`)."""
    procs.become_subreaper()
    procs.not_dumpable()
    threading.Thread(target=_watch_judge, daemon=True).start()
    return int(pytest.main(argv, plugins=[sys.modules[__name__]]))
