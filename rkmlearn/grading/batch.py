"""Grade a whole class: ``python -m rkmlearn.grading batch EXERCISE SUBMISSIONS --out DIR``.

``SUBMISSIONS`` is a folder as an LMS exports it, unzipped (Moodle, Canvas, Blackboard: their
file names are read by :mod:`rkmlearn.grading.lms`), or one ``NAME.py``, ``NAME.ipynb`` or
``NAME/`` folder (with one such file) per student. An optional roster CSV maps the export's names
to student ids. Each submission is graded by its own judge process (the same ``python -m
rkmlearn.grading`` as for one file, in the same sandbox), so whatever a submission does it can
only spoil its own row; ``--jobs`` judges run at a time, and a progress bar says how far it is.
``DIR`` receives

* ``marks.csv``: one row per student: ``id``, ``name``, the points per exercise function, the
  automatic total, ``manual`` (points entered by hand, e.g. for written answers: kept when
  grading again), ``total``, ``max_score``, with ``--due`` the submission time, late days and
  penalty and the ``final`` mark, and a ``status``;
* ``tests.csv``: the points of every test, one row per student;
* ``feedback/ID.txt``: what the student may see (``--show visible`` before the due date: the
  visible tests only; ``--show hidden`` after it: every test), whole messages, notes on cells
  left out;
* ``results/ID/results.json``: the Gradescope-format results of that submission;
* ``written/qN.html``: one review page per written-answer question (:mod:`.written`).

An existing ``DIR`` (one with a ``marks.csv``) is updated: ``--only`` regrades the students it
names, the others keep their rows; the ``manual`` column is kept for everyone.
"""
from __future__ import annotations

import csv
import json
import math
import os
import re
import stat
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from . import procs
from .errors import GradingError
from .lms import ExportEntry, LatePolicy, Roster, parse_export_name
from .report import SHOW, GradeReport, printable

__all__ = ["Submission", "find_submissions", "grade_batch", "BatchResult", "function_of_tests"]

SUFFIXES = (".py", ".ipynb")
FIXED = ("id", "name")


@dataclass
class Submission:
    """One student's submission: the row id, their file (or why it cannot be graded), their
    names in the export and the roster, and when it was handed in."""

    student: str
    path: Path | None
    problem: str | None = None
    name: str = ""
    entry: ExportEntry | None = None
    submitted: datetime | None = None


@dataclass
class BatchResult:
    """One row of ``marks.csv``."""

    student: str
    status: str
    report: GradeReport | None = None
    seconds: float = 0.0
    scores: dict = field(default_factory=dict)
    name: str = ""
    submission: Submission | None = None


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


def _safe(text: str) -> str:
    """A file name from any name: letters, digits, '.', '_', '-' (the rest as '_')."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", text.strip())[:100].strip("._") or "unnamed"
    return name


def _candidates(folder: Path):
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_dir() and not entry.is_symlink():
            files = sorted(p for p in entry.iterdir() if p.suffix in SUFFIXES
                           and not p.name.startswith("."))
            problem = None if len(files) == 1 else \
                f"the folder holds {len(files)} .py/.ipynb files; exactly one is graded"
            yield parse_export_name(entry.name), (files[0] if len(files) == 1 else None), problem
        elif entry.suffix in SUFFIXES:
            yield parse_export_name(entry.name), entry, None


def find_submissions(folder, roster: Roster | None = None) -> list[Submission]:
    """The submissions in ``folder``, one per student, sorted by row id.

    With a ``roster``, rows are the roster's ids (a student without a submission gets a row that
    says so; an export entry the roster does not know is graded under its export name and its
    status says so).
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise GradingError(f"SUBMISSIONS {str(folder)!r} is not a folder; pass the folder that "
                           "holds one .py/.ipynb file (or one folder) per student, or an LMS "
                           "export unzipped")
    groups: dict[str, list] = {}
    for entry, path, problem in _candidates(folder):
        sid = roster.find(entry) if roster is not None else None
        key = sid if sid is not None else (entry.name if entry.lms == "plain"
                                           else f"{entry.name}_{entry.key}")
        groups.setdefault(_safe(key), []).append((entry, path, problem, sid))
    found: dict[str, Submission] = {}
    for student, items in groups.items():
        if len(items) > 1 and all(e.submitted is not None for e, *_ in items):
            items = [max(items, key=lambda item: item[0].submitted)]  # the latest attempt
        entry, path, problem, sid = items[-1]
        name = roster.name(sid) if sid is not None else printable(entry.name)
        if len(items) > 1:
            path, problem = None, f"{len(items)} submissions for the same student; keep one"
        if path is not None and problem is None:
            why = _regular_file(path)
            if why:
                path, problem = None, f"{path.name} {why}"
        if roster is not None and sid is None and problem is None:
            problem = None  # graded, but flagged in the status below
        submitted = entry.submitted
        if submitted is None and path is not None:
            submitted = datetime.fromtimestamp(os.lstat(path).st_mtime)
        found[student] = Submission(student, path, problem, name, entry, submitted)
        if roster is not None and sid is None:
            found[student].name = f"{name} (not in the roster)"
    if roster is not None:
        for sid in roster.rows:
            if _safe(sid) not in found:
                found[_safe(sid)] = Submission(_safe(sid), None, "no submission",
                                               roster.name(sid))
    return [found[k] for k in sorted(found)]


