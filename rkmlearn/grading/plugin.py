"""The exercises' pytest plugin: the ``points`` marker and the ``submission`` and ``rng`` fixtures.

Every exercise's ``pytest.ini`` loads it (``-p rkmlearn.grading.plugin``), so that
``python -m pytest exercises/ch01_kernels`` runs the tests exactly as the grader does: the
submission is imported in a sandboxed worker (:mod:`rkmlearn.grading.sandbox`), never in the
pytest process, and the ``submission`` fixture is a proxy (:mod:`rkmlearn.grading.proxy`) whose
calls are sent to that worker. Which file is the submission, outside the grader:
``$RKMLEARN_SUBMISSION``, else the folder's ``solution.py``, else its ``starter.py`` (a student
copy has no solution). Seconds per test: ``$RKMLEARN_GRADING_TIMEOUT`` (default 30).

The grader's runner processes (:mod:`rkmlearn.grading.runner`) load this plugin too, and put
their job's sandbox policy in ``config.stash[RUNNER_SETTINGS]`` before it configures.
"""
from __future__ import annotations

import contextlib
import os
from pathlib import Path

import numpy as np
import pytest

from . import procs
from .exercise import load_config
from .proxy import Session, Submission, SubmissionFailure, SubmissionTimeout
from .sandbox import Policy, Sandbox, SandboxDirs, SandboxError

SUBMISSION_ENV = "RKMLEARN_SUBMISSION"
TIMEOUT_ENV = "RKMLEARN_GRADING_TIMEOUT"
SEED = 20240601
RUNNER_SETTINGS = pytest.StashKey()  # a runner's job (see rkmlearn.grading.runner)
HARNESS = pytest.StashKey()
_CALL_PASSED = pytest.StashKey()


class Harness:
    """This pytest process's sandbox: one zygote, a fresh worker for every test."""

    def __init__(self, rootdir: Path, settings: dict | None) -> None:
        self.rootdir, self.settings = rootdir, settings
        self._policy: Policy | None = None
        self._sandbox: Sandbox | None = None
        self._dirs: SandboxDirs | None = None
        self._uid: procs.SandboxUid | None = None
        self.layers: dict = {}
        self.declared: tuple[str, ...] = ()
        self.failure_listeners: list = []  # called with why, when the sandbox fails twice

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

    def sandbox(self) -> Sandbox:
        if self._sandbox is not None and not self._sandbox.alive():
            self._sandbox.close()  # killed during a test (by the student's code, say)
            self._sandbox = None
        if self._sandbox is None:
            self._sandbox = Sandbox(self.policy())
            self.layers = self._sandbox.layers
        return self._sandbox

    def open_session(self) -> Session:
        return Session(self.sandbox(), self.policy(), declared=self.declared)

    def start_session(self) -> Session:
        """A started session (the submission imported) for one test; a submission failure
        fails the test. When the sandbox itself fails, a fresh one is tried once; if that fails
        too, pytest stops, and a runner reports the failure to the judge (listeners), which
        grades again or reports an infrastructure error: never a 0 for the student."""
        for attempt in (1, 2):
            session = None
            try:
                session = self.open_session()
                session.start()
                return session
            except SubmissionFailure as exc:
                self.end_session(session)
                pytest.fail(str(exc), pytrace=False)
            except SandboxError as exc:
                if session is not None:
                    self.end_session(session)
                if self._sandbox is not None:
                    self._sandbox.close()
                    self._sandbox = None
                if attempt == 2:
                    for listener in self.failure_listeners:
                        listener(str(exc))
                    pytest.exit(f"the grader's sandbox failed twice (not the submission's "
                                f"fault): {exc}", returncode=3)
        raise AssertionError("unreachable")

    def end_session(self, session: Session) -> None:
        """Close the test's worker, kill whatever it left running, empty the scratch folder."""
        session.close()
        sandbox = self._sandbox
        keep = (sandbox.proc.pid,) if sandbox is not None and sandbox.alive() else ()
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

    def kill_now(self) -> None:
        """The emergency stop (the judge is gone): the sandbox's processes die at once."""
        if self._sandbox is not None:
            with contextlib.suppress(OSError):
                os.killpg(self._sandbox.proc.pid, 9)

    def close(self) -> None:
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None
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
    config.stash[HARNESS] = Harness(Path(str(config.rootpath)),
                                    config.stash.get(RUNNER_SETTINGS, None))


def pytest_unconfigure(config: pytest.Config) -> None:
    harness = config.stash.get(HARNESS, None)
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
    harness: Harness = request.config.stash[HARNESS]
    session = harness.start_session()
    yield Submission(session)
    harness.end_session(session)
    if session.failure is not None and request.node.stash.get(_CALL_PASSED, False):
        pytest.fail(f"{session.failure} (the test caught it, but it counts)", pytrace=False)


@pytest.fixture
def rng() -> np.random.Generator:
    """A fixed random generator: the tests' data are random but reproducible."""
    return np.random.default_rng(SEED)
