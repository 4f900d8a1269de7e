"""Collect an exercise's tests once, then run them in watched subprocesses.

A submission may loop forever inside C code (where no signal reaches it), call ``sys.exit`` or
``os._exit``, crash the interpreter, fail to import, or print megabytes. None of that may cost more
than the affected test, nor hang or crash the grader. So student code never runs in the grader's
process: tests run in subprocesses whose pytest plugin (:mod:`rkmlearn.grading._plugin`) keeps a
small JSON record up to date (which test is running since when; the outcome of each phase). The
grader watches that record, kills the whole process group of a test that overruns its time-out,
keeps only the tail of the process's output, and reads the outcome from the record.

Two isolation modes:

``"test"``
    A fresh process for every test. Strongest isolation; costs the interpreter, pytest and numpy
    start-up (0.5-2 s, more when a test imports scikit-learn) for every test.
``"batch"`` (default)
    One process runs a whole share of the tests. When a test times out, crashes the interpreter
    or ends the process, that test alone scores 0 with the reason, and a *fresh* process resumes
    with the next test: the failure containment of ``"test"`` at a fraction of the start-up cost.
    Each test still imports the submission afresh (the ``submission`` fixture), so module-level
    state of the submission does not leak between tests.

Collection happens once; tests then run with a small bounded parallelism (two workers on the usual
two-core machine). Each process starts with ``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``: third-party
plugins such as nbval would add more than a second of start-up, and grading should not depend on
whatever else is installed. BLAS threads are limited to one per worker for the same reason (two
workers on two cores), unless the caller's environment already sets them.
"""
from __future__ import annotations

import fnmatch
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .report import GradeReport, TestResult, shorten

__all__ = ["GradingError", "CollectedTest", "collect_tests", "run_tests", "grade",
           "DEFAULT_TIMEOUT", "ISOLATION_MODES"]

DEFAULT_TIMEOUT = 30.0
ISOLATION_MODES = ("batch", "test")
# How often the grader looks at a running process and its record.
POLL_SECONDS = 0.05
PLUGIN_PATH = Path(__file__).with_name("_plugin.py")
SUBMISSION_ENV = "RKMLEARN_SUBMISSION"
# Keep this much of a test process's output: enough for a crash message, never megabytes.
OUTPUT_TAIL_BYTES = 8192

# Started as `python -c BOOTSTRAP <plugin path> <pytest args...>`. Loading the plugin by path keeps
# `import rkmlearn` (and numpy, scipy, ...) out of the test process unless a test asks for it.
BOOTSTRAP = (
    "import importlib.util, sys\n"
    "spec = importlib.util.spec_from_file_location('rkmlearn_grading_plugin', sys.argv[1])\n"
    "plugin = importlib.util.module_from_spec(spec)\n"
    "sys.modules[spec.name] = plugin\n"
    "spec.loader.exec_module(plugin)\n"
    "import pytest\n"
    "sys.exit(pytest.main(sys.argv[2:], plugins=[plugin]))\n"
)


class GradingError(ValueError):
    """The grader cannot run: a usage error or a broken exercise, never a student's mistake."""


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
    path : str
        Absolute path of the test's file.
    """

    nodeid: str
    name: str
    points: float
    marked: bool
    hidden: bool
    path: str


@dataclass
class _ProcessOutcome:
    returncode: int | None
    timed_out: bool
    output_tail: str
    duration: float


# --------------------------------------------------------------------------------------------
# subprocess plumbing
# --------------------------------------------------------------------------------------------
def _drain(stream, tail: deque, limit: int) -> None:
    """Read ``stream`` to its end, keeping only about the last ``limit`` bytes."""
    kept = 0
    for chunk in iter(lambda: stream.read1(65536), b""):
        tail.append(chunk)
        kept += len(chunk)
        while kept - len(tail[0]) >= limit:
            kept -= len(tail.popleft())


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill the process and everything it started (its process group)."""
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # pragma: no cover - the grader is tested on POSIX only
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass


