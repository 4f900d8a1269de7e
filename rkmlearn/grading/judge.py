"""The judge: grade a submission with processes that never import it.

Processes of one grading (all started here, all dying with their parent)::

    judge (this module; writes the report and the JSON)
      +-- runner 1..jobs   pytest over the grading folder; the tests compare here
            +-- zygote     sandboxed python: network namespace, sandbox uid, rlimits, audit hook
                  +-- worker, one per test, in PID and mount namespaces of its own (under
                      their init), Landlock, seccomp: imports the submission, answers calls

The judge builds a *grading folder* (the student copy of the exercise plus, by default, its
hidden tests; never ``solution*``) and a *sandbox folder* (a read-only copy of the submission and
one scratch folder per runner). Each runner collects the tests, takes its share, imports the
submission once in a worker (the *probe*: a submission that hangs, crashes or raises at import
costs one time-out in all, and every test scores 0), then runs its tests and reports every
event on a pipe. The record of what passed exists only in the judge's memory, built from those
events; the worker's only output is the replies to the calls the tests make.

A test whose runner dies (which a submission cannot cause: the runner is another uid or, as the
same uid, not dumpable and out of Landlock's signal scope) fails with the reason, and a fresh
runner continues with the tests after it.
"""
from __future__ import annotations

import json
import math
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import procs
from .errors import GradingError, InfrastructureError, MissingExtraError
from .exercise import ExerciseConfig, load_config
from .feedback import TIMED_OUT, explain_missing, locate
from .handout import grading_folder
from .report import GradeReport, TestResult, printable, shorten
from .testfiles import base_id, test_kinds, tests_calling

__all__ = ["GradingError", "CollectedTest", "collect_tests", "grade", "DEFAULT_TIMEOUT",
           "default_jobs"]

DEFAULT_TIMEOUT = 30.0
RUNNER_MODULE = "rkmlearn.grading.runner"
RUNNER_ENV = "RKMLEARN_GRADING_RUNNER"  # the runner's job (JSON), read by rkmlearn.grading.runner


@dataclass(frozen=True)
class CollectedTest:
    """One test found in the exercise.

    Attributes
    ----------
    nodeid : str
        pytest node id relative to the exercise folder (its rootdir).
    name : str
        Node id relative to the ``tests/`` folder, shown in reports.
    points : float
        Points from ``@pytest.mark.points(n)``; 1.0 for an unmarked test.
    marked : bool
        Whether the test carries a ``points`` marker.
    hidden : bool
        Whether the test lives under ``tests/hidden/``.
    """

    nodeid: str
    name: str
    points: float
    marked: bool
    hidden: bool


def _require_extra() -> None:
    # This subpackage must not import the rest of rkmlearn (see the package docstring), so the
    # extra is named here rather than through rkmlearn._extras.
    import importlib.util

    missing = [name for name in ("pytest", "nbformat") if importlib.util.find_spec(name) is None]
    if missing:
        raise MissingExtraError(f"grading runs the exercise's tests with pytest and reads its "
                                f"notebooks with nbformat; {' and '.join(missing)} "
                                f"{'is' if len(missing) == 1 else 'are'} not installed: pip "
                                "install 'rkmlearn[grading]'")


def runner_memory_bytes(worker_bytes: int) -> int:
    """A runner's address-space limit: the tests' own arrays and the libraries they import,
    beyond what one reply may hold; a worker's reply can never make the judge's side swap."""
    return max(4 * 2**30, worker_bytes + 2 * 2**30)


def default_jobs() -> int:
    """Parallel runners: two, or one on a single-core machine."""
    return max(1, min(2, os.cpu_count() or 1))


