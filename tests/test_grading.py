"""Self-check of the autograder (rkmlearn.grading) and of every exercise under exercises/.

For every exercise: the reference solution scores 100 %, the starter scores exactly 0 (so every
test can fail) and a deliberately half-wrong submission scores strictly in between. The grader's
robustness is checked on a tiny exercise (tests/grading_fixtures/mini_exercise) whose processes
start fast, against submissions that hang in C code, exit, crash, fail to import, raise or print
megabytes; its security against the hostile submissions of tests/grading_fixtures/hostile/ (the
table of issue 14 and more), each of which must score no more than the honest starter (0).

Gradings are slow (each starts pytest and a sandbox), so they run in a pool of threads, all
submitted at the first test that needs one (the `graded` fixture); tests then wait for theirs.
"""
from __future__ import annotations

import ast
import configparser
import dis
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from rkmlearn.grading import (GradeReport, GradingError, collect_tests, grade, load_config,
                              student_copy, validate_results)
from rkmlearn.grading import wire
from rkmlearn.grading.worker import audit
from rkmlearn.grading.sources import parse_python  # gradings parse in threads meanwhile
from rkmlearn.grading.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXERCISES = sorted(p for p in (ROOT / "exercises").iterdir() if (p / "tests").is_dir())
FIXTURES = ROOT / "tests" / "grading_fixtures"
HOSTILE = FIXTURES / "hostile"
MINI = FIXTURES / "mini_exercise"
CH01 = ROOT / "exercises" / "ch01_kernels"
ROOT_USER = os.geteuid() == 0
SCRATCH = Path(tempfile.mkdtemp(prefix="rkmlearn-grading-selfcheck-"))
# For pytest-xdist (tests/conftest.py): the tests that read the pool of gradings (`graded`) stay one
# unit of work, so the pool runs once; each other test (its own grading) may go to either worker.
XDIST_SPLIT = True


def _half_wrong(exercise: Path) -> Path:
    """tests/grading_fixtures/<chapter prefix>_half_wrong.py, e.g. ch01_half_wrong.py."""
    return FIXTURES / f"{exercise.name.split('_')[0]}_half_wrong.py"


def _half_wrong_submission(exercise: Path) -> Path:
    """The half-wrong fixture with the solution's source prepended (a submission is one file)."""
    out = SCRATCH / "half_wrong" / _half_wrong(exercise).name
    out.parent.mkdir(exist_ok=True)
    out.write_text(f"SOLUTION_SOURCE = {(exercise / 'solution.py').read_text()!r}\n"
                   + _half_wrong(exercise).read_text())
    return out


def _has_in_place_test(exercise: Path) -> bool:
    """Whether a test checks that inputs are not modified: the kind that rewarded None."""
    return any("not_modify" in path.read_text() for path in exercise.rglob("test_*.py"))


def _returns_none(exercise: Path) -> Path:
    """A submission whose declared functions all ``return None``."""
    out = SCRATCH / "returns_none" / f"{exercise.name}.py"
    out.parent.mkdir(exist_ok=True)
    out.write_text("".join(f"def {name}(*args, **kwargs):\n    return None\n\n"
                           for name in load_config(exercise).functions))
    return out


def _mini_variant(**grading) -> Path:
    """A copy of the mini exercise whose [grading] section has these keys changed."""
    folder = SCRATCH / f"mini-{uuid.uuid4().hex[:8]}"
    shutil.copytree(MINI, folder)
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(folder / "pytest.ini")
    for key, value in grading.items():
        parser["grading"][key] = value
    with open(folder / "pytest.ini", "w") as fh:
        parser.write(fh)
    return folder


def _unique_copy(path: Path) -> Path:
    """``path`` copied under a unique name: its processes can then be told apart in /proc."""
    out = SCRATCH / f"{path.stem}_{uuid.uuid4().hex[:10]}.py"
    shutil.copy(path, out)
    return out