def _run_process(cmd: list[str], env: dict, cwd: Path, deadline) -> _ProcessOutcome:
    """Run ``cmd``; kill its process group once ``time.time()`` passes ``deadline()``.

    ``deadline`` is called every :data:`POLL_SECONDS`, so it can move (each new test restarts its
    clock).
    """
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=(os.name == "posix"))
    tail: deque = deque()
    reader = threading.Thread(target=_drain, args=(proc.stdout, tail, OUTPUT_TAIL_BYTES),
                              daemon=True)
    reader.start()
    timed_out = False
    try:
        while True:
            try:
                proc.wait(timeout=POLL_SECONDS)
                break
            except subprocess.TimeoutExpired:
                if time.time() > deadline():
                    timed_out = True
                    break
    finally:
        # Also after a normal exit: leftover grandchildren must not outlive their test.
        _kill_group(proc)
        proc.wait()
        reader.join(timeout=2.0)
        proc.stdout.close()
    text = b"".join(tail)[-OUTPUT_TAIL_BYTES:].decode("utf-8", errors="replace")
    return _ProcessOutcome(proc.returncode, timed_out, text, time.perf_counter() - start)


def _base_env(submission: Path) -> dict:
    env = dict(os.environ)
    for key in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS"):
        env.pop(key, None)
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # keep exercise and submission folders clean
    env["MPLBACKEND"] = "Agg"  # a stray plt.show() must not wait for a window
    for key in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(key, "1")
    env[SUBMISSION_ENV] = str(submission)
    return env


def _pytest_command(exercise_dir: Path, workdir: Path, args: list[str]) -> list[str]:
    ini = exercise_dir / "pytest.ini"
    if not ini.is_file():
        # Never fall back on some enclosing project's configuration: grading must not depend on
        # where the exercise folder happens to live.
        ini = workdir / "pytest.ini"
        ini.write_text("[pytest]\n")
    return [sys.executable, "-c", BOOTSTRAP, str(PLUGIN_PATH),
            "-c", str(ini), "--rootdir", str(exercise_dir), "--confcutdir", str(exercise_dir),
            "-p", "no:cacheprovider", "--import-mode=importlib", "--capture=no",
            "-q", "--no-header", *args]


def _signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def _crash_hint(output: str) -> str:
    for line in output.splitlines():
        if line.startswith("Fatal Python error"):
            return f" ({line.strip()})"
    return ""


# --------------------------------------------------------------------------------------------
# collection
# --------------------------------------------------------------------------------------------
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
        sub = Path(submission).expanduser().resolve()
        if not sub.is_file():
            raise GradingError(f"submission {str(submission)!r} does not exist or is not a file; "
                               "pass the student's .py file")
        if sub.suffix != ".py":
            raise GradingError(f"submission {str(submission)!r} is not a .py file; pass the "
                               "student's Python module")
    return exercise, sub


def _parse_points(nodeid: str, raw) -> tuple[float, bool]:
    if raw is None:
        return 1.0, False
    if isinstance(raw, (int, float)) and not isinstance(raw, bool) and math.isfinite(raw) \
            and raw >= 0:
        return float(raw), True
    raise GradingError(f"test {nodeid} has @pytest.mark.points({raw}); points must be a "
                       "non-negative number, e.g. @pytest.mark.points(2)")