def _check_paths(exercise_dir, submission=None) -> tuple[Path, Path | None]:
    exercise = Path(exercise_dir).expanduser().resolve()
    if not exercise.is_dir():
        raise GradingError(f"exercise directory {str(exercise_dir)!r} does not exist or is not a "
                           "folder; pass the folder that holds README.md and tests/")
    if not (exercise / "tests").is_dir():
        raise GradingError(f"exercise directory {str(exercise_dir)!r} has no tests/ folder; "
                           "pass an exercise folder such as exercises/ch01_kernels")
    sub = None
    if submission is not None:
        given = Path(submission).expanduser()
        if given.is_symlink():
            raise GradingError(f"submission {str(submission)!r} is a symbolic link; submit the "
                               "file itself")
        sub = given.resolve()
        if sub.exists() and not sub.is_file():
            raise GradingError(f"submission {str(submission)!r} is not a regular file (a "
                               "folder, device or pipe); submit a .py or .ipynb file")
        if not sub.is_file():
            raise GradingError(f"submission {str(submission)!r} does not exist or is not a file; "
                               "pass the student's .py file")
        if sub.suffix not in (".py", ".ipynb"):
            raise GradingError(f"submission {str(submission)!r} is not a .py file or a notebook "
                               "(.ipynb); pass the student's Python module or exercise notebook")
    return exercise, sub


def _parse_points(nodeid: str, raw) -> tuple[float, bool]:
    if raw is None:
        return 1.0, False
    if isinstance(raw, (int, float)) and not isinstance(raw, bool) and math.isfinite(raw) \
            and raw >= 0:
        return float(raw), True
    raise GradingError(f"test {nodeid} has @pytest.mark.points({raw}); points must be a "
                       "non-negative number, e.g. @pytest.mark.points(2)")


def _collected(event: dict, folder: Path) -> list[CollectedTest]:
    if event["errors"]:
        details = "\n".join(f"- {e['nodeid']}: {e['message'][-1500:]}" for e in event["errors"])
        raise GradingError(f"errors while collecting the tests of the exercise:\n{details}")
    hidden_dir = (folder / "tests" / "hidden").resolve()
    out = []
    for entry in event["tests"]:
        points, marked = _parse_points(entry["nodeid"], entry["points"])
        file_part, sep, rest = entry["nodeid"].partition("::")
        if file_part.startswith("tests/"):
            file_part = file_part[len("tests/"):]
        out.append(CollectedTest(nodeid=entry["nodeid"], name=file_part + sep + rest,
                                 points=points, marked=marked,
                                 hidden=hidden_dir in Path(entry["path"]).parents))
    if not out:
        raise GradingError("no tests found under tests/; test files must be named test_*.py")
    return out


def _void_bad_input_points(results: list[TestResult], tests: list[CollectedTest],
                           kinds: dict) -> list[TestResult]:
    """A bad-input test earns its points only when the functions it calls pass their tests with
    valid input (those that call that one function alone): raising on everything is not input
    validation."""
    failed_functions = set()
    for test, result in zip(tests, results):
        functions, bad_input = kinds.get(base_id(test.nodeid), (frozenset(), False))
        if not bad_input and not result.passed and len(functions) == 1:
            failed_functions |= functions
    out = []
    for test, result in zip(tests, results):
        functions, bad_input = kinds.get(base_id(test.nodeid), (frozenset(), False))
        broken = sorted(functions & failed_functions)
        if bad_input and result.passed and broken:
            result = TestResult(name=result.name, max_score=result.max_score, passed=False,
                                message=(f"its points count only when {', '.join(broken)}() "
                                         "also passes the tests with valid input: an error "
                                         "for every input is not input validation"),
                                hidden=result.hidden, duration=result.duration)
        out.append(result)
    return out


def _test_paths(folder: Path) -> list[str]:
    """Public tests first, hidden ones last, anything else under tests/ in between."""
    tests = folder / "tests"
    others = [p for p in sorted(tests.iterdir())
              if p.name not in ("public", "hidden") and not p.name.startswith((".", "_"))
              and (p.is_dir() or (p.name.startswith("test_") and p.suffix == ".py"))]
    paths = ([tests / "public"] if (tests / "public").is_dir() else []) + others
    paths += [tests / "hidden"] if (tests / "hidden").is_dir() else []
    if not paths:
        raise GradingError(f"no tests found under {tests}; put test_*.py files in tests/public/ "
                           "(and tests/hidden/)")
    return [str(p) for p in paths]