def _processes_mentioning(needle: str) -> list[int]:
    """Pids whose command line or environment contains ``needle`` (this process excluded)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            blob = Path(f"/proc/{name}/cmdline").read_bytes()
            blob += Path(f"/proc/{name}/environ").read_bytes()
        except OSError:
            continue
        if needle.encode() in blob:
            found.append(int(name))
    return found


def _by_name(report: GradeReport) -> dict:
    return {t.name: t for t in report.tests}


def _tree_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return digest.hexdigest()


# ------------------------------------------------------------------ the pool of slow gradings
def _jobs() -> dict:
    """Every grading the slow tests need: name -> (exercise, submission, keyword arguments)."""
    jobs = {}
    for exercise in EXERCISES:
        jobs[(exercise.name, "solution")] = (exercise, exercise / "solution.py", {})
        jobs[(exercise.name, "starter")] = (exercise, exercise / "starter.py", {})
        jobs[(exercise.name, "half_wrong")] = (exercise, _half_wrong_submission(exercise), {})
        if _has_in_place_test(exercise):
            jobs[(exercise.name, "returns_none")] = (exercise, _returns_none(exercise), {})
    for name in HOSTILE_CH01:
        jobs[("hostile", name)] = (CH01, HOSTILE / f"{name}.py", HOSTILE_CH01[name])
    jobs[("mini", "starter")] = (MINI, MINI / "starter.py", {})
    for name in HOSTILE_MINI:
        jobs[("hostile-mini", name)] = (MINI, HOSTILE / f"{name}.py", {})
    return jobs


@pytest.fixture(scope="module")
def graded():
    """``graded(key)`` -> GradeReport; all gradings start at the first call, three at a time.

    Module scope: the pool is drained before the next test file runs on this worker, whose
    ``ast.parse``/``compile`` calls (doctests, source checks) would otherwise race the gradings'
    parser in CPython 3.11 ("AST constructor recursion depth mismatch"; see ``parse_python``).
    """
    pool = ThreadPoolExecutor(max_workers=3)
    futures = {}
    secret = os.environ.get("RKMLEARN_TEST_SECRET")
    os.environ["RKMLEARN_TEST_SECRET"] = "s3cr3t-token"  # in the grader's environment only

    def get(key):
        if not futures:
            for k, (exercise, submission, kwargs) in _jobs().items():
                futures[k] = pool.submit(grade, exercise, submission, jobs=1,
                                         **{"timeout": 30.0, **kwargs})
        return futures[key].result()

    yield get
    pool.shutdown(wait=True, cancel_futures=True)
    if secret is None:
        os.environ.pop("RKMLEARN_TEST_SECRET", None)
    else:
        os.environ["RKMLEARN_TEST_SECRET"] = secret


@pytest.fixture(scope="module", autouse=True)
def _remove_scratch():
    # made again: a worker that runs this module's tests in several units (XDIST_SPLIT), with other
    # files between them, sets the module up (and tears it down) once per stretch
    SCRATCH.mkdir(exist_ok=True)
    yield
    shutil.rmtree(SCRATCH, ignore_errors=True)


def test_there_are_exercises():
    assert EXERCISES, "no exercise folder with a tests/ folder under exercises/"


@pytest.mark.timeout(300)  # a hang guard, not a measurement: one time-out per test would be 540 s
def test_import_time_hang_is_detected_once():
    """Two runners, each probing the import once: about one time-out in all, not one per test.

    First in this file, before the pool of gradings loads the machine. No time is asserted (a
    timing is a benchmark); the pytest time-out above fails a grading that probes per test.
    """
    timeout = 15.0
    report = grade(CH01, HOSTILE / "h13_hang_at_import.py", timeout=timeout, jobs=2)
    assert report.score == 0 and len(report.tests) > 20
    assert all("did not finish importing within 15 s" in t.message for t in report.tests)


# ------------------------------------------------------------------ exercise format
def _public_functions(path: Path) -> set[str]:
    return {node.name for node in parse_python(path.read_text()).body
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")}


@pytest.mark.slow
@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda p: p.name)
def test_exercise_layout(exercise, graded):
    for name in ("README.md", "starter.py", "solution.py", "pytest.ini"):
        assert (exercise / name).is_file(), f"{exercise.name} lacks {name}"
    assert not list(exercise.rglob("conftest.py")), \
        "exercises have no conftest.py: the plugin rkmlearn.grading.plugin gives the fixtures"
    assert list((exercise / "tests" / "public").glob("test_*.py")), "no public tests"
    assert list((exercise / "tests" / "hidden").glob("test_*.py")), "no hidden tests"
    assert _half_wrong(exercise).is_file(), f"missing fixture {_half_wrong(exercise).name}"
    config = load_config(exercise)
    assert config.functions, "declare the graded functions in pytest.ini [grading] functions"
    for name in ("starter.py", "solution.py"):
        assert _public_functions(exercise / name) == set(config.functions), \
            f"{name} must define exactly the functions declared in pytest.ini"
    assert config.allowed_imports == ("numpy", "scipy")
    report = graded((exercise.name, "solution"))
    assert not report.warnings, "every exercise test must carry @pytest.mark.points"
    assert {t.hidden for t in report.tests} == {False, True}


def test_exercise_pytest_ini_is_one_template():
    """The [pytest] sections agree (the folder name aside); only [grading] differs."""
    sections = set()
    for exercise in EXERCISES:
        parser = configparser.ConfigParser(interpolation=None)
        parser.read(exercise / "pytest.ini")
        sections.add(tuple(sorted(parser["pytest"].items())))
        assert set(parser.sections()) == {"pytest", "grading"}
    assert len(sections) == 1, sections
    assert "-p rkmlearn.grading.plugin" in dict(sections.pop())["addopts"]


# ------------------------------------------------------------------ honest results
@pytest.mark.slow
@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda p: p.name)
def test_solution_scores_full_marks(exercise, graded):
    report = graded((exercise.name, "solution"))
    failed = [f"{t.name}: {t.message}" for t in report.tests if not t.passed]
    assert not failed, "\n".join(failed)
    assert report.score == report.max_score > 0 and report.percent == 100.0


@pytest.mark.slow
@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda p: p.name)
def test_starter_scores_zero(exercise, graded):
    report = graded((exercise.name, "starter"))
    passed = [t.name for t in report.tests if t.passed]
    assert not passed, f"tests that the unimplemented starter passes: {passed}"
    assert report.score == 0
    assert all("NotImplementedError" in t.message for t in report.tests), \
        [t.message for t in report.tests]


@pytest.mark.slow
@pytest.mark.parametrize("exercise", [e for e in EXERCISES if _has_in_place_test(e)],
                         ids=lambda p: p.name)
def test_no_test_rewards_returning_none(exercise, graded):
    report = graded((exercise.name, "returns_none"))
    assert report.score == 0, [t.name for t in report.tests if t.passed]


# What each half-wrong fixture gets wrong: every test it fails must contain this in its name.
HALF_WRONG_FAILS_ONLY = {
    "ch01_kernels": "centering",
    "ch02_primal_dual": "primal",
    "ch03_rescaling": "impute",
    "ch04_stiefel_rotation": "sign",
    "ch05_imputation": "dual",
    "ch06_ppca": "sigma2_ml",
    "ch07_sampling": "smoother",
    "ch08_tensor": "train",
    "ch09_deep": "pgd_step",
    "ch10_recurrent": "latent_step",
    "ch11_spectral_clustering": "dual",
    "ch12_kernel_cca": "dual",
    "ch13_generative": "sample",
}


@pytest.mark.slow
@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda p: p.name)
def test_half_wrong_submission_scores_in_between(exercise, graded):
    report = graded((exercise.name, "half_wrong"))
    assert 0 < report.score < report.max_score, report.format_table()
    # Bad-input tests of the broken function are voided by rule (their points count only when
    # its valid-input tests pass): they are not failures of their own.
    failed = {t.name for t in report.tests if not t.passed
              and "also passes the tests with valid input" not in t.message}
    needle = HALF_WRONG_FAILS_ONLY.get(exercise.name, "")
    assert all(needle in name for name in failed), failed


# ------------------------------------------------------------------ robustness (mini exercise)
def _grade_mini(name: str, exercise: Path = MINI, **kwargs) -> dict:
    kwargs.setdefault("jobs", 1)
    path = FIXTURES / f"mini_{name}.py"
    return _by_name(grade(exercise, path if path.is_file() else HOSTILE / f"mini_{name}.py",
                          **kwargs))


ADD_TESTS = ("public/test_mini.py::test_add", "hidden/test_mini_hidden.py::test_add_negative")
MUL_TESTS = ("public/test_mini.py::test_mul", "public/test_mini.py::test_mul_unmarked")


def _only_add_fails(results: dict, needle: str) -> None:
    for name in ADD_TESTS:
        assert not results[name].passed and results[name].score == 0
        assert needle in results[name].message, results[name].message
    for name in MUL_TESTS:  # a fresh worker for every test: the tests after the culprit pass
        assert results[name].passed, results[name].message


def test_mini_solution_points_and_visible_score():
    report = grade(MINI, MINI / "solution.py", jobs=2)  # two runners share the tests
    assert report.score == report.max_score == 5  # 2 + 1 + 1 (unmarked) + 1 (hidden)
    assert report.summary() == "Score: 5/5 (100.0 %)"
    assert report.student_summary().startswith("Visible tests: 4/4 points (100.0 %). 1 hidden")
    assert [t.name for t in report.tests][-1].startswith("hidden/"), "hidden tests come last"
    assert set(report.sandbox) >= {"uid", "rlimits", "landlock", "audit", "network", "pid"}
    starter = grade(MINI, MINI / "starter.py", include_hidden=False, jobs=1)
    assert starter.summary() == starter.student_summary() == "Score: 0/4 (0.0 %)"


@pytest.mark.timeout(120)  # a hang guard, not a measurement
def _add_times_out_once(results: dict) -> None:
    """A hang costs one time-out per function (issue 31): one add test times out, the other add
    tests fail at once naming that time-out, and the mul tests pass."""
    _only_add_fails(results, "timed out")
    messages = [results[name].message for name in ADD_TESTS]
    assert sum("timed out in add()" in m for m in messages) == 1, messages
    assert all("timed out in add()" in m or "add() timed out in an earlier test" in m for m in messages), messages


def test_infinite_loop_in_c_times_out():
    _add_times_out_once(_grade_mini("loop_in_c", timeout=2))


def test_sys_exit_inside_a_function():
    _only_add_fails(_grade_mini("exit_in_function"), "sys.exit(0) in add()")


def test_os_exit_inside_a_function():
    _only_add_fails(_grade_mini("os_exit"), "exited with code 0")


def test_segfault():
    _only_add_fails(_grade_mini("segfault"), "crashed with SIGSEGV")


def test_raising_function_names_the_exception_and_line():
    _only_add_fails(_grade_mini("raises"), "RuntimeError: boom in add (raised at mini_raises.py:2)")


def test_memory_cap():
    _only_add_fails(_grade_mini("memory_hog", memory_mb=256), "MemoryError")


@pytest.mark.parametrize("name, needle", [
    ("exit_at_import", "calls sys.exit(0) at import time"),
    ("import_error", "'a_module_that_does_not_exist' is not allowed"),
])
def test_submission_that_cannot_be_imported_scores_zero(name, needle):
    results = _grade_mini(name)
    for result in results.values():
        assert result.score == 0 and "submission failed to import" in result.message
        assert needle in result.message, result.message


def test_a_runner_that_dies_costs_only_its_test():
    """The instructor's own test code ends its runner: that test fails, a fresh runner goes on."""
    exercise = _mini_variant()
    (exercise / "tests" / "public" / "test_aa_crash.py").write_text(
        "import os\n\n\ndef test_crash(submission):\n    os._exit(3)\n")
    results = _by_name(grade(exercise, MINI / "solution.py", jobs=1))
    crash = results.pop("public/test_aa_crash.py::test_crash")
    assert not crash.passed and "exited with code 3" in crash.message, crash.message
    assert all(r.passed for r in results.values())


