"""Command line: ``python -m rkmlearn.grading``.

Grade a submission::

    python -m rkmlearn.grading EXERCISE_DIR SUBMISSION.py [--json results.json] [--timeout 30]
                               [--hidden | --no-hidden] [--jobs 2] [--memory MB]

Make the copy handed out to students (no solution, no hidden tests), or the folder for a
Gradescope autograder zip (no solution)::

    python -m rkmlearn.grading release EXERCISE_DIR OUT_DIR
    python -m rkmlearn.grading --student-copy EXERCISE_DIR OUT_DIR [--with-hidden]

Grade a class (one .py or .ipynb per student; marks.csv, feedback, results.json per student)::

    python -m rkmlearn.grading batch EXERCISE_DIR SUBMISSIONS_DIR --out DIR [--jobs 2]

Check your own code without the sandbox (macOS, Windows; public tests only)::

    python -m rkmlearn.grading local EXERCISE_DIR MY_ANSWERS.py

Regenerate (or ``--check``) an exercise's solution.py and starter.py from its notebook::

    python -m rkmlearn.grading sync EXERCISE_DIR [--check]

Exit status: 0 whenever grading completed, whatever the score; 2 for usage errors (missing folder
or file, bad option) and for exercises whose tests cannot be collected.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from .errors import GradingError, InfrastructureError
from .handout import student_copy
from .report import printable, shorten
from .judge import DEFAULT_TIMEOUT, default_jobs, grade

USAGE_ERROR = 2
GRADING_FAILED = 3  # the grader itself failed; the --json file says "grading failed: ..."

ISOLATION = (
    "Isolation: the submission is imported only in sandboxed worker processes, one per test, "
    "forked from a sandboxed zygote: as root a sandbox uid of its own (otherwise the grader's "
    "uid), resource limits (memory, CPU, file size), Landlock where the kernel has it (files: "
    "read-only Python and the allowed packages, read-write scratch folder; no exec, no TCP, no "
    "signals outside the sandbox), and an audit hook that enforces the exercise's rules "
    "(imports, files, processes). The tests run in other processes that never import the "
    "submission; what a submission returns crosses over as plain data. Grading uses a copy of "
    "the exercise without solution*; every process of the grading is killed at its end.")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m rkmlearn.grading",
        description="Autograde a submission against an exercise's tests, or make the student "
                    "copy of an exercise. " + ISOLATION,
        epilog="Other commands: release, batch, local, sync (python -m rkmlearn.grading COMMAND "
               "--help). Exit status 0 when grading completed (whatever the score), 2 on usage "
               "errors.")
    parser.add_argument("exercise_dir", help="exercise folder, e.g. exercises/ch01_kernels")
    parser.add_argument("target", metavar="SUBMISSION_OR_OUT_DIR",
                        help="the student's .py file or notebook (.ipynb); with --student-copy, "
                             "the folder to create")
    parser.add_argument("--json", metavar="OUT.json", dest="json_path",
                        help="also write Gradescope-style results.json to this file (written "
                             "after every process of the grading is gone, atomically)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                        help="seconds of submission time per test: its import and all its calls "
                             f"(default {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--hidden", action=argparse.BooleanOptionalAction, default=True,
                        help="run tests/hidden too when present (default: yes)")
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help=f"runner processes in parallel (default {default_jobs()})")
    parser.add_argument("--memory", type=int, default=None, metavar="MB",
                        help="address-space limit of the worker in MiB (default: the exercise's "
                             "memory_mb, 2048)")
    parser.add_argument("--trusted", action="store_true",
                        help="grade even where the kernel offers neither Landlock nor a network "
                             "namespace (then only the in-process audit hook stands between the "
                             "submission and the grader's files): for code you trust")
    parser.add_argument("--student-copy", action="store_true",
                        help="copy EXERCISE_DIR to OUT_DIR without solution* and tests/hidden/")
    parser.add_argument("--with-hidden", action="store_true",
                        help="with --student-copy: keep tests/hidden/ (the folder to put in a "
                             "Gradescope autograder zip: everything but the solution)")
    return parser


def write_json(path: Path, data: dict) -> None:
    """Write ``data`` atomically (temporary file, fsync, rename), then read it back.

    If the file then differs from what was written (a late writer), it is written again; if it
    still differs, that is an error.
    """
    text = json.dumps(data, indent=2) + "\n"
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    for _ in range(2):
        fd, tmp = tempfile.mkstemp(prefix=".results-", suffix=".json", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        if hashlib.sha256(path.read_bytes()).hexdigest() == digest:
            return
    raise GradingError(f"--json: {path} keeps changing after it was written; something else "
                       "writes it")


COMMANDS = ("release", "batch", "local", "sync")


def _command_parser(command: str) -> argparse.ArgumentParser:
    prog = f"python -m rkmlearn.grading {command}"
    if command == "release":
        p = argparse.ArgumentParser(prog=prog, description=(
            "Write the handout of an exercise: its notebook without solutions, starter.py, "
            "README.md and the public tests; never solution* or tests/hidden."))
        p.add_argument("exercise_dir")
        p.add_argument("out_dir", help="the handout folder to create (must not exist or be empty)")
    elif command == "batch":
        p = argparse.ArgumentParser(prog=prog, description=(
            "Grade every submission in SUBMISSIONS_DIR (NAME.py, NAME.ipynb or NAME/ with one "
            "such file), each in its own judge process; write marks.csv, feedback/NAME.txt and "
            "results/NAME/results.json under --out."))
        p.add_argument("exercise_dir")
        p.add_argument("submissions_dir")
        p.add_argument("--out", required=True, metavar="DIR", help="new or empty output folder")
        p.add_argument("--jobs", type=int, default=default_jobs(), metavar="N",
                       help="submissions graded at a time (default: %(default)s)")
        p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS")
        p.add_argument("--hidden", action=argparse.BooleanOptionalAction, default=True)
    elif command == "local":
        p = argparse.ArgumentParser(prog=prog, description=(
            "Run the PUBLIC tests on your own file with plain pytest, NOT sandboxed: for "
            "macOS and Windows, where the sandbox cannot run. For your own code only."))
        p.add_argument("exercise_dir")
        p.add_argument("submission")
        p.add_argument("--function", default=None, help="only the tests of this function")
    else:
        p = argparse.ArgumentParser(prog=prog, description=(
            "Write solution.py and starter.py from the exercise notebook (one source), or with "
            "--check fail when they are out of date."))
        p.add_argument("exercise_dir")
        p.add_argument("--check", action="store_true")
    return p


def _run_command(command: str, argv: list[str]) -> int:
    from .batch import grade_batch
    from .check import local_check
    from .notebook import sync_exercise

    parser = _command_parser(command)
    args = parser.parse_args(argv)
    try:
        if command == "release":
            stale = sync_exercise(args.exercise_dir, check=True) \
                if list(Path(args.exercise_dir).glob("*_exercises.ipynb")) else []
            if stale:
                raise GradingError(f"{', '.join(stale)} of {args.exercise_dir} are older than its "
                                   "notebook: run python -m rkmlearn.grading sync "
                                   f"{args.exercise_dir} first")
            files = student_copy(args.exercise_dir, args.out_dir)
            print(f"Handout written to {args.out_dir} ({len(files)} files; solution and hidden "
                  "tests left out): " + ", ".join(f for f in files if "/" not in f))
        elif command == "batch":
            started = time.monotonic()
            rows = grade_batch(args.exercise_dir, args.submissions_dir, args.out,
                               jobs=args.jobs, timeout=args.timeout, hidden=args.hidden)
            failed = [r for r in rows if r.status != "graded"]
            print(f"Graded {len(rows) - len(failed)} of {len(rows)} submissions in "
                  f"{time.monotonic() - started:.1f} s: {args.out}/marks.csv, feedback/, results/")
            for row in failed:
                print(f"  {row.student}: {row.status}")
        elif command == "local":
            print(local_check(args.exercise_dir, args.submission, function=args.function))
        else:
            changed = sync_exercise(args.exercise_dir, check=args.check)
            if args.check and changed:
                print(f"out of date: {', '.join(changed)}; run python -m rkmlearn.grading sync "
                      f"{args.exercise_dir}", file=sys.stderr)
                return 1
            print(f"{args.exercise_dir}: " + (f"wrote {', '.join(changed)}" if changed
                                              else "solution.py and starter.py up to date"))
    except GradingError as exc:
        parser.print_usage(sys.stderr)
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    return 0


def _failed_results(json_path, reason: str, started: float,
                    infrastructure: bool = False) -> None:
    """A results file that says grading failed (score 0, max 0: no mark), so that no result is
    ever lost; ``infrastructure`` marks the sandbox's failure, which is no one's score."""
    if json_path is None:
        return
    extra = {"grading_failed": True, **({"infrastructure_error": True} if infrastructure else {})}
    data = {"score": 0.0, "max_score": 0.0, "execution_time": round(time.monotonic() - started, 3),
            "output": shorten(f"grading failed: {reason}", 2000), "visibility": "visible",
            "stdout_visibility": "hidden", "extra_data": extra, "tests": []}
    try:
        write_json(Path(json_path), data)
    except (OSError, GradingError) as exc:
        print(f"could not write {printable(str(json_path))}: {printable(str(exc))}",
              file=sys.stderr)


def main(argv: list[str] | None = None, started: float | None = None) -> int:
    """Run the command line; return the exit status.

    ``started`` is the ``time.monotonic()`` that ``execution_time`` counts from; ``python -m
    rkmlearn.grading`` passes the start of the process, so that start-up counts too.
    """
    started = time.monotonic() if started is None else started
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in COMMANDS:
        return _run_command(argv[0], argv[1:])
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if args.student_copy:
            files = student_copy(args.exercise_dir, args.target, with_hidden=args.with_hidden)
            left_out = "solution left out" if args.with_hidden else \
                "solution and hidden tests left out"
            print(f"Student copy written to {args.target} ({len(files)} files; {left_out}).")
            return 0
        if args.with_hidden:
            raise GradingError("--with-hidden goes with --student-copy")
        json_path = None
        if args.json_path is not None:
            json_path = Path(args.json_path).expanduser().resolve()
            if not json_path.parent.is_dir():
                raise GradingError(f"--json: folder {str(json_path.parent)!r} does not exist; "
                                   "create it or write the file elsewhere")
        jobs = args.jobs if args.jobs is not None else default_jobs()
        print(f"Grading {printable(args.target)} against {printable(args.exercise_dir)} (at "
              f"most {args.timeout:g} s of submission time per test, {jobs} in parallel)...",
              file=sys.stderr, flush=True)
        report = grade(args.exercise_dir, args.target, timeout=args.timeout,
                       include_hidden=args.hidden, jobs=jobs, memory_mb=args.memory,
                       started=started, trusted=args.trusted)
    except InfrastructureError as exc:
        reason = f"infrastructure error, not the submission's score: {exc}"
        print(f"{parser.prog}: grading failed: {printable(reason)}", file=sys.stderr)
        _failed_results(json_path if "json_path" in locals() else None, reason, started,
                        infrastructure=True)
        return GRADING_FAILED
    except GradingError as exc:
        parser.print_usage(sys.stderr)
        print(f"{parser.prog}: error: {printable(str(exc))}", file=sys.stderr)
        _failed_results(json_path if "json_path" in locals() else None, str(exc), started)
        return USAGE_ERROR
    except Exception as exc:  # noqa: BLE001 - the grader's own failure: say so, keep a result
        reason = f"{type(exc).__name__}: {exc}"
        print(f"{parser.prog}: grading failed: {printable(reason)}", file=sys.stderr)
        _failed_results(json_path if "json_path" in locals() else None, reason, started)
        return GRADING_FAILED
    for note in report.notes:
        print(f"note: {printable(note)}", file=sys.stderr)
    print(report.format_table())
    if report.sandbox:
        print("Sandbox: " + "; ".join(f"{k} {v}" for k, v in sorted(report.sandbox.items())),
              file=sys.stderr)
    if json_path is not None:
        try:
            write_json(json_path, report.to_gradescope())
        except GradingError as exc:
            print(f"{parser.prog}: error: {exc}", file=sys.stderr)
            return USAGE_ERROR
        print(f"Results written to {args.json_path}")
    return 0
