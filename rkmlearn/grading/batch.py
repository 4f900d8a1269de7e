"""Grade a whole class: ``python -m rkmlearn.grading batch EXERCISE SUBMISSIONS --out DIR``.

``SUBMISSIONS`` holds one submission per student: a file ``NAME.py`` or ``NAME.ipynb``, or a
folder ``NAME/`` with exactly one such file (the layout an LMS export or Gradescope's
"download all" gives after unzipping). Each is graded by its own judge process (the same
``python -m rkmlearn.grading`` as for one file, in the same sandbox), so whatever a submission
does it can only spoil its own row; ``--jobs`` judges run at a time. ``DIR`` receives

* ``marks.csv``: one row per student: the points of every test, the total, the maximum, and a
  status (``graded`` or ``grading failed: <reason>``);
* ``feedback/NAME.txt``: the student's table (every test, points, what failed) and score;
* ``results/NAME/results.json``: the Gradescope-format results of that submission.
"""
from __future__ import annotations

import csv
import json
import os
import re
import stat
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from . import procs
from .errors import GradingError
from .report import GradeReport, printable

__all__ = ["Submission", "find_submissions", "grade_batch", "BatchResult"]

SUFFIXES = (".py", ".ipynb")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


@dataclass
class Submission:
    """One student's submission: their name and file (or why it cannot be graded)."""

    student: str
    path: Path | None
    problem: str | None = None


@dataclass
class BatchResult:
    """One row of ``marks.csv``."""

    student: str
    status: str
    report: GradeReport | None = None
    seconds: float = 0.0
    scores: dict = field(default_factory=dict)


def _regular_file(path: Path) -> str | None:
    """Why ``path`` is not a plain file we may grade, or None."""
    try:
        info = os.lstat(path)
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link; submit the file itself"
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file"
    return None


def find_submissions(folder) -> list[Submission]:
    """The submissions in ``folder``, one per student, sorted by student name."""
    folder = Path(folder)
    if not folder.is_dir():
        raise GradingError(f"SUBMISSIONS {str(folder)!r} is not a folder; pass the folder that "
                           "holds one .py/.ipynb file (or one folder) per student")
    found: dict[str, Submission] = {}
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_dir() and not entry.is_symlink():
            student = entry.name
            files = sorted(p for p in entry.iterdir() if p.suffix in SUFFIXES
                           and not p.name.startswith("."))
            if len(files) != 1:
                sub = Submission(student, None, f"the folder holds {len(files)} .py/.ipynb files; "
                                                "exactly one is graded")
            else:
                sub = Submission(student, files[0])
        elif entry.suffix in SUFFIXES:
            sub = Submission(entry.stem, entry)
        else:
            continue
        if not _NAME.fullmatch(sub.student):
            shown = printable(sub.student)[:60]
            sub = Submission(re.sub(r"[^A-Za-z0-9._-]", "_", sub.student)[:100] or "unnamed",
                             None, f"the name {shown!r} has characters other than letters, "
                                   "digits, '.', '_' and '-'; rename it")
        if sub.path is not None and sub.problem is None:
            why = _regular_file(sub.path)
            if why:
                sub = Submission(sub.student, None, f"{sub.path.name} {why}")
        if sub.student in found:
            sub = Submission(sub.student, None, "two submissions for the same student")
        found[sub.student] = sub
    return [found[k] for k in sorted(found)]


def _grade_one(exercise: Path, sub: Submission, out: Path, timeout: float,
               hidden: bool) -> BatchResult:
    started = time.monotonic()
    if sub.problem is not None:
        return BatchResult(sub.student, f"not graded: {sub.problem}")
    results = out / "results" / sub.student
    results.mkdir(parents=True, exist_ok=True)
    json_path = results / "results.json"
    cmd = [sys.executable, "-m", "rkmlearn.grading", str(exercise), str(sub.path),
           "--json", str(json_path), "--timeout", f"{timeout:g}", "--jobs", "1",
           "--hidden" if hidden else "--no-hidden"]
    # Its own judge process: a crash, a hang or a flood of output spoils this row only.
    limit = 600 + 100 * timeout  # far beyond any honest grading: a judge that hangs
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=limit,
                              stdin=subprocess.DEVNULL, errors="replace",
                              env=procs.with_grader_path(dict(os.environ)))
    except subprocess.TimeoutExpired:
        return BatchResult(sub.student, f"grading failed: no result after {limit:g} s",
                           seconds=time.monotonic() - started)
    seconds = time.monotonic() - started
    if done.returncode != 0 or not json_path.is_file():
        last = [ln for ln in done.stderr.splitlines() if ln.strip()][-1:] or ["no message"]
        return BatchResult(sub.student, "grading failed: " + printable(last[0])[:300],
                           seconds=seconds)
    report = GradeReport.from_gradescope(json.loads(json_path.read_text(encoding="utf-8")),
                                         exercise=str(exercise), submission=str(sub.path))
    return BatchResult(sub.student, "graded", report, seconds,
                       {t.name: t.score for t in report.tests})


def _feedback(result: BatchResult, exercise: Path) -> str:
    head = f"Exercise {exercise.name}, submission of {result.student}\n\n"
    if result.report is None:
        return head + result.status + "\n"
    # The table's names and messages are escaped already (report.printable): no terminal
    # escape sequence from the student's code reaches the file.
    return head + result.report.format_table(width=100) + "\n"


def grade_batch(exercise_dir, submissions_dir, out_dir, *, jobs: int = 2,
                timeout: float = 30.0, hidden: bool = True) -> list[BatchResult]:
    """Grade every submission of ``submissions_dir``; write marks.csv, feedback and results.

    Returns the rows of ``marks.csv``, sorted by student.
    """
    if not sys.platform.startswith("linux"):
        raise GradingError("batch grading grades other people's code, which needs the sandbox "
                           "(Linux); the unsandboxed local check is for one's own code only")
    exercise = Path(exercise_dir).resolve()
    if not (exercise / "tests").is_dir():
        raise GradingError(f"EXERCISE {str(exercise_dir)!r} is not an exercise folder (no tests/)")
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise GradingError(f"--jobs must be a positive integer, got {jobs!r}")
    subs = find_submissions(submissions_dir)
    if not subs:
        raise GradingError(f"no .py or .ipynb submission in {str(submissions_dir)!r}")
    out = Path(out_dir)
    if out.exists() and any(out.iterdir()):
        raise GradingError(f"--out {str(out_dir)!r} is not empty; choose a new folder so that "
                           "no earlier marks are overwritten")
    (out / "feedback").mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        rows = list(pool.map(lambda s: _grade_one(exercise, s, out, timeout, hidden), subs))
    tests = []
    for row in rows:
        for name in row.scores:
            if name not in tests:
                tests.append(name)
    top = next((r.report.max_score for r in rows if r.report is not None), None)
    with open(out / "marks.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["student", *tests, "total", "max_score", "status"])
        for row in rows:
            total = sum(row.scores.values()) if row.report is not None else 0.0
            writer.writerow([row.student, *(f"{row.scores[t]:g}" if t in row.scores else ""
                                            for t in tests),
                             f"{total:g}", "" if top is None else f"{top:g}", row.status])
    for row in rows:
        (out / "feedback" / f"{row.student}.txt").write_text(_feedback(row, exercise),
                                                              encoding="utf-8")
    return rows