def function_of_tests(exercise: Path, functions: tuple) -> dict[str, str]:
    """test name (relative to tests/) -> the exercise function its points count for: the one it
    calls, or of several the one its name mentions, else the last in the exercise's order."""
    from .testfiles import test_kinds

    out = {}
    for test, (called, _) in test_kinds(exercise).items():
        name = test[len("tests/"):] if test.startswith("tests/") else test
        ordered = [f for f in functions if f in called] or sorted(called)
        named = [f for f in ordered if f in name.split("::")[-1]]
        out[name] = (named or ordered or ["other"])[-1]
    return out


def _grade_one(exercise: Path, sub: Submission, out: Path, timeout: float,
               hidden: bool, show: str) -> BatchResult:
    started = time.monotonic()
    if sub.problem is not None:
        return BatchResult(sub.student, f"not graded: {sub.problem}", name=sub.name,
                           submission=sub)
    results = out / "results" / sub.student
    results.mkdir(parents=True, exist_ok=True)
    json_path = results / "results.json"
    cmd = [sys.executable, "-m", "rkmlearn.grading", str(exercise), str(sub.path),
           "--json", str(json_path), "--timeout", f"{timeout:g}", "--jobs", "1",
           "--hidden" if hidden else "--no-hidden", "--show", show]
    # Its own judge process: a crash, a hang or a flood of output spoils this row only.
    limit = 600 + 100 * timeout  # far beyond any honest grading: a judge that hangs
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=limit,
                              stdin=subprocess.DEVNULL, errors="replace",
                              env=procs.with_grader_path(procs.environment()))
    except subprocess.TimeoutExpired:
        return BatchResult(sub.student, f"grading failed: no result after {limit:g} s",
                           seconds=time.monotonic() - started, name=sub.name, submission=sub)
    seconds = time.monotonic() - started
    if done.returncode != 0 or not json_path.is_file():
        last = [ln for ln in done.stderr.splitlines() if ln.strip()][-1:] or ["no message"]
        return BatchResult(sub.student, "grading failed: " + printable(last[0])[:300],
                           seconds=seconds, name=sub.name, submission=sub)
    report = GradeReport.from_gradescope(json.loads(json_path.read_text(encoding="utf-8")),
                                         exercise=str(exercise), submission=str(sub.path))
    return BatchResult(sub.student, "graded", report, seconds,
                       {t.name: t.score for t in report.tests}, sub.name, sub)


def _feedback(result: BatchResult, exercise: Path, show: str, late: str) -> str:
    who = result.student + (f" ({result.name})" if result.name and result.name != result.student
                            else "")
    head = f"Exercise {exercise.name}, submission of {who}\n\n"
    if result.report is None:
        return head + result.status + "\n"
    # The table's names and messages are escaped already (report.printable): no terminal
    # escape sequence from the student's code reaches the file.
    return head + result.report.format_table(width=100, show=show) + "\n" + late