def collect_tests(exercise_dir, *, include_hidden: bool = True, timeout: float = 120.0,
                  submission=None) -> list[CollectedTest]:
    """Collect an exercise's tests (without running them) in a subprocess.

    Parameters
    ----------
    exercise_dir : str or Path
        The exercise folder (holding ``tests/public`` and optionally ``tests/hidden``).
    include_hidden : bool, default=True
        Whether to include ``tests/hidden``.
    timeout : float, default=120.0
        Seconds allowed for collection.
    submission : str or Path, optional
        Exposed to the tests as ``RKMLEARN_SUBMISSION`` during collection; tests must only touch
        the submission through the ``submission`` fixture, so this rarely matters.

    Returns
    -------
    list of CollectedTest
        In collection order.

    Raises
    ------
    GradingError
        When the folder is not an exercise, collection fails (an error in a test file), no test
        is found, or a ``points`` marker is not a non-negative number.
    """
    exercise, sub = _check_paths(exercise_dir, submission)
    tests_dir = exercise / "tests"
    hidden_dir = tests_dir / "hidden"
    with tempfile.TemporaryDirectory(prefix="rkmlearn-grading-") as tmp:
        work = Path(tmp)
        out = work / "collected.json"
        # Public tests first, hidden ones last, anything else under tests/ in between.
        others = [p for p in sorted(tests_dir.iterdir())
                  if p.name not in ("public", "hidden") and not p.name.startswith((".", "_"))
                  and (p.is_dir() or fnmatch.fnmatch(p.name, "test_*.py")
                       or fnmatch.fnmatch(p.name, "*_test.py"))]
        public = [tests_dir / "public"] if (tests_dir / "public").is_dir() else []
        hidden = [hidden_dir] if include_hidden and hidden_dir.is_dir() else []
        args = ["--collect-only", *map(str, public + others + hidden)]
        if not public + others + hidden:
            raise GradingError(f"no tests found under {tests_dir}; put test_*.py files in "
                               "tests/public/ (and tests/hidden/)")
        env = _base_env(sub if sub is not None else exercise / "solution.py")
        env["RKMLEARN_GRADING_COLLECT"] = str(out)
        limit = time.time() + timeout
        proc = _run_process(_pytest_command(exercise, work, args), env, work, lambda: limit)
        if proc.timed_out:
            raise GradingError(f"collecting the tests of {exercise} took more than {timeout:g} s")
        if not out.is_file():
            raise GradingError(f"could not collect the tests of {exercise} (exit code "
                               f"{proc.returncode}):\n{proc.output_tail[-3000:]}")
        data = json.loads(out.read_text(encoding="utf-8"))
    if data["errors"]:
        details = "\n".join(f"- {e['nodeid']}: {e['message'][-1500:]}" for e in data["errors"])
        raise GradingError(f"errors while collecting the tests of {exercise}:\n{details}")
    collected = []
    for entry in data["tests"]:
        points, marked = _parse_points(entry["nodeid"], entry["points"])
        path = Path(entry["path"])
        hidden = hidden_dir in path.parents
        file_part, sep, rest = entry["nodeid"].partition("::")
        if file_part.startswith("tests/"):
            file_part = file_part[len("tests/"):]
        name = file_part + sep + rest
        collected.append(CollectedTest(nodeid=entry["nodeid"], name=name, points=points,
                                       marked=marked, hidden=hidden, path=str(path)))
    if not collected:
        raise GradingError(f"no tests found under {tests_dir}; test files must be named "
                           "test_*.py")
    return collected


# --------------------------------------------------------------------------------------------
# running
# --------------------------------------------------------------------------------------------
def _phase_verdict(phases: dict) -> tuple[bool, str] | None:
    """(passed, message) of a test whose phases were recorded, or None if it did not finish."""
    for when in ("setup", "call", "teardown"):
        phase = phases.get(when)
        if phase is None:
            if when == "call" and "teardown" in phases:
                continue  # setup failed or skipped: pytest goes straight to teardown
            return None
        if phase["outcome"] != "passed":
            message = phase["message"] or phase["outcome"]
            if when == "teardown":
                message = f"error in teardown: {message}"
            if "teardown" not in phases and when != "teardown":
                return None  # failed, but the process did not get to finish the test
            return False, message
    return True, ""


def _death_message(proc: _ProcessOutcome, timeout: float, phases: dict) -> str:
    """Why a test that started did not finish."""
    if proc.timed_out:
        return f"timed out after {timeout:g} s (the test process was killed)"
    failed = [p["message"] for p in phases.values() if p["outcome"] != "passed" and p["message"]]
    reached = ", ".join(phases) or "none"
    if proc.returncode is not None and proc.returncode < 0:
        message = (f"the test process crashed with {_signal_name(proc.returncode)}"
                   f"{_crash_hint(proc.output_tail)} (test phases completed: {reached})")
    else:
        message = (f"the test process exited with code {proc.returncode} before the test "
                   "finished; does the submission call os._exit() or sys.exit()? "
                   f"(test phases completed: {reached})")
    return f"{failed[0]}; then {message}" if failed else message


