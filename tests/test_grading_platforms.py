"""Issue 31, the platform half: the unsandboxed local check (the path macOS and Windows take)
over every exercise, a notebook graded locally, and the Gradescope zip run in a fake
``/autograder`` (a separate file from tests/test_grading_course.py, so that pytest-xdist's
``--dist loadfile`` runs the two halves side by side).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import sys
import subprocess
import zipfile
from pathlib import Path

import pytest

from rkmlearn.grading import validate_results
from rkmlearn.grading.self_check import LocalCheckFailed, check, local_check
from rkmlearn.grading.cli import main
from rkmlearn.grading.notebook import write_notebook

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "grading_fixtures"))
from students import students  # noqa: E402 - the fixtures' folder, put on the path above

CH01 = ROOT / "exercises" / "ch01_kernels"
MINI = ROOT / "tests" / "grading_fixtures" / "mini_exercise"
EXERCISES = sorted(p for p in (ROOT / "exercises").iterdir() if (p / "tests").is_dir())
# Each test checks on its own: each is a unit of work of its own for pytest-xdist (tests/conftest.py).
XDIST_SPLIT = True


# ------------------------------------------------------------------ 2. every platform
def _local_marks(exercise: Path) -> tuple:
    solution = local_check(exercise, exercise / "solution.py")
    starter = local_check(exercise, exercise / "starter.py")
    return solution.score, solution.max_score, starter.score


@pytest.mark.slow
@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda p: p.name)
def test_local_check_solution_full_starter_zero_everywhere(exercise, monkeypatch):
    """The path macOS and Windows take (no sandbox), over every exercise (one test each: the 26
    checks were one test of minutes, which pytest-xdist could not spread over its workers)."""
    monkeypatch.setattr(sys, "platform", "darwin")
    score, top, starter = _local_marks(exercise)
    assert top > 0 and score == top and starter == 0, (exercise.name, score, top, starter)


def test_check_takes_the_local_path_off_linux(monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    result = check("rbf_gram", exercise=CH01, submission=CH01 / "solution.py")
    assert result.local and result.passed and "NOT SANDBOXED" in repr(result)


@pytest.mark.slow
def test_local_check_grades_a_notebook(tmp_path):
    nb = students(CH01)["dave"]
    write_notebook(nb, tmp_path / "dave.ipynb")
    report = local_check(CH01, tmp_path / "dave.ipynb", timeout=3)
    assert report.notes and "syntax error" in report.notes[0]
    messages = {t.name: t.message for t in report.tests}
    assert any(m.startswith("timed out in kpca_eig()") for m in messages.values())
    assert sum(m.startswith("timed out") for m in messages.values()) == 1
    assert 0 < report.score < report.max_score


def test_local_command_exits_non_zero_when_pytest_fails(tmp_path, capsys):
    broken = tmp_path / "mini"
    shutil.copytree(MINI, broken)
    (broken / "tests" / "public" / "test_broken.py").write_text("def test_x(:\n")
    with pytest.raises(LocalCheckFailed):
        local_check(broken, broken / "solution.py")
    assert main(["local", str(broken), str(broken / "solution.py")]) == 3


# ------------------------------------------------------------------ 4. Gradescope
GRADESCOPE_TEST_KEYS = {"score", "max_score", "status", "name", "name_format", "number",
                        "output", "output_format", "tags", "visibility", "extra_data"}
GRADESCOPE_KEYS = {"score", "execution_time", "output", "output_format", "test_output_format",
                   "test_name_format", "visibility", "stdout_visibility", "extra_data", "tests",
                   "leaderboard", "max_score"}


@pytest.mark.slow
def test_gradescope_zip_runs_in_a_fake_autograder(tmp_path):
    out = tmp_path / "ch01_autograder.zip"
    assert main(["gradescope", str(CH01), str(out)]) == 0
    with zipfile.ZipFile(out) as archive:
        names = archive.namelist()
        modes = {i.filename: i.external_attr >> 16 for i in archive.infolist()}
        setup = archive.read("setup.sh").decode()
        assert archive.read("requirements.txt") == (ROOT / "requirements.txt").read_bytes()
        root = tmp_path / "autograder"
        archive.extractall(root / "source")
    assert {"setup.sh", "run_autograder", "requirements.txt"} <= set(names)
    assert any(re.fullmatch(r"rkmlearn-.*\.whl", n) for n in names)
    assert "ch01_kernels/tests/hidden/test_ch01_hidden.py" in names
    assert not any("solution" in n for n in names)
    assert modes["run_autograder"] & 0o111 and "-c requirements.txt" in setup
    (root / "submission").mkdir()
    write_notebook(students(CH01)["alice"], root / "submission" / "ch01_exercises.ipynb")
    done = subprocess.run(["bash", str(root / "source" / "run_autograder")], capture_output=True,
                          text=True, env={**os.environ, "AUTOGRADER": str(root),
                                          "RKMLEARN_PYTHON": sys.executable,
                                          "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads((root / "results" / "results.json").read_text())
    validate_results(data)
    assert set(data) <= GRADESCOPE_KEYS and all(set(t) <= GRADESCOPE_TEST_KEYS
                                                for t in data["tests"])
    assert {t["status"] for t in data["tests"]} == {"passed"}
    assert data["score"] == data["max_score"] == 36
