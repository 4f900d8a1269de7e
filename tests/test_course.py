"""The course workflow: exercise notebooks, hand-outs, check() from a notebook, batch grading.

One source per exercise (``chNN_exercises.ipynb``): solution.py and starter.py are generated from
it and checked to be in sync; the hand-out never holds a solution; a submitted notebook is graded
by its definitions; ``check("f")`` grades one function from a running kernel; ``batch`` grades a
class, one judge process per submission, and writes marks.csv, feedback and results.json.
"""
from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rkmlearn.grading import GradingError, check, grade
from rkmlearn.grading.batch import find_submissions, grade_batch
from rkmlearn.grading.self_check import local_check
from rkmlearn.grading.sources import parse_python  # gradings parse in threads meanwhile
from rkmlearn.grading.notebook import (definitions_only, exercise_module, read_notebook,
                                       remove_markers, strip_solutions, student_notebook,
                                       submission_module, sync_exercise)

ROOT = Path(__file__).resolve().parents[1]
EXERCISES = sorted(p for p in (ROOT / "exercises").iterdir() if (p / "tests").is_dir())
CH01 = ROOT / "exercises" / "ch01_kernels"
FIXTURES = Path(__file__).resolve().parent / "grading_fixtures"
MINI = FIXTURES / "mini_exercise"
HOSTILE = FIXTURES / "hostile"


# ------------------------------------------------------------------ one source
@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda p: p.name)
def test_every_exercise_has_a_notebook_and_its_py_files_are_in_sync(exercise):
    assert sync_exercise(exercise, check=True) == [], \
        f"run python -m rkmlearn.grading sync {exercise.relative_to(ROOT)}"


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda p: p.name)
def test_student_notebook_holds_no_solution_line(exercise):
    nb = read_notebook(next(exercise.glob("*_exercises.ipynb")))
    solution_lines = set()
    for cell in nb["cells"]:
        src = "".join(cell["source"])
        if "### BEGIN SOLUTION" in src:
            solution_lines |= {ln.strip() for ln in remove_markers(src).splitlines()} - \
                {ln.strip() for ln in strip_solutions(src).splitlines()}
    solution_lines = {ln for ln in solution_lines if len(ln) > 12 and not ln.startswith("#")}
    assert len(solution_lines) > 5
    handout = json.dumps(student_notebook(nb))
    leaked = [ln for ln in solution_lines if ln in handout]
    assert not leaked, leaked[:5]
    assert "BEGIN SOLUTION" not in handout
    statement = [c for c in nb["cells"] if c["cell_type"] == "markdown"]
    checks = [c for c in nb["cells"] if "check" in c["metadata"].get("tags", [])]
    assert statement and len(checks) >= 2


def test_strip_and_markers():
    src = ("import numpy as np\n### BEGIN SOLUTION\ndef _h(x):\n    return x\n### END SOLUTION\n\n"
           "def f(x):\n    \"\"\"Doc.\"\"\"\n    ### BEGIN SOLUTION\n    return _h(x) + 1\n"
           "    ### END SOLUTION\n")
    starter = strip_solutions(src)
    assert 'raise NotImplementedError("f: write your implementation here")' in starter
    assert "_h" not in starter and "# YOUR CODE HERE" in starter
    ns = {}
    exec(remove_markers(src), ns)
    assert ns["f"](1) == 2
    exec(starter, ns := {})
    with pytest.raises(NotImplementedError, match="f: write"):
        ns["f"](1)
    for bad in ("### END SOLUTION\n", "### BEGIN SOLUTION\nx = 1\n",
                "### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION\n"):
        with pytest.raises(GradingError, match="SOLUTION"):
            strip_solutions(bad)


def test_submitted_notebook_is_graded_by_its_definitions():
    cells = ["import numpy as np\nfrom rkmlearn.grading import check", "%matplotlib inline\n"
             "def add(a, b):\n    return np.add(a, b)", "print(add(1, 2))\nraise RuntimeError",
             "def broken(:", "SCALE = 2\nscratch = add(1, 1)\n!ls", "def add(a, b):\n    return a + b"]
    source, notes = definitions_only(cells)
    tree = parse_python(source)
    kinds = [type(n).__name__ for n in tree.body]
    assert kinds == ["Import", "FunctionDef", "Assign", "FunctionDef"], kinds
    assert "rkmlearn" not in source and "scratch" not in source and "print" not in source
    assert len(notes) == 1 and "syntax error" in notes[0]
    ns = {}
    exec(source, ns)
    assert ns["add"](1, 2) == 3 and ns["SCALE"] == 2  # the later definition wins


