"""Self-check of the autograder (rkmlearn.grading) and of every exercise under exercises/.

For every exercise: the reference solution scores 100 %, the starter scores exactly 0 (so every
test can fail) and a deliberately half-wrong submission scores strictly in between. The grader's
robustness is checked on a tiny exercise (tests/grading_fixtures/mini_exercise) whose processes
start fast, against submissions that hang in C code, exit, crash, fail to import, raise or print
megabytes.
"""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rkmlearn.grading import (GradeReport, GradingError, collect_tests, grade, student_copy,
                              validate_results)
from rkmlearn.grading.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXERCISES = sorted(p for p in (ROOT / "exercises").iterdir() if (p / "tests").is_dir())
FIXTURES = ROOT / "tests" / "grading_fixtures"
MINI = FIXTURES / "mini_exercise"


def _half_wrong(exercise: Path) -> Path:
    """tests/grading_fixtures/<chapter prefix>_half_wrong.py, e.g. ch01_half_wrong.py."""
    return FIXTURES / f"{exercise.name.split('_')[0]}_half_wrong.py"


def _by_name(report: GradeReport) -> dict:
    return {t.name: t for t in report.tests}


def test_there_are_exercises():
    assert EXERCISES, "no exercise folder with a tests/ folder under exercises/"


# ------------------------------------------------------------------ every exercise
@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda p: p.name)
def test_exercise_layout(exercise):
    for name in ("README.md", "starter.py", "solution.py", "conftest.py", "pytest.ini"):
        assert (exercise / name).is_file(), f"{exercise.name} lacks {name}"
    assert list((exercise / "tests" / "public").glob("test_*.py")), "no public tests"
    assert list((exercise / "tests" / "hidden").glob("test_*.py")), "no hidden tests"
    assert _half_wrong(exercise).is_file(), f"missing fixture {_half_wrong(exercise).name}"
    tests = collect_tests(exercise)
    assert all(t.marked for t in tests), "every exercise test must carry @pytest.mark.points"
    assert {t.hidden for t in tests} == {False, True}


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda p: p.name)
def test_exercise_conftest_is_the_shared_template(exercise):
    """Every exercise ships its own conftest.py, because a student copy of one folder must run on its
    own; the copies are one template (ch01's, with the folder name swapped) and must not drift."""
    template = (ROOT / "exercises" / "ch01_kernels" / "conftest.py").read_text()
    own = (exercise / "conftest.py").read_text()
    assert own.replace(exercise.name, "ch01_kernels") == template, (
        f"{exercise.name}/conftest.py differs from exercises/ch01_kernels/conftest.py; copy the template"
    )


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda p: p.name)
def test_solution_scores_full_marks(exercise):
    report = grade(exercise, exercise / "solution.py")
    failed = [f"{t.name}: {t.message}" for t in report.tests if not t.passed]
    assert not failed, "\n".join(failed)
    assert report.score == report.max_score > 0 and report.percent == 100.0


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda p: p.name)
def test_starter_scores_zero(exercise):
    report = grade(exercise, exercise / "starter.py")
    passed = [t.name for t in report.tests if t.passed]
    assert not passed, f"tests that the unimplemented starter passes: {passed}"
    assert report.score == 0
    assert all("NotImplementedError" in t.message for t in report.tests), \
        [t.message for t in report.tests]


# What each half-wrong fixture gets wrong: every test it fails must contain this in its name.
HALF_WRONG_FAILS_ONLY = {
    "ch01_kernels": "centering",
    "ch02_primal_dual": "primal",
    "ch03_rescaling": "impute",
    "ch04_stiefel_rotation": "sign",
    "ch05_imputation": "dual",
    "ch06_ppca": "sigma2_ml",
    "ch07_sampling": "smoother",
}


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda p: p.name)
def test_half_wrong_submission_scores_in_between(exercise):
    report = grade(exercise, _half_wrong(exercise))
    assert 0 < report.score < report.max_score, report.format_table()
    failed = {t.name for t in report.tests if not t.passed}
    needle = HALF_WRONG_FAILS_ONLY.get(exercise.name, "")
    assert all(needle in name for name in failed), failed


# ------------------------------------------------------------------ robustness (mini exercise)
def _grade_mini(name: str, **kwargs) -> dict:
    return _by_name(grade(MINI, FIXTURES / f"mini_{name}.py", **kwargs))


ADD_TESTS = ("public/test_mini.py::test_add", "hidden/test_mini_hidden.py::test_add_negative")
MUL_TESTS = ("public/test_mini.py::test_mul", "public/test_mini.py::test_mul_unmarked")


def _only_add_fails(results: dict, needle: str) -> None:
    for name in ADD_TESTS:
        assert not results[name].passed and results[name].score == 0
        assert needle in results[name].message, results[name].message
    for name in MUL_TESTS:  # the process was replaced: the tests after the culprit still run
        assert results[name].passed, results[name].message


def test_mini_solution_and_points():
    report = grade(MINI, MINI / "solution.py")
    assert report.score == report.max_score == 5  # 2 + 1 + 1 (unmarked) + 1 (hidden)
    assert report.summary() == "Score: 5/5 (100.0 %)"
    assert [t.name for t in report.tests][-1].startswith("hidden/"), "hidden tests come last"
    starter = grade(MINI, MINI / "starter.py", include_hidden=False)
    assert starter.summary() == "Score: 0/4 (0.0 %)"


def test_infinite_loop_in_c_times_out():
    _only_add_fails(_grade_mini("loop_in_c", timeout=3), "timed out after 3 s")