def _pytest_args(folder: Path, collect_only: bool = False) -> list[str]:
    ini = folder / "pytest.ini"
    if not ini.is_file():
        # Never fall back on an enclosing project's configuration.
        ini.write_text("[pytest]\n", encoding="utf-8")
    return ["-c", str(ini), "--rootdir", str(folder), "--confcutdir", str(folder),
            # The exercise's addopts load the plugin by name (for students); runners load it
            # themselves, so the grader's options replace addopts.
            "-o", "addopts=", "--strict-markers", "--import-mode=importlib",
            "-p", "no:cacheprovider", "--capture=no", "-q", "--no-header",
            *(["--collect-only"] if collect_only else []), *_test_paths(folder)]


def _runner_env(settings: dict) -> dict:
    env = procs.environment()
    for key in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_CURRENT_TEST", "RKMLEARN_SUBMISSION"):
        env.pop(key, None)
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # grading must not depend on other plugins
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["MPLBACKEND"] = "Agg"
    for key in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(key, "1")  # two runners on two cores
    env[RUNNER_ENV] = json.dumps(settings)
    return procs.with_grader_path(env)


class _Runner:
    """One runner process, seen from the judge."""

    def __init__(self, folder: Path, settings: dict, collect_only: bool = False) -> None:
        read_end, write_end = os.pipe()
        settings = dict(settings, event_fd=write_end)
        out_r, out_w = os.pipe()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, *procs.NO_CWD_ON_PATH, "-m", RUNNER_MODULE,
                 *_pytest_args(folder, collect_only)],
                stdin=subprocess.PIPE, stdout=out_w, stderr=out_w, cwd=folder,
                env=_runner_env(settings), pass_fds=(write_end,), start_new_session=True)
        finally:
            os.close(write_end)
            os.close(out_w)
        self.events = os.fdopen(read_end, "rb", buffering=0)
        self.output = procs.OutputDrain(out_r, limit=16384)
        self.select = settings.get("select") or {}
        self.buffer = b""
        self.current: str | None = None
        self.current_since = 0.0
        self.selection: list[str] = []
        self.phases: dict[str, dict] = {}
        self.finished = 0      # tests this runner reported finished
        self.done = False      # its event pipe reached end-of-file
        self.retired = False   # no longer watched

    def read_events(self) -> list[dict]:
        try:
            chunk = self.events.read(65536)
        except BlockingIOError:
            return []
        if chunk is None:  # nothing to read yet (non-blocking)
            return []
        if not chunk:
            self.done = True
            return []
        self.buffer += chunk
        lines = self.buffer.split(b"\n")
        self.buffer = lines.pop()
        return [json.loads(line) for line in lines if line.strip()]

    def stop(self, grace: float = 5.0) -> None:
        """Close its stdin (it then kills its sandbox and exits); SIGKILL after ``grace`` s."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        try:
            self.proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.output.stop()
        self.events.close()


def collect_tests(exercise_dir, *, include_hidden: bool = True,
                  timeout: float = 120.0) -> list[CollectedTest]:
    """Collect an exercise's tests (without running them or touching any submission).

    Raises
    ------
    GradingError
        When the folder is not an exercise, collection fails (an error in a test file), no test
        is found, or a ``points`` marker is not a non-negative number.
    """
    exercise, _ = _check_paths(exercise_dir)
    with tempfile.TemporaryDirectory(prefix="rkmlearn-grading-") as tmp:
        folder = grading_folder(exercise, Path(tmp) / "exercise", include_hidden)
        runner = _Runner(folder, {"collect_only": True}, collect_only=True)
        deadline = time.monotonic() + timeout
        collected = None
        while collected is None and not runner.done and time.monotonic() < deadline:
            for event in runner.read_events():
                if event["event"] == "collected":
                    collected = event
        runner.stop()
        if collected is None:
            raise GradingError(f"could not collect the tests of {exercise} (exit code "
                               f"{runner.proc.returncode}):\n{runner.output.tail()[-3000:]}")
        return _collected(collected, folder)


class _SandboxFailed(Exception):
    """A runner reported that its sandbox failed: the grading is retried once."""


@dataclass
class _Grading:
    """The state of one grading, in the judge."""

    exercise: Path
    submission: Path
    config: ExerciseConfig
    timeout: float
    memory_mb: int
    include_hidden: bool
    jobs: int
    overrides: dict = field(default_factory=dict)
    function: str | None = None
    only: set[str] | None = None
    kinds: dict = field(default_factory=dict)
    trusted: bool = False
    tests: list[CollectedTest] | None = None
    results: dict = field(default_factory=dict)
    import_failure: str | None = None
    layers: dict = field(default_factory=dict)
    runners: list = field(default_factory=list)

    def run(self, progress) -> list[TestResult]:
        tmp = Path(tempfile.mkdtemp(prefix="rkmlearn-grading-"))
        # As root, each runner's sandbox has a uid of its own: the per-uid process limit
        # (threads included) is then one runner's, and no worker can use up another's.
        own_uids = os.geteuid() == 0 and procs.LINUX and self.overrides.get("uid", "auto") == "auto"
        uids: list[procs.SandboxUid] = []
        dirs = None
        try:
            from .sandbox import SandboxDirs

            folder = grading_folder(self.exercise, tmp / "exercise", self.include_hidden)
            self.kinds = test_kinds(folder)
            if self.function is not None:
                self.only = tests_calling(folder, self.function, self.kinds)
                if not self.only:
                    raise GradingError(f"no test of this exercise calls {self.function}(); "
                                       "check the function's name (the exercise's functions "
                                       f"are: {', '.join(self.config.functions) or 'any'})")
            dirs = SandboxDirs(self.submission, None)
            self._loop(folder, dirs, uids if own_uids else None, tmp, progress)
        finally:
            for uid in uids:
                uid.close()  # every process of the sandbox uid is killed here
            if dirs is not None:
                dirs.cleanup()
            procs.remove_tree(tmp)  # no recursion, no link followed: always gone
        results = [self.results[t.nodeid] for t in self.tests]
        return _void_bad_input_points(results, self.tests, self.kinds)

    def _settings(self, dirs, uid, scratch: str, select: dict, probe: bool, cleanup) -> dict:
        policy = {"submission": str(dirs.submission), "scratch": scratch,
                  "allowed_imports": list(self.config.allowed_imports),
                  "preload": list(self.config.preload),
                  "processes": self.config.processes, "timeout": self.timeout,
                  "memory_bytes": self.memory_mb * 2**20,
                  "uid": uid.uid if uid else None, "gid": uid.gid if uid else None,
                  "landlock": self.overrides.get("landlock", True),
                  "audit": self.overrides.get("audit", True),
                  "namespaces": self.overrides.get("namespaces", True)}
        return {"policy": policy, "functions": list(self.config.functions), "select": select,
                "only": sorted(self.only) if self.only is not None else None,
                "probe": probe, "cleanup": cleanup, "judge_pid": os.getpid(),
                "memory_bytes": runner_memory_bytes(self.memory_mb * 2**20)}

    def _loop(self, folder: Path, dirs, uids: list | None, tmp: Path, progress) -> None:
        """Run the runners until every test has a result; ``uids`` (as root) collects the
        sandbox uid of each runner started, for the caller to release."""
        hard_limit = 2 * self.timeout + 60  # the test's own code, beyond the submission's time
        sel = selectors.DefaultSelector()
        runners: list[_Runner] = self.runners
        n_scratch = 0

        def start(select: dict, probe: bool) -> None:
            nonlocal n_scratch
            n_scratch += 1
            uid = None
            if uids is not None:
                uid = procs.SandboxUid()
                uids.append(uid)
            scratch = dirs.scratch(f"scratch-{n_scratch}", uid.uid if uid else None)
            runner = _Runner(folder, self._settings(dirs, uid, scratch, select, probe,
                                                    [str(tmp), str(dirs.base)]))
            os.set_blocking(runner.events.fileno(), False)
            sel.register(runner.events, selectors.EVENT_READ, runner)
            runners.append(runner)

        def retire(runner: _Runner) -> None:
            if not runner.retired:
                sel.unregister(runner.events)
                runner.retired = True

        for share in range(self.jobs):
            start({"share": share, "of": self.jobs}, probe=True)
        try:
            while any(not r.retired or r.proc.poll() is None for r in runners):
                for key, _ in sel.select(timeout=0.1):
                    runner = key.data
                    for event in runner.read_events():
                        self._handle(runner, event, folder, progress)
                    if runner.done:
                        retire(runner)
                if self.import_failure is not None:
                    break
                for runner in runners:
                    if runner.current and time.monotonic() - runner.current_since > hard_limit:
                        retire(runner)
                        runner.stop(grace=2.0)
                        self._finish(runner.current, False,
                                     f"the test took more than {hard_limit:g} s in all (its own "
                                     "code, not only the submission's); instructor: raise "
                                     "--timeout or make the test cheaper", progress)
                        runner.current = None
                for runner in list(runners):
                    if runner.retired and runner.proc.poll() is not None and runner.selection:
                        remaining = self._after_runner(runner, progress)
                        runner.selection = []
                        if remaining:
                            start({"nodeids": remaining}, probe=False)
        finally:
            for runner in runners:
                runner.stop(grace=5.0)
            sel.close()
        if self.tests is None:
            raise GradingError("the runners ended before collecting the tests:\n"
                               + runners[0].output.tail()[-3000:])
        if self.import_failure is not None:
            for test in self.tests:
                self.results.setdefault(test.nodeid, _result(test, False, self.import_failure, 0.0))
        for test in self.tests:  # a runner that could not even start its sandbox
            self.results.setdefault(test.nodeid, _result(
                test, False, "not run: the grading process ended first; instructor: see the "
                             "grader's output", 0.0))

    def _handle(self, runner: _Runner, event: dict, folder: Path, progress) -> None:
        kind = event.get("event")
        if kind == "collected":
            tests = _collected(event, folder)
            if self.only is not None:
                tests = [t for t in tests if base_id(t.nodeid) in self.only]
            if self.tests is None:
                self.tests = tests
            elif [t.nodeid for t in tests] != [t.nodeid for t in self.tests]:
                raise GradingError("two runners collected different tests; instructor: are test "
                                   "ids generated non-deterministically?")
            runner.selection = self._selection_of(runner)
        elif kind == "probe":
            self.layers = event.get("layers", {})
            self._refuse_without_walls()
            if not event["ok"] and self.import_failure is None:
                self.import_failure = event["message"]
        elif kind == "sandbox_error":
            raise _SandboxFailed(f"the sandbox failed: {event['message']}")
        elif kind == "start":
            runner.current, runner.current_since = event["nodeid"], time.monotonic()
            runner.phases[event["nodeid"]] = {}
        elif kind == "phase":
            runner.phases.setdefault(event["nodeid"], {})[event["when"]] = event
            self.layers = event.get("layers") or self.layers
        elif kind == "finish":
            nodeid = event["nodeid"]
            passed, message = _verdict(runner.phases.get(nodeid, {}))
            duration = math.fsum(p["duration"] for p in runner.phases.get(nodeid, {}).values())
            self._finish(nodeid, passed, message, progress, duration)
            runner.current = None
            runner.finished += 1
        elif kind == "done":
            pass

    def _refuse_without_walls(self) -> None:
        """Untrusted code is graded only behind a kernel wall: Landlock or a network namespace.

        A test that switches a layer off on purpose (``_sandbox``) is not refused.
        """
        if self.trusted or self.overrides:
            return
        walls = [str(self.layers.get("landlock", "")).startswith("on"),
                 str(self.layers.get("network", "")).startswith("own")]
        if not any(walls):
            raise GradingError(
                "this kernel offers neither Landlock nor network namespaces, so only an "
                "in-process audit hook would stand between the submission and this machine; "
                "grade untrusted work on a kernel that has them (Linux >= 5.13, as root or with "
                f"user namespaces), or pass --trusted for code you trust (layers: {self.layers})")

    def _selection_of(self, runner: _Runner) -> list[str]:
        select = runner.select
        ids = [t.nodeid for t in self.tests]
        if "nodeids" in select:
            return [i for i in ids if i in set(select["nodeids"])]
        lo = round(select["share"] * len(ids) / select["of"])
        hi = round((select["share"] + 1) * len(ids) / select["of"])
        return ids[lo:hi]

    def _finish(self, nodeid: str, passed: bool, message: str, progress,
                duration: float = 0.0) -> None:
        if nodeid in self.results or self.tests is None:
            return
        test = next(t for t in self.tests if t.nodeid == nodeid)
        self.results[nodeid] = _result(test, passed, message, duration)
        hung = TIMED_OUT.match(message or "")
        if hung and not passed:  # the other runners fail that function's tests at once
            line = f"hung {hung.group(1)} {' '.join(message.split())[:500]}\n".encode()
            for runner in self.runners:
                try:
                    runner.proc.stdin.write(line)
                    runner.proc.stdin.flush()
                except (OSError, ValueError):
                    pass  # that runner is gone or going
        if progress is not None:
            progress(len(self.results), len(self.tests))

    def _after_runner(self, runner: _Runner, progress) -> list[str]:
        """After a runner exits: blame the test it was running, return the ones it never ran."""
        if runner.current is not None:
            code = runner.proc.returncode
            how = (f"was killed by {procs.signal_name(-code)}" if code is not None and code < 0
                   else f"exited with code {code}")
            self._finish(runner.current, False,
                         f"the grading process running this test {how}; instructor: see the "
                         "grader's output" + _tail_hint(runner.output.tail()), progress)
            runner.current = None
        remaining = [n for n in runner.selection if n not in self.results]
        if remaining and runner.finished == 0 and not runner.phases:
            # It died before starting any test: blame the first, so that grading progresses.
            self._finish(remaining[0], False,
                         f"the grading process ended (exit code {runner.proc.returncode}) "
                         "before the test started" + _tail_hint(runner.output.tail()), progress)
            remaining = remaining[1:]
        return remaining


def _tail_hint(text: str) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()][-3:]
    return (" (" + " | ".join(lines)[-500:] + ")") if lines else ""


def _verdict(phases: dict) -> tuple[bool, str]:
    """(passed, message) from the reported phases of a finished test."""
    for when in ("setup", "call", "teardown"):
        phase = phases.get(when)
        if phase is None:
            if when == "call" and "teardown" in phases:
                continue  # setup failed: pytest goes straight to teardown
            return False, f"the test did not report its {when} phase"
        if phase["outcome"] != "passed":
            message = phase["message"] or phase["outcome"]
            return False, (f"error in teardown: {message}" if when == "teardown" else message)
    return True, ""


def _result(test: CollectedTest, passed: bool, message: str, duration: float) -> TestResult:
    return TestResult(name=printable(test.name), max_score=test.points, passed=passed,
                      message=shorten(message, 2000) if message else "", hidden=test.hidden,
                      duration=duration)


def grade(exercise_dir, submission, *, timeout: float = DEFAULT_TIMEOUT,
          include_hidden: bool = True, jobs: int | None = None, progress=None,
          memory_mb: int | None = None, started: float | None = None,
          function: str | None = None, trusted: bool = False,
          _sandbox: dict | None = None) -> GradeReport:
    """Grade one submission against an exercise's tests.

    Parameters
    ----------
    exercise_dir : str or Path
        The exercise folder, e.g. ``exercises/ch01_kernels``. Grading runs from a copy without
        ``solution*`` (with ``tests/hidden`` when ``include_hidden``).
    submission : str or Path
        The student's ``.py`` file, or exercise notebook (``.ipynb``: its imports, functions,
        classes and UPPER_CASE constants are graded, see :mod:`rkmlearn.grading.notebook`). It
        is imported only in sandboxed worker processes.
    timeout : float, default=30.0
        Seconds of submission time per test (its import and every call together); an
        overrunning worker is killed and the test scores 0.
    include_hidden : bool, default=True
        Whether to run ``tests/hidden`` as well (when it exists).
    jobs : int, optional
        Runner processes working in parallel; default :func:`default_jobs`.
    progress : callable, optional
        Called as ``progress(done, total)`` as tests finish.
    memory_mb : int, optional
        Address-space limit of the worker in MiB; default the exercise's ``memory_mb``.
    started : float, optional
        ``time.monotonic()`` when grading started (the command line passes its own start, so
        that ``execution_time`` covers everything).
    function : str, optional
        Run only the tests that call this function of the submission (what
        :func:`rkmlearn.grading.check` does for one exercise).
    trusted : bool, default=False
        Grade even when the kernel walls are missing (neither Landlock nor a network namespace
        of its own could be set up): then only the in-process audit hook stands between the
        submission and the grader's files, so an untrusted submission is refused unless this
        is True.

    Returns
    -------
    GradeReport
        Results in collection order (public tests first).

    Raises
    ------
    GradingError
        For usage errors (missing folder or file, bad ``timeout`` or ``jobs``) and broken
        exercises (tests that cannot be collected). A bad submission never raises: its tests
        score 0.
    """
    started = time.monotonic() if started is None else started
    if not (isinstance(timeout, (int, float)) and math.isfinite(timeout) and timeout > 0):
        raise GradingError(f"timeout must be a positive number of seconds, got {timeout!r}")
    jobs = default_jobs() if jobs is None else jobs
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise GradingError(f"jobs must be a positive integer, got {jobs!r}")
    _require_extra()
    exercise, sub = _check_paths(exercise_dir, submission)
    config = load_config(exercise)
    memory = config.memory_mb if memory_mb is None else memory_mb
    if not isinstance(memory, int) or isinstance(memory, bool) or memory < 64:
        raise GradingError(f"memory_mb must be an integer >= 64, got {memory!r}")
    if function is not None and (not isinstance(function, str) or not function.isidentifier()):
        raise GradingError(f"function must be the name of one of the exercise's functions, got "
                           f"{function!r}")
    notes, module = [], None
    with tempfile.TemporaryDirectory(prefix="rkmlearn-notebook-") as converted:
        graded = sub
        if sub.suffix == ".ipynb":
            from .notebook import notebook_submission, read_notebook

            module = notebook_submission(read_notebook(sub))
            notes = list(module.notes)
            graded = Path(converted) / (sub.stem + ".py")
            graded.write_text(module.source, encoding="utf-8")
        for attempt in (1, 2):
            grading = _Grading(exercise=exercise, submission=graded, config=config,
                               timeout=float(timeout), memory_mb=memory,
                               include_hidden=include_hidden, jobs=jobs,
                               overrides=dict(_sandbox or {}), function=function,
                               trusted=trusted)
            try:
                results = grading.run(progress)
                break
            except _SandboxFailed as exc:
                if attempt == 2:
                    raise InfrastructureError(f"{exc} (twice; the submission was not graded: "
                                              "this is the grader's or the machine's fault, not "
                                              "a score)") from None
    if module is not None:  # locations in the student's notebook, not in the graded module
        for result in results:
            if result.message:
                result.message = explain_missing(locate(result.message, graded.name,
                                                        module.where), module.dropped)
    warnings = []
    unmarked = [t.name for t in grading.tests if not t.marked]
    if unmarked:
        warnings.append(f"{len(unmarked)} test(s) have no @pytest.mark.points and count 1 point "
                        "each: " + ", ".join(unmarked))
    return GradeReport(exercise=str(exercise), submission=str(sub), tests=results,
                       execution_time=time.monotonic() - started, sandbox=grading.layers,
                       notes=notes, warnings=warnings)