def test_megabytes_of_output_do_not_hurt():
    results = _grade_mini("prints_megabytes")
    assert all(r.passed for r in results.values())


# ------------------------------------------------------------------ command line and JSON
def test_cli_json_round_trip(tmp_path, capsys):
    out = tmp_path / "results.json"
    assert main([str(MINI), str(FIXTURES / "mini_raises.py"), "--json", str(out), "--jobs",
                 "1"]) == 0
    printed = capsys.readouterr().out
    assert "Score: 2/5 (40.0 %)" in printed and "boom in add" in printed
    data = json.loads(out.read_text())
    validate_results(data)
    assert (data["score"], data["max_score"]) == (2, 5)
    # Students see the visible score only; the hidden points are in extra_data.
    assert data["output"].startswith("Visible tests: 2/4 points (50.0 %). 1 hidden tests")
    assert data["extra_data"]["hidden_score"] == 0 and data["extra_data"]["hidden_max_score"] == 1
    assert data["extra_data"]["sandbox"]["audit"] == "on"
    for test in data["tests"]:
        assert set(test) >= {"name", "score", "max_score", "output", "visibility"}
        expected = "after_due_date" if test["name"].startswith("hidden/") else "visible"
        assert test["visibility"] == expected
    assert GradeReport.from_gradescope(data).to_gradescope() == data
    assert not list(tmp_path.glob(".results-*")), "the temporary file of the atomic write remains"