def test_exercise_module_needs_tagged_cells():
    with pytest.raises(GradingError, match="exercise-setup"):
        exercise_module({"nbformat": 4, "cells": []}, solutions=True)


def test_read_notebook_rejects_what_is_not_a_notebook(tmp_path):
    (tmp_path / "a.ipynb").write_text("not json")
    with pytest.raises(GradingError, match="not valid notebook JSON"):
        read_notebook(tmp_path / "a.ipynb")
    (tmp_path / "b.ipynb").write_text(json.dumps({"nbformat": 3, "cells": []}))
    with pytest.raises(GradingError, match="nbformat-4"):
        read_notebook(tmp_path / "b.ipynb")


# ------------------------------------------------------------------ release
def test_release_writes_the_handout_and_nothing_secret(tmp_path):
    out = tmp_path / "handout"
    done = subprocess.run([sys.executable, "-m", "rkmlearn.grading", "release", str(CH01),
                           str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert "ch01_exercises.ipynb" in files and "starter.py" in files and "README.md" in files
    assert any(f.startswith("tests/public/") for f in files)
    assert not any(f.startswith(("solution", "tests/hidden")) for f in files), files
    nb = read_notebook(out / "ch01_exercises.ipynb")
    assert all(c.get("outputs", []) == [] for c in nb["cells"] if c["cell_type"] == "code")
    assert (out / "starter.py").read_text() == (CH01 / "starter.py").read_text()
    again = subprocess.run([sys.executable, "-m", "rkmlearn.grading", "release", str(CH01),
                            str(out)], capture_output=True, text=True)
    assert again.returncode == 2 and "not an empty folder" in again.stderr


def test_sync_command_reports_stale_files(tmp_path):
    ex = tmp_path / "ex"
    shutil.copytree(MINI, ex)
    shutil.copy(CH01 / "ch01_exercises.ipynb", ex / "ch01_exercises.ipynb")
    cmd = [sys.executable, "-m", "rkmlearn.grading", "sync", str(ex), "--check"]
    assert subprocess.run(cmd, capture_output=True).returncode == 1
    assert subprocess.run(cmd[:-1], capture_output=True).returncode == 0
    assert subprocess.run(cmd, capture_output=True).returncode == 0
    assert (ex / "solution.py").read_text() == (CH01 / "solution.py").read_text()


# ------------------------------------------------------------------ one function, notebook
def test_grade_one_function_of_a_notebook():
    report = grade(CH01, CH01 / "ch01_exercises.ipynb", include_hidden=False,
                   function="center_train_test", jobs=1)
    assert report.tests and report.score == report.max_score
    assert all("centering" in t.name for t in report.tests)
    with pytest.raises(GradingError, match="no test of this exercise calls nope"):
        grade(CH01, CH01 / "solution.py", function="nope")


def test_check_in_a_running_kernel(tmp_path):
    """A student's notebook session: the first answer is wrong, re-running the cell fixes it."""
    nbclient = pytest.importorskip("nbclient")
    nbformat = pytest.importorskip("nbformat")
    handout = tmp_path / "mini"
    shutil.copytree(MINI, handout)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in (
        "from rkmlearn.grading import check",
        "def add(a, b):\n    return a - b",
        "r1 = check('add'); r1",
        "def add(a, b):\n    return a + b",
        "r2 = check('add')\nprint(r1.report.score, r2.report.score, r2.report.max_score)")]
    env_path = os.environ.get("PYTHONPATH", "")
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(handout)}})
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env_path]))
    try:
        client.execute()
    finally:
        os.environ["PYTHONPATH"] = env_path
    first, fixed, top = map(float, nb.cells[-1].outputs[-1]["text"].split())
    assert first == 0 < fixed == top
    html = nb.cells[2].outputs[0]["data"]["text/html"]
    assert "<table>" in html and "FAIL" not in html and "&#10008;" in html


def test_local_check_grades_with_points_unsandboxed():
    report = local_check(MINI, MINI / "solution.py", function="add")
    assert report.tests and report.score == report.max_score
    assert "not sandboxed" in report.sandbox["sandbox"]
    bad = local_check(MINI, MINI / "starter.py")
    assert bad.score == 0 and all(not t.passed for t in bad.tests)