def test_sys_exit_inside_a_function():
    _only_add_fails(_grade_mini("exit_in_function"), "sys.exit(0)")


def test_os_exit_inside_a_function_in_both_isolation_modes():
    _only_add_fails(_grade_mini("os_exit"), "exited with code 0")
    _only_add_fails(_grade_mini("os_exit", isolation="test"), "exited with code 0")


def test_segfault():
    _only_add_fails(_grade_mini("segfault"), "SIGSEGV")


def test_raising_function_names_the_exception_and_line():
    _only_add_fails(_grade_mini("raises"), "RuntimeError: boom in add (raised at mini_raises.py:2)")


@pytest.mark.parametrize("name, needle", [
    ("exit_at_import", "calls sys.exit(0) at import time"),
    ("import_error", "ModuleNotFoundError: No module named 'a_module_that_does_not_exist'"),
])
def test_submission_that_cannot_be_imported_scores_zero(name, needle):
    results = _grade_mini(name)
    for result in results.values():
        assert result.score == 0 and "submission failed to import" in result.message
        assert needle in result.message, result.message


def test_megabytes_of_output_do_not_hurt():
    results = _grade_mini("prints_megabytes")
    assert all(r.passed for r in results.values())


# ------------------------------------------------------------------ command line and JSON
def test_cli_json_round_trip(tmp_path, capsys):
    out = tmp_path / "results.json"
    assert main([str(MINI), str(FIXTURES / "mini_raises.py"), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Score: 2/5 (40.0 %)" in printed and "boom in add" in printed
    data = json.loads(out.read_text())
    validate_results(data)
    assert set(data) >= {"score", "max_score", "tests", "execution_time"}
    assert (data["score"], data["max_score"]) == (2, 5)
    for test in data["tests"]:
        assert set(test) >= {"name", "score", "max_score", "output", "visibility"}
        expected = "after_due_date" if test["name"].startswith("hidden/") else "visible"
        assert test["visibility"] == expected
    assert GradeReport.from_gradescope(data).to_gradescope() == data


@pytest.mark.parametrize("broken", [
    lambda d: d.pop("tests"),
    lambda d: d.update(score=99),
    lambda d: d["tests"][0].update(visibility="sometimes"),
    lambda d: d["tests"][0].update(score=-1),
    lambda d: d["tests"][0].pop("name"),
])
def test_validate_results_rejects_malformed_json(broken):
    data = grade(MINI, MINI / "solution.py", include_hidden=False).to_gradescope()
    validate_results(data)
    broken(data)
    with pytest.raises(ValueError):
        validate_results(data)


def test_module_entry_point_exits_zero_whatever_the_score():
    result = subprocess.run([sys.executable, "-m", "rkmlearn.grading", str(MINI),
                             str(MINI / "starter.py"), "--no-hidden"],
                            capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "Score: 0/4 (0.0 %)" in result.stdout


@pytest.mark.parametrize("args, needle", [
    (["no/such/exercise", "x.py"], "does not exist"),
    ([str(MINI), "no_such_submission.py"], "does not exist"),
    ([str(MINI), str(MINI / "README.md")], "not a .py file"),
    ([str(MINI / "tests")], None),  # missing argument: argparse's own usage error
    ([str(MINI), str(MINI / "solution.py"), "--json", "no/such/folder/out.json"], "--json"),
    ([str(MINI), str(MINI / "solution.py"), "--timeout", "0"], "timeout"),
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


def test_broken_points_marker_and_collection_errors_are_instructor_errors(tmp_path):
    exercise = tmp_path / "ex"
    (exercise / "tests" / "public").mkdir(parents=True)
    (exercise / "conftest.py").write_text((MINI / "conftest.py").read_text())
    test_file = exercise / "tests" / "public" / "test_x.py"
    test_file.write_text("import pytest\n\n@pytest.mark.points('two')\ndef test_a():\n    pass\n")
    with pytest.raises(GradingError, match="non-negative number"):
        collect_tests(exercise)
    test_file.write_text("def test_a(:\n")
    with pytest.raises(GradingError, match="collecting"):
        collect_tests(exercise)


# ------------------------------------------------------------------ student copy
def test_student_copy_leaves_out_solution_and_hidden_tests(tmp_path):
    for exercise in EXERCISES + [MINI]:
        out = tmp_path / exercise.name
        files = student_copy(exercise, out)
        assert "starter.py" in files and "README.md" in files and "conftest.py" in files
        assert not any(f.startswith("solution") or f.startswith("tests/hidden") for f in files)
        assert any(f.startswith("tests/public/test_") for f in files)
        assert not (out / "tests" / "hidden").exists() and not (out / "solution.py").exists()
    with pytest.raises(GradingError, match="not an empty folder"):
        student_copy(MINI, tmp_path / MINI.name)
    # The copy grades on its own: public tests only.
    report = grade(tmp_path / MINI.name, FIXTURES / "mini_raises.py")
    assert report.summary() == "Score: 2/4 (50.0 %)"


def test_student_copy_via_cli(tmp_path, capsys):
    assert main(["--student-copy", str(MINI), str(tmp_path / "copy")]) == 0
    assert (tmp_path / "copy" / "starter.py").is_file()
    assert not (tmp_path / "copy" / "solution.py").exists()


# ------------------------------------------------------------------ independence
def test_grading_imports_only_stdlib_and_pytest():
    allowed = set(sys.stdlib_module_names) | {"pytest", "_pytest"}
    for path in (ROOT / "rkmlearn" / "grading").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in allowed, f"{path.name} imports {name}"