def _read_record(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _run_share(tests: list[CollectedTest], exercise: Path, sub: Path,
               timeout: float) -> list[TestResult]:
    """Run ``tests`` in one process, starting a fresh one after each test that kills it.

    Every test ends with a result: its own outcome, or the reason its process died (time-out,
    crash, exit). A process that dies before starting any test (which a submission cannot cause:
    it is only imported inside tests) fails its first test with the reason, so the loop always
    makes progress.
    """
    results: dict[str, TestResult] = {}
    remaining = list(tests)
    while remaining:
        with tempfile.TemporaryDirectory(prefix="rkmlearn-grading-") as tmp:
            work = Path(tmp)
            select_file, record_file = work / "select.json", work / "record.json"
            select_file.write_text(json.dumps([t.nodeid for t in remaining]), encoding="utf-8")
            env = _base_env(sub)
            env["RKMLEARN_GRADING_SELECT"] = str(select_file)
            env["RKMLEARN_GRADING_RESULT"] = str(record_file)
            files = list(dict.fromkeys(t.path for t in remaining))  # only their files: cheap
            launched = time.time()
            seen = {"mtime": None, "record": None}

            def deadline() -> float:
                # The running test's clock starts when it starts; between tests (and before the
                # first) the clock runs from the last event, so start-up cannot hang either.
                try:
                    mtime = record_file.stat().st_mtime_ns
                except OSError:
                    return launched + timeout
                if mtime != seen["mtime"]:
                    seen["mtime"], seen["record"] = mtime, _read_record(record_file)
                record = seen["record"] or {}
                if record.get("current"):
                    return record["started_at"] + timeout
                return record.get("last_event", launched) + timeout

            proc = _run_process(_pytest_command(exercise, work, files), env, work, deadline)
            record = _read_record(record_file) or {}
        recorded = record.get("tests", {})
        for test in remaining:
            if test.nodeid in recorded:
                verdict = _phase_verdict(recorded[test.nodeid]["phases"])
                if verdict is None:  # the test during which the process died
                    verdict = (False, _death_message(proc, timeout,
                                                     recorded[test.nodeid]["phases"]))
            elif record.get("finished") and test.nodeid not in record.get("found", []):
                verdict = (False, "test not found when re-collected; instructor: are test ids "
                                  "generated non-deterministically?")
            else:
                continue  # not reached: the next process runs it
            phases = recorded.get(test.nodeid, {}).get("phases", {})
            duration = math.fsum(p["duration"] for p in phases.values())
            results[test.nodeid] = _make_result(test, *verdict, duration)
        if all(t.nodeid not in results for t in remaining):
            # No test started: blame the first, with whatever the process left us.
            first = remaining[0]
            if proc.timed_out:
                message = (f"timed out after {timeout:g} s before the test started (the test "
                           "process was killed)")
            else:
                last = [ln for ln in proc.output_tail.splitlines() if ln.strip()][-3:]
                message = (f"the test process ended (exit code {proc.returncode}) before the "
                           f"test started: {' | '.join(last)}")
            results[first.nodeid] = _make_result(first, False, message, proc.duration)
        remaining = [t for t in remaining if t.nodeid not in results]
    return [results[t.nodeid] for t in tests]


def _make_result(test: CollectedTest, passed: bool, message: str, duration: float) -> TestResult:
    return TestResult(name=test.name, max_score=test.points, passed=passed,
                      message=shorten(message, 2000) if message else "", hidden=test.hidden,
                      duration=duration)


def run_tests(tests: list[CollectedTest], exercise_dir, submission, *,
              timeout: float = DEFAULT_TIMEOUT, isolation: str = "batch",
              jobs: int | None = None, progress=None) -> list[TestResult]:
    """Run collected tests against ``submission``; see the module docstring for ``isolation``.

    Parameters
    ----------
    tests : list of CollectedTest
        From :func:`collect_tests` on the same exercise.
    exercise_dir : str or Path
        The exercise folder.
    submission : str or Path
        The student's ``.py`` file.
    timeout : float, default=30.0
        Seconds allowed per test, from its start to its end; in ``"test"`` isolation (and for
        the first test of a batch) the process start-up counts too.
    isolation : {"batch", "test"}, default="batch"
        A process per share of the tests (restarted after any test that kills it), or a process
        per test.
    jobs : int, optional
        Processes running at the same time; default :func:`default_jobs`.
    progress : callable, optional
        Called as ``progress(done, total)`` whenever a share of tests finishes.

    Returns
    -------
    list of TestResult
        In the order of ``tests``.
    """
    if isolation not in ISOLATION_MODES:
        raise GradingError(f"isolation must be one of {ISOLATION_MODES}, got {isolation!r}")
    if not (isinstance(timeout, (int, float)) and math.isfinite(timeout) and timeout > 0):
        raise GradingError(f"timeout must be a positive number of seconds, got {timeout!r}")
    jobs = default_jobs() if jobs is None else jobs
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise GradingError(f"jobs must be a positive integer, got {jobs!r}")
    exercise, sub = _check_paths(exercise_dir, submission)
    if isolation == "test":
        shares = [[t] for t in tests]
    else:
        # Contiguous shares keep each process's collection to few files; sizes differ by <= 1.
        k = min(jobs, len(tests)) or 1
        bounds = [round(i * len(tests) / k) for i in range(k + 1)]
        shares = [tests[bounds[i]:bounds[i + 1]] for i in range(k)]
    done = 0
    lock = threading.Lock()

    def work(share: list[CollectedTest]) -> list[TestResult]:
        nonlocal done
        out = _run_share(share, exercise, sub, timeout)
        with lock:
            done += len(share)
            if progress is not None:
                progress(done, len(tests))
        return out

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        per_share = list(pool.map(work, shares))
    return [result for share in per_share for result in share]


def default_jobs() -> int:
    """Parallel test processes: two, or one on a single-core machine."""
    return max(1, min(2, os.cpu_count() or 1))


def grade(exercise_dir, submission, *, timeout: float = DEFAULT_TIMEOUT,
          include_hidden: bool = True, isolation: str = "batch", jobs: int | None = None,
          progress=None, tests: list[CollectedTest] | None = None) -> GradeReport:
    """Grade one submission against an exercise's tests.

    Parameters
    ----------
    exercise_dir : str or Path
        The exercise folder, e.g. ``exercises/ch01_kernels``.
    submission : str or Path
        The student's ``.py`` file. The tests' ``submission`` fixture imports it afresh in each
        test, always in a subprocess.
    timeout : float, default=30.0
        Seconds allowed per test; an overrunning test's process group is killed and it scores 0.
    include_hidden : bool, default=True
        Whether to run ``tests/hidden`` as well (when it exists).
    isolation : {"batch", "test"}, default="batch"
        See :func:`run_tests`. Both give every crash, exit and time-out to the test that caused it.
    jobs : int, optional
        Test processes running at the same time; default :func:`default_jobs`.
    progress : callable, optional
        Called as ``progress(done, total)`` as tests finish.
    tests : list of CollectedTest, optional
        Tests already collected by :func:`collect_tests` for this exercise (saves collecting
        twice); by default they are collected here.

    Returns
    -------
    GradeReport
        Results in collection order (public tests first); ``report.summary()`` gives
        "Score: 7/12 (58.3 %)".

    Raises
    ------
    GradingError
        For usage errors (missing folder or file, bad ``timeout``, ``isolation`` or ``jobs``) and
        broken exercises (tests that cannot be collected). A bad submission never raises: its
        tests score 0.
    """
    if not (isinstance(timeout, (int, float)) and math.isfinite(timeout) and timeout > 0):
        raise GradingError(f"timeout must be a positive number of seconds, got {timeout!r}")
    if isolation not in ISOLATION_MODES:
        raise GradingError(f"isolation must be one of {ISOLATION_MODES}, got {isolation!r}")
    exercise, sub = _check_paths(exercise_dir, submission)
    start = time.perf_counter()
    if tests is None:
        tests = collect_tests(exercise, include_hidden=include_hidden,
                              timeout=max(120.0, timeout), submission=sub)
    results = run_tests(tests, exercise, sub, timeout=timeout, isolation=isolation, jobs=jobs,
                        progress=progress)
    return GradeReport(exercise=str(exercise), submission=str(sub), tests=results,
                       execution_time=time.perf_counter() - start)