# ------------------------------------------------------------------ batch
def test_find_submissions_refuses_links_and_renames_odd_names(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(MINI / "solution.py", subs / "alice.py")
    (subs / "bob").mkdir()
    shutil.copy(MINI / "starter.py", subs / "bob" / "anything.py")
    (subs / "carol.py").symlink_to(MINI / "solution.py")
    shutil.copy(MINI / "solution.py", subs / "d\x1b[2Jave.py")
    (subs / "notes.txt").write_text("ignored")
    found = {s.student: s for s in find_submissions(subs)}
    assert set(found) == {"alice", "bob", "carol", "d__2Jave"}
    assert found["alice"].problem is None and found["bob"].path.name == "anything.py"
    assert "symbolic link" in found["carol"].problem
    # An odd name is graded under a safe one; its escape never reaches a file or the terminal.
    assert found["d__2Jave"].problem is None and "\x1b" not in found["d__2Jave"].name


@pytest.mark.slow
def test_batch_writes_marks_feedback_and_results(tmp_path):
    """Chapter 1's class: solution, starter, the notebook, two hostile fixtures and a link."""
    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(CH01 / "solution.py", subs / "ada.py")
    shutil.copy(CH01 / "starter.py", subs / "bo.py")
    shutil.copy(CH01 / "ch01_exercises.ipynb", subs / "cy.ipynb")
    shutil.copy(HOSTILE / "h18_kill_the_grader.py", subs / "eve.py")
    shutil.copy(HOSTILE / "h05_patch_numpy.py", subs / "mal.py")
    (subs / "lnk.py").symlink_to(CH01 / "solution.py")
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "rkmlearn.grading", "batch", str(CH01),
                           str(subs), "--out", str(out), "--jobs", "2"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    with open(out / "marks.csv", newline="") as fh:
        rows = {r["id"]: r for r in csv.DictReader(fh)}
    assert set(rows) == {"ada", "bo", "cy", "eve", "mal", "lnk"}
    top = float(rows["ada"]["max_score"])
    assert top > 30
    assert float(rows["ada"]["total"]) == float(rows["cy"]["total"]) == top
    assert float(rows["bo"]["total"]) == float(rows["eve"]["total"]) == 0
    assert float(rows["mal"]["total"]) == 0
    assert rows["lnk"]["status"].startswith("not graded") and rows["lnk"]["total"] == "0"
    with open(out / "tests.csv", newline="") as fh:
        per_test = {r["id"]: r for r in csv.DictReader(fh)}
    tests = [k for k in per_test["ada"] if k.startswith(("public/", "hidden/"))]
    assert len(tests) > 20 and sum(float(per_test["ada"][t]) for t in tests) == top
    functions = [k for k in rows["ada"] if " (of " in k]
    assert len(functions) == 4 and sum(float(rows["ada"][f]) for f in functions) == top
    for student in ("ada", "bo", "cy", "eve", "mal"):
        assert rows[student]["status"] == "graded"
        results = json.loads((out / "results" / student / "results.json").read_text())
        assert results["score"] == float(rows[student]["total"])
    feedback = (out / "feedback" / "bo.txt").read_text()
    assert "NotImplementedError" in feedback and "Visible tests: 0/" in feedback
    assert (out / "feedback" / "lnk.txt").read_text().count("symbolic link") == 1


@pytest.mark.slow
@pytest.mark.parametrize("exercise", [e for e in EXERCISES if e.name != "ch01_kernels"],
                         ids=lambda p: p.name)
def test_batch_of_every_exercise_gives_solution_full_and_starter_zero(exercise, tmp_path):
    """The other nine exercises: the reference solution and the starter as two students."""
    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(exercise / "solution.py", subs / "sol.py")
    shutil.copy(exercise / "starter.py", subs / "start.py")
    rows = {r.student: r for r in grade_batch(exercise, subs, tmp_path / "out", jobs=2)}
    assert rows["sol"].status == rows["start"].status == "graded"
    top = rows["sol"].report.max_score
    assert top > 0 and rows["sol"].report.score == top and rows["start"].report.score == 0
    with open(tmp_path / "out" / "marks.csv", newline="") as fh:
        marks = {r["id"]: r for r in csv.DictReader(fh)}
    assert float(marks["sol"]["total"]) == top and float(marks["start"]["total"]) == 0


def test_batch_refuses_a_used_output_folder(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "marks.csv").write_text("old")
    (tmp_path / "subs").mkdir()
    shutil.copy(MINI / "solution.py", tmp_path / "subs" / "a.py")
    with pytest.raises(GradingError, match="no 'id' column"):
        grade_batch(MINI, tmp_path / "subs", tmp_path / "out")
    (tmp_path / "out" / "marks.csv").unlink()
    (tmp_path / "out" / "other.txt").write_text("old")
    with pytest.raises(GradingError, match="not empty"):
        grade_batch(MINI, tmp_path / "subs", tmp_path / "out")