@pytest.mark.parametrize("broken", [
    lambda d: d.pop("tests"),
    lambda d: d.update(score=99),
    lambda d: d["tests"][0].update(visibility="sometimes"),
    lambda d: d["tests"][0].update(score=-1),
    lambda d: d["tests"][0].pop("name"),
    lambda d: d.update(extra_data=[]),
])
def test_validate_results_rejects_malformed_json(broken):
    data = GradeReport("x", "y", [
        __import__("rkmlearn.grading", fromlist=["TestResult"]).TestResult("a", 1.0, True)
    ]).to_gradescope()
    validate_results(data)
    broken(data)
    with pytest.raises(ValueError):
        validate_results(data)


def test_module_entry_point_exits_zero_whatever_the_score():
    result = subprocess.run([sys.executable, "-m", "rkmlearn.grading", str(MINI),
                             str(MINI / "starter.py"), "--no-hidden", "--jobs", "1"],
                            capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "Score: 0/4 (0.0 %)" in result.stdout
    assert "Sandbox:" in result.stderr


def test_execution_time_counts_the_start_up(tmp_path):
    """A start-up made 3 s slow (a sitecustomize that sleeps) shows in ``execution_time``.

    Bounds that do not depend on the machine's load: the sleep is inside the reported time, the
    reported time inside the wall time the caller measured.
    """
    slow = tmp_path / "slow_start"
    slow.mkdir()
    (slow / "sitecustomize.py").write_text("import time\ntime.sleep(3.0)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(slow), os.environ.get("PYTHONPATH")]))}
    out = tmp_path / "results.json"
    subprocess.run([sys.executable, "-m", "rkmlearn.grading", str(MINI), str(MINI / "starter.py"),
                    "--jobs", "1", "--json", str(out)], capture_output=True, timeout=300, check=True, env=env)
    reported = json.loads(out.read_text())["execution_time"]
    assert reported >= 3.0, reported  # the 3 s of start-up are inside what is reported


@pytest.mark.parametrize("args, needle", [
    (["no/such/exercise", "x.py"], "does not exist"),
    ([str(MINI), "no_such_submission.py"], "does not exist"),
    ([str(MINI), str(MINI / "README.md")], "not a .py file"),
    ([str(MINI / "tests")], None),  # missing argument: argparse's own usage error
    ([str(MINI), str(MINI / "solution.py"), "--json", "no/such/folder/out.json"], "--json"),
    ([str(MINI), str(MINI / "solution.py"), "--timeout", "0"], "timeout"),
    ([str(MINI), str(MINI / "solution.py"), "--memory", "10"], "memory_mb"),
    ([str(ROOT / "rkmlearn"), "x.py"], "no tests/ folder"),
])
def test_cli_usage_errors(args, needle, capsys):
    try:
        status = main(args)
    except SystemExit as exc:  # argparse exits by itself
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2
    if needle:
        assert needle in err, err


def test_cli_help_says_what_the_isolation_is(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    for phrase in ("sandboxed worker processes", "never import the submission", "Landlock",
                   "without solution*"):
        assert phrase in text


def test_broken_points_marker_and_collection_errors_are_instructor_errors(tmp_path):
    exercise = tmp_path / "ex"
    (exercise / "tests" / "public").mkdir(parents=True)
    shutil.copy(MINI / "pytest.ini", exercise / "pytest.ini")
    test_file = exercise / "tests" / "public" / "test_x.py"
    test_file.write_text("import pytest\n\n@pytest.mark.points('two')\ndef test_a():\n    pass\n")
    with pytest.raises(GradingError, match="non-negative number"):
        collect_tests(exercise)
    test_file.write_text("def test_a(:\n")
    with pytest.raises(GradingError, match="collecting"):
        collect_tests(exercise)


@pytest.mark.parametrize("section, needle", [
    ("functions = add 2mul", "not Python names"),
    ("processes = maybe", "yes or no"),
    ("memory_mb = lots", "memory_mb"),
    ("preload = sklearn", "not allowed imports"),
    ("colour = blue", "unknown key"),
])
def test_malformed_grading_section_is_an_instructor_error(tmp_path, section, needle):
    (tmp_path / "pytest.ini").write_text(f"[pytest]\n\n[grading]\n{section}\n")
    with pytest.raises(GradingError, match=needle):
        load_config(tmp_path)


# ------------------------------------------------------------------ student copy
def test_student_copy_leaves_out_solution_and_hidden_tests(tmp_path):
    for exercise in EXERCISES + [MINI]:
        out = tmp_path / exercise.name
        files = student_copy(exercise, out)
        assert "starter.py" in files and "README.md" in files and "pytest.ini" in files
        assert not any(f.startswith("solution") or f.startswith("tests/hidden") for f in files)
        assert any(f.startswith("tests/public/test_") for f in files)
        assert not (out / "tests" / "hidden").exists() and not (out / "solution.py").exists()
    with pytest.raises(GradingError, match="not an empty folder"):
        student_copy(MINI, tmp_path / MINI.name)
    # The copy grades on its own: public tests only.
    report = grade(tmp_path / MINI.name, FIXTURES / "mini_raises.py", jobs=1)
    assert report.summary() == "Score: 2/4 (50.0 %)"


def test_student_copy_runs_under_plain_pytest_sandboxed_too(tmp_path):
    """`pytest` in a student copy uses the same plugin: the submission runs in the sandbox."""
    copy = tmp_path / "copy"
    assert main(["--student-copy", str(MINI), str(copy)]) == 0
    env = dict(os.environ, RKMLEARN_SUBMISSION=str(FIXTURES / "mini_raises.py"),
               PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    result = subprocess.run([sys.executable, "-m", "pytest", str(copy), "-q", "-p",
                             "no:cacheprovider"], capture_output=True, text=True, env=env,
                            cwd=copy, timeout=300)
    assert "1 failed, 2 passed" in result.stdout, result.stdout + result.stderr
    assert "RuntimeError: boom in add" in result.stdout
    hostile = _unique_copy(HOSTILE / "mini_lying_scalars.py")
    env["RKMLEARN_SUBMISSION"] = str(hostile)
    result = subprocess.run([sys.executable, "-m", "pytest", str(copy), "-q", "-p",
                             "no:cacheprovider"], capture_output=True, text=True, env=env,
                            cwd=copy, timeout=300)
    assert "3 failed" in result.stdout, result.stdout + result.stderr


# ------------------------------------------------------------------ structure
GRADING = ROOT / "rkmlearn" / "grading"


def _grading_imports(path: Path, top_level_only: bool = False):
    """(absolute module names, grading modules imported relatively) of one grading file."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    tree = parse_python(path.read_text())
    nodes = tree.body if top_level_only else ast.walk(tree)
    absolute, relative = [], []
    for node in nodes:
        if isinstance(node, ast.Import):
            absolute += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            absolute.append(node.module)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[:len(package.split(".")) - node.level + 1]
            module = ".".join(base + ([node.module] if node.module else []))
            relative += [module] if node.module else [f"{module}.{a.name}" for a in node.names]
    return absolute, relative


def test_grading_imports_only_its_extra():
    """The grader is a part of its own: nothing of the numeric library (relative imports stay
    inside rkmlearn.grading), and only the packages of the [grading] extra (libseccomp's API
    where it is installed)."""
    allowed = set(sys.stdlib_module_names) | {"pytest", "_pytest", "numpy", "nbformat",
                                              "seccomp", "pyseccomp"}
    for path in GRADING.rglob("*.py"):
        absolute, relative = _grading_imports(path)
        for name in absolute:
            assert name.split(".")[0] in allowed, f"{path.name} imports {name}"
        for name in relative:
            assert name.startswith("rkmlearn.grading"), f"{path.name} imports {name}"


def test_grading_modules_import_no_cycle():
    """Module-level imports between the grader's modules form no cycle."""
    graph = {}
    for path in GRADING.rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        graph[name] = {m for m in _grading_imports(path, top_level_only=True)[1] if m != name}
    modules = set(graph)
    graph = {m: {d if d in modules else d.rsplit(".", 1)[0] for d in deps} for m, deps in graph.items()}
    done, stack = set(), []

    def visit(module):
        assert module not in stack, " -> ".join(stack[stack.index(module):] + [module])
        if module in done:
            return
        stack.append(module)
        for dep in graph.get(module, ()):
            visit(dep)
        stack.pop()
        done.add(module)

    for module in sorted(graph):
        visit(module)


def test_sandboxed_side_imports_only_the_standard_library():
    """The zygote's and workers' modules import the standard library and each other at module
    level (numpy, through the wire module, only once the process is confined)."""
    for path in (GRADING / "worker").glob("*.py"):
        absolute, relative = _grading_imports(path, top_level_only=True)
        assert all(m.split(".")[0] in set(sys.stdlib_module_names) for m in absolute), path.name
        assert all(m.startswith("rkmlearn.grading.worker") for m in relative), path.name


def test_processes_are_started_as_modules():
    """No grading process runs source text: runners and the zygote are python -m modules."""
    for path in GRADING.rglob("*.py"):
        text = path.read_text()
        assert not re.search(r'executable,\s*(?:[*\w.]+,\s*|"-\w+",\s*)*"-c"', text), path.name
        assert "exec(compile(" not in text.replace(  # the submission's import is the one exec
            'exec(compile(source, path, "exec"), module.__dict__)', ""), path.name


def test_audit_hook_loads_no_global_name():
    """Student code can rebind module globals; the hook must not read any."""
    nested = [c for c in audit.install_rules.__code__.co_consts if hasattr(c, "co_code")]
    assert {c.co_name for c in nested} >= {"hook", "refuse", "normal", "in_scratch", "readable"}
    for code in nested:
        loads = [i.argval for i in dis.get_instructions(code)
                 if i.opname in ("LOAD_GLOBAL", "LOAD_NAME")]
        assert not loads, f"{code.co_name} loads globals {loads}"


def test_wire_round_trip_flattens_and_refuses():
    class Sub(np.ndarray):
        pass

    class Yes(int):
        def __eq__(self, other):
            return True

        __hash__ = int.__hash__

    value = {"a": (1, 2.5, -0.0, float("nan"), 1 + 2j, "s", b"b", None, True, np.float32(2)),
             3: [np.arange(6).reshape(2, 3), np.zeros((0, 4)), np.ones(3).view(Sub),
                 np.arange(4, dtype=">i4"), Yes(7)]}
    out = wire.decode(*wire.encode(value))
    assert out["a"][:3] == (1, 2.5, -0.0) and np.isnan(out["a"][3])
    assert out["a"][4:9] == (1 + 2j, "s", b"b", None, True)
    assert type(out["a"][9]) is np.float32 and out["a"][9] == 2
    arrays = out[3]
    assert all(type(a) is np.ndarray for a in arrays[:4])
    assert arrays[3].dtype == np.dtype("<i4") and arrays[3].tolist() == [0, 1, 2, 3]
    assert type(arrays[4]) is int and arrays[4] == 7 and arrays[4] != 8
    for bad in (object(), np.array(["x"]), np.array([None], dtype=object), {(1, 2): 3}):
        with pytest.raises(wire.EncodeError):
            wire.encode(bad)
    tree, blobs = wire.encode(np.zeros((2, 2)))
    for broken_tree, broken_blobs in (
            (dict(tree, shape=[3, 2]), blobs), (dict(tree, dtype="|O"), blobs),
            (dict(tree, shape=[-1]), blobs), ({"$nd": 5, "dtype": "<f8", "shape": [1]}, blobs),
            ({"$eval": "1"}, []), ({"$int": "1" * 6000}, [])):
        with pytest.raises(wire.ProtocolError):
            wire.decode(broken_tree, broken_blobs)
    deep = None
    for _ in range(100):
        deep = {"$list": [deep]}
    with pytest.raises(wire.ProtocolError):
        wire.decode(deep, [])


# ------------------------------------------------------------------ hostile submissions
# Attempts on array comparisons and on the speed test, graded against Chapter 1 (36 points);
# keyword arguments of grade() per file.
HOSTILE_CH01 = {
    "h05_patch_numpy": {"include_hidden": False},
    "h06_lying_ndarray": {"include_hidden": False},
    "h07_frame_peek": {"include_hidden": False},
    "h16_fake_timer": {"include_hidden": False, "timeout": 300.0},  # its loop takes a while
}
# Attempts that do not depend on the exercise: each file also defines the mini exercise's
# functions, and is graded against it (cheaper); the table in the report of issue 14 grades
# them all against Chapter 1.
HOSTILE_MINI = ("h01_forge_record", "h02_patch_pytest", "h03_exec_solution", "h04_leak_secrets",
                "h09_daemon_rewrites_json", "h10_setsid_holds_stdout", "h11_tamper_files",
                "h12_wrap_rkmlearn", "h18_kill_the_grader", "h20_reads_outside_scratch")


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in HOSTILE_CH01 if n != "h16_fake_timer"])
def test_hostile_array_tricks_score_no_more_than_the_starter(name, graded):
    report = graded(("hostile", name))
    starter = graded((CH01.name, "starter"))
    assert report.max_score == 24 and starter.max_score == 36  # public tests only
    assert report.score <= starter.score == 0, report.format_table()


@pytest.mark.slow
@pytest.mark.parametrize("name", HOSTILE_MINI)
def test_hostile_submission_scores_no_more_than_the_starter(name, graded):
    report = graded(("hostile-mini", name))
    starter = graded(("mini", "starter"))
    assert report.score <= starter.score == 0, report.format_table()
    text = "\n".join(t.message for t in report.tests)
    assert "def add" not in text and "test_add_negative" not in text
    assert "s3cr3t" not in text
    if name == "h04_leak_secrets":
        assert "nothing found" in text
    if name == "h12_wrap_rkmlearn":
        assert all("'rkmlearn.kernels' is not allowed" in t.message for t in report.tests)
    if name == "h20_reads_outside_scratch":
        assert all("reading '/etc/hostname' is not allowed" in t.message for t in report.tests)
    if name in ("h09_daemon_rewrites_json", "h10_setsid_holds_stdout"):
        # The daemon did not hold the grading: no test waited for it until its time ran out.
        assert not any("timed out" in t.message for t in report.tests), report.format_table()


@pytest.mark.slow
def test_faking_the_clock_does_not_buy_the_speed_point(graded):
    results = _by_name(graded(("hostile", "h16_fake_timer")))
    speed = results["public/test_ch01_rbf_gram.py::test_vectorised_2000_points"]
    assert not speed.passed and "CPU time" in speed.message, speed.message
    assert results["public/test_ch01_rbf_gram.py::test_matches_scikit_learn_rbf_kernel"].passed


def test_lying_scalars_arrive_as_plain_numbers():
    report = grade(MINI, HOSTILE / "mini_lying_scalars.py", jobs=1)
    assert report.score == 0


@pytest.mark.timeout(120)  # a hang guard, not a measurement
def test_the_deadline_is_the_judges():
    _add_times_out_once(_grade_mini("push_deadline", timeout=2))


def test_writing_outside_scratch_is_refused_layer_by_layer(tmp_path):
    """A submission that writes into the exercise folder and a decoy: refused by the audit hook,
    and with the hook switched off by Landlock; as root, with both off, by file permissions."""
    decoy = tmp_path / "decoy"
    decoy.mkdir()
    (decoy / "plugin.py").write_text("# decoy\n")
    exercise = _mini_variant()
    attempt = tmp_path / "tamper.py"
    attempt.write_text(
        f"TARGETS = [{str(exercise / 'tests' / 'conftest.py')!r}, {str(decoy / 'plugin.py')!r}]\n"
        + "def add(a, b):\n"
        + "    for path in TARGETS:\n"
        + "        with open(path, 'a') as fh:\n"
        + "            fh.write('import pytest  # planted\\n')\n"
        + "    return a + b\n\n"
        + "def mul(a, b):\n    return a * b\n")
    before = _tree_digest(exercise), _tree_digest(decoy)
    layers = [{}, {"audit": False}]
    if ROOT_USER:
        layers.append({"audit": False, "landlock": False})
    for switched_off in layers:
        results = _by_name(grade(exercise, attempt, jobs=1, _sandbox=switched_off))
        for name in ADD_TESTS:
            assert not results[name].passed
            assert ("grading rules" in results[name].message if not switched_off
                    else "PermissionError" in results[name].message), results[name].message
        assert (_tree_digest(exercise), _tree_digest(decoy)) == before, switched_off
    assert grade(exercise, exercise / "starter.py", jobs=1).score == 0


def test_processes_are_refused_by_default():
    name = _unique_copy(HOSTILE / "mini_daemon.py")
    results = _by_name(grade(MINI, name, jobs=1))
    assert "does not allow starting processes" in results[ADD_TESTS[0]].message
    assert not _processes_mentioning(name.name)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("uid", ["auto", None] if ROOT_USER else ["auto"])
def test_escaped_processes_are_killed_and_do_not_hold_the_grading(uid):
    """Processes allowed: daemons in new sessions (one holding the output pipe) start, and die
    with the test; with processes forbidden, a fork past the audit hook dies the same way."""
    exercise = _mini_variant(processes="yes")
    name = _unique_copy(HOSTILE / "mini_daemon.py")
    # The output drain must not wait for the daemon: the pytest time-out guards that (a hang
    # guard, not a measurement).
    results = _by_name(grade(exercise, name, jobs=1, _sandbox={"uid": uid}))
    assert all(r.passed for r in results.values()), [r.message for r in results.values()]
    assert not _processes_mentioning(name.name)
    escapee = _unique_copy(HOSTILE / "mini_fork_exec_escapee.py")
    results = _by_name(grade(MINI, escapee, jobs=1, _sandbox={"uid": uid}))
    # The hole in the hook is real (_posixsubprocess raises no audit event), and the kernel
    # closes it: no process of its own for a worker of an exercise without processes.
    assert not results[ADD_TESTS[0]].passed
    assert "Error" in results[ADD_TESTS[0]].message, results[ADD_TESTS[0]].message
    assert not _processes_mentioning(escapee.name)


@pytest.mark.skipif(not ROOT_USER, reason="PID namespaces need root here (or user namespaces)")
def test_killing_the_init_kills_every_process_of_the_worker(tmp_path):
    """Daemons in new sessions (processes allowed) die with the init of the worker's PID
    namespace, at once and without any sweep: the runner kills the init on a time-out."""
    from rkmlearn.grading import procs
    from rkmlearn.grading.proxy import Session
    from rkmlearn.grading.sandbox import Policy, Sandbox, SandboxDirs

    name = _unique_copy(HOSTILE / "mini_daemon.py")
    mark = f"RKMLEARN_HOSTILE={name.name}"  # in the daemons' environment only
    dirs = SandboxDirs(name, None)
    policy = Policy(submission=str(dirs.submission), scratch=dirs.scratch("scratch"),
                    processes=True, timeout=60.0)
    sandbox = Sandbox(policy)
    try:
        assert sandbox.layers["pid"].startswith("own namespace"), sandbox.layers
        session = Session(sandbox, policy)
        session.start()
        assert session.call("add", (2, 3), {}) == 5
        deadline = time.monotonic() + 30
        while len(_processes_mentioning(mark)) < 4 and time.monotonic() < deadline:
            time.sleep(0.1)  # two shells, each running sleep
        assert len(_processes_mentioning(mark)) >= 4, "the daemons did not start"
        worker = session.worker
        procs.pidfd_kill(worker.init_pidfd, worker.init)  # the init alone
        assert os.WTERMSIG(worker.wait_exit()) == signal.SIGKILL
        deadline = time.monotonic() + 5
        while _processes_mentioning(mark) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = _processes_mentioning(mark)
        assert not left, f"{len(left)} processes outlived the init"
        session.close()
    finally:
        sandbox.close()
        for pid in _processes_mentioning(mark):
            os.kill(pid, signal.SIGKILL)
        dirs.cleanup()


@pytest.mark.parametrize("uid", ["auto", None] if ROOT_USER else ["auto"])
def test_killing_the_grader_leaves_nothing_alive(tmp_path, uid):
    exercise = _mini_variant(processes="yes")
    attempt = _unique_copy(HOSTILE / "mini_daemon.py")
    source = attempt.read_text().replace("    return a + b\n", "    while True:\n        pass\n", 1)
    attempt.write_text(source)
    code = ("import sys; from rkmlearn.grading import grade; "
            f"grade({str(exercise)!r}, {str(attempt)!r}, jobs=2, timeout=120, "
            f"_sandbox={{'uid': {uid!r}}})")
    judge = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, cwd=tmp_path)
    deadline = time.monotonic() + 120
    while len(_processes_mentioning(f"RKMLEARN_HOSTILE={attempt.name}")) < 2 \
            and time.monotonic() < deadline:
        time.sleep(0.2)  # wait until the daemons run: grading is well under way
    assert _processes_mentioning(attempt.name), "grading did not start"
    judge.send_signal(signal.SIGKILL)
    judge.wait()
    deadline = time.monotonic() + 10
    while _processes_mentioning(attempt.name) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = _processes_mentioning(attempt.name)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"{len(left)} processes of the grading outlived the judge"


def test_concurrent_gradings_do_not_interfere():
    with ThreadPoolExecutor(2) as pool:
        good = pool.submit(grade, MINI, MINI / "solution.py", jobs=1)
        bad = pool.submit(grade, MINI, FIXTURES / "mini_raises.py", jobs=1)
        good, bad = good.result(), bad.result()
    assert (good.score, bad.score) == (5, 2)
    if ROOT_USER:
        assert good.sandbox["uid"] != bad.sandbox["uid"]