def _number(text) -> float | None:
    try:
        value = float(str(text).strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _read_marks(path: Path) -> dict[str, dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        rows = list(reader)
    if "id" not in (reader.fieldnames or []):
        raise GradingError(f"{path} is not a marks.csv of batch (no 'id' column); choose a new "
                           "--out folder")
    return {row["id"]: row for row in rows}


class ProgressBar:
    """``[#####-----] 5/20 graded (1 failed) 0:42``: redrawn in place on a terminal, one line
    per submission otherwise (a log)."""

    def __init__(self, total: int, stream=None) -> None:
        self.total, self.done, self.failed = total, 0, 0
        self.stream = sys.stderr if stream is None else stream
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.started = time.monotonic()

    def __call__(self, row: BatchResult) -> None:
        self.done += 1
        self.failed += row.status != "graded"
        filled = round(20 * self.done / self.total)
        elapsed = int(time.monotonic() - self.started)
        score = (f"{row.report.score:g}/{row.report.max_score:g}" if row.report is not None
                 else row.status[:60])
        line = (f"[{'#' * filled}{'-' * (20 - filled)}] {self.done}/{self.total} graded"
                f"{f' ({self.failed} not graded)' if self.failed else ''} "
                f"{elapsed // 60}:{elapsed % 60:02d}  {row.student}: {score}")
        if self.tty:
            self.stream.write("\r\x1b[K" + line + ("\n" if self.done == self.total else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def grade_batch(exercise_dir, submissions_dir, out_dir, *, jobs: int = 2,
                timeout: float = 30.0, hidden: bool = True, roster=None, due=None,
                late_policy: LatePolicy | None = None, only=None, show: str = "visible",
                progress=None) -> list[BatchResult]:
    """Grade every submission of ``submissions_dir``; write marks.csv, feedback and results.

    Parameters
    ----------
    roster : str or Path, optional
        A CSV with an ``id`` column (and ``name``, and columns whose values the LMS export
        names: username, email, moodle_id, ...).
    due : datetime, optional
        The due time; late submissions lose ``late_policy`` (default 10 % per started day).
    only : iterable of str, optional
        Regrade these students only (row ids, export or roster names) into an existing
        ``out_dir``; every other row stays as it was.
    show : {"visible", "hidden"}
        What the feedback files and results.json show students (see :mod:`.report`).
    progress : callable, optional
        Called with each :class:`BatchResult` as it is done.

    Returns the rows graded now, sorted by student.
    """
    if not sys.platform.startswith("linux"):
        raise GradingError("batch grading grades other people's code, which needs the sandbox "
                           "(Linux); the unsandboxed local check is for one's own code only")
    exercise = Path(exercise_dir).resolve()
    if not (exercise / "tests").is_dir():
        raise GradingError(f"EXERCISE {str(exercise_dir)!r} is not an exercise folder (no tests/)")
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise GradingError(f"--jobs must be a positive integer, got {jobs!r}")
    if show not in SHOW:
        raise GradingError(f"--show must be one of {', '.join(SHOW)}, got {show!r}")
    class_list = Roster.read(roster) if roster is not None else None
    subs = find_submissions(submissions_dir, class_list)
    if not subs:
        raise GradingError(f"no .py or .ipynb submission in {str(submissions_dir)!r}")
    out = Path(out_dir)
    previous: dict[str, dict] = {}
    if out.exists() and any(out.iterdir()):
        if not (out / "marks.csv").is_file():
            raise GradingError(f"--out {str(out_dir)!r} is not empty and holds no marks.csv of an "
                               "earlier batch; choose a new folder so that nothing is overwritten")
        previous = _read_marks(out / "marks.csv")
    elif only:
        raise GradingError("--only regrades students into the --out folder of an earlier batch; "
                           f"{str(out_dir)!r} holds none")
    todo = subs
    if only:
        wanted = {w.strip().casefold() for w in only if w.strip()}
        todo = [s for s in subs if {s.student.casefold(), s.name.casefold(),
                                    *(k.casefold() for k in (s.entry.keys if s.entry else ()))}
                & wanted]
        if not todo:
            raise GradingError(f"--only {', '.join(sorted(wanted))}: no such student among the "
                               f"submissions ({', '.join(s.student for s in subs[:10])}...)")
    (out / "feedback").mkdir(parents=True, exist_ok=True)
    rows = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(_grade_one, exercise, s, out, timeout, hidden, show) for s in todo]
        for future in as_completed(futures):
            rows.append(future.result())
            if progress is not None:
                progress(rows[-1])
    rows.sort(key=lambda r: r.student)
    policy = late_policy if late_policy is not None else LatePolicy()
    _write_tables(exercise, out, subs, rows, previous, due, policy, show)
    _write_written(exercise, out, subs)
    return rows


def _late(sub: Submission | None, due, policy: LatePolicy) -> tuple[str, str, float]:
    """(submitted, late units, penalty percent) of a submission."""
    if due is None or sub is None or sub.submitted is None:
        return "", "", 0.0
    units = policy.late_units(sub.submitted, due)
    if units == 0 and sub.entry is not None and sub.entry.late_flag:
        units = 1  # the LMS says late; the file's time may be the upload's copy
    penalty = min(policy.cap, policy.percent * units)
    return sub.submitted.isoformat(timespec="seconds"), str(units), penalty


def _write_tables(exercise: Path, out: Path, subs, rows, previous, due, policy, show) -> None:
    from .exercise import load_config

    functions = load_config(exercise).functions
    owner = function_of_tests(exercise, functions)
    tests = []
    for row in rows:
        for name in row.scores:
            if name not in tests:
                tests.append(name)
    graded = next((r.report for r in rows if r.report is not None), None)
    tops: dict[str, float] = {}
    for test in graded.tests if graded is not None else []:
        tops[owner.get(test.name, "other")] = tops.get(owner.get(test.name, "other"), 0.0) \
            + test.max_score
    columns = [f for f in [*functions, "other"] if f in tops]
    func_cols = [f"{f} (of {tops[f]:g})" for f in columns]
    if not func_cols and previous:
        func_cols = [c for c in next(iter(previous.values())) if c.endswith(")")
                     and " (of " in c]
    late_cols = ["submitted", f"late_{policy.unit}s", "penalty_percent"] if due else []
    header = [*FIXED, *func_cols, "auto", "manual", "total", "max_score", *late_cols, "final",
              "status"]
    now = {r.student: r for r in rows}
    by_id = {s.student: s for s in subs}
    table = []
    for student in sorted(set(by_id) | set(previous)):
        old = previous.get(student, {})
        manual = old.get("manual", "")
        row = now.get(student)
        if row is None:  # not regraded now: its earlier row, manual column as entered
            if old:
                table.append({k: old.get(k, "") for k in header})
            continue
        record = {"id": student, "name": row.name, "manual": manual, "status": row.status}
        if row.report is not None:
            sums = {f: 0.0 for f in columns}
            for test in row.report.tests:
                sums[owner.get(test.name, "other")] = sums.get(owner.get(test.name, "other"),
                                                               0.0) + test.score
            record.update({c: f"{sums[f]:g}" for f, c in zip(columns, func_cols)})
            auto, top = row.report.score, row.report.max_score
        else:
            auto, top = 0.0, (graded.max_score if graded is not None else 0.0)
        total = auto + (_number(manual) or 0.0)
        submitted, units, penalty = _late(row.submission, due, policy)
        record.update({"auto": f"{auto:g}", "total": f"{total:g}", "max_score": f"{top:g}",
                       "final": f"{total * (1 - penalty / 100):g}"})
        if due:
            record.update({"submitted": submitted, f"late_{policy.unit}s": units,
                           "penalty_percent": f"{penalty:g}" if submitted else ""})
        table.append(record)
        late = (f"Submitted {submitted}, {units} {policy.unit}(s) late: {penalty:g} % penalty.\n"
                if due and penalty else "")
        (out / "feedback" / f"{student}.txt").write_text(_feedback(row, exercise, show, late),
                                                        encoding="utf-8")
    with open(out / "marks.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, header, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(table)
    old_tests = {}
    if (out / "tests.csv").is_file():
        with open(out / "tests.csv", newline="", encoding="utf-8") as fh:
            old_tests = {r["id"]: r for r in csv.DictReader(fh)}
    tests = tests or [c for c in next(iter(old_tests.values()), {}) if c != "id"]
    with open(out / "tests.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", *tests])
        for record in table:
            row = now.get(record["id"])
            if row is not None:
                writer.writerow([record["id"], *(f"{row.scores[t]:g}" if t in row.scores else ""
                                                 for t in tests)])
            elif record["id"] in old_tests:
                writer.writerow([record["id"], *(old_tests[record["id"]].get(t, "")
                                                 for t in tests)])


def _write_written(exercise: Path, out: Path, subs) -> None:
    from .notebook import read_notebook
    from .written import answers, questions, write_review_pages

    asked = questions(exercise)
    if not asked:
        return
    collected = {}
    for sub in subs:
        if sub.path is None:
            collected[(sub.student, sub.name)] = f"not graded: {sub.problem}"
        elif sub.path.suffix != ".ipynb":
            collected[(sub.student, sub.name)] = "handed in a .py file: no written answers"
        else:
            try:
                collected[(sub.student, sub.name)] = answers(read_notebook(sub.path), asked)
            except GradingError as exc:
                collected[(sub.student, sub.name)] = str(exc)
    write_review_pages(out, asked, collected)
