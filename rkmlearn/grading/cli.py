"""Command line: ``python -m rkmlearn.grading``.

Grade a submission::

    python -m rkmlearn.grading EXERCISE_DIR SUBMISSION.py [--json results.json] [--timeout 30]
                               [--hidden | --no-hidden] [--jobs 2] [--memory MB]

Make the copy handed out to students (no solution, no hidden tests), or the folder for a
Gradescope autograder zip (no solution)::

    python -m rkmlearn.grading release EXERCISE_DIR OUT_DIR
    python -m rkmlearn.grading --student-copy EXERCISE_DIR OUT_DIR [--with-hidden]

Grade a class (an LMS export unzipped, or one .py/.ipynb per student; marks.csv, tests.csv,
feedback, results.json, written-answer pages; an earlier --out is updated, its manual column kept)::

    python -m rkmlearn.grading batch EXERCISE_DIR SUBMISSIONS_DIR --out DIR [--jobs 2]
        [--roster roster.csv] [--due 2026-12-01T23:59 --late-policy 10%/day] [--only ID]
        [--show visible|hidden]

Check your own code without the sandbox (macOS, Windows; public tests only)::

    python -m rkmlearn.grading local EXERCISE_DIR MY_ANSWERS.py|.ipynb

Write the Gradescope autograder zip (setup.sh, run_autograder, the wheel, the pins, the tests)::

    python -m rkmlearn.grading gradescope EXERCISE_DIR OUT.zip [--wheel rkmlearn-*.whl]

Regenerate (or ``--check``) an exercise's solution.py and starter.py from its notebook::

    python -m rkmlearn.grading sync EXERCISE_DIR [--check]

Exit status: 0 whenever grading completed, whatever the score; 2 for usage errors (missing folder
or file, bad option, a mistyped command) and for exercises whose tests cannot be collected; 3 when
the grader itself (or, for ``local``, pytest) failed.
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
from .report import SHOW, printable, shorten
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



def _add_timeout_and_hidden(parser, timeout_help):
    """The two options that grading and ``batch`` share: the time-out per test and ``--hidden``."""
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS", help=timeout_help)
    parser.add_argument("--hidden", action=argparse.BooleanOptionalAction, default=True,
                        help="run tests/hidden too when present (default: yes)")

def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m rkmlearn.grading", usage=USAGE,
        description="Autograde a submission against an exercise's tests, or run one of the "
                    "commands: release (the handout), batch (a class, LMS exports), local (own "
                    "code, unsandboxed), sync (starter/solution from the notebook), gradescope "
                    "(the autograder zip); python -m rkmlearn.grading COMMAND --help. "
                    + ISOLATION,
        epilog="Exit status 0 when grading completed (whatever the score), 2 on usage errors, 3 "
               "when the grader itself failed.")
    parser.add_argument("exercise_dir", help="exercise folder, e.g. exercises/ch01_kernels")
    parser.add_argument("target", metavar="SUBMISSION_OR_OUT_DIR",
                        help="the student's .py file or notebook (.ipynb); with --student-copy, "
                             "the folder to create")
    parser.add_argument("--json", metavar="OUT.json", dest="json_path",
                        help="also write Gradescope-style results.json to this file (written "
                             "after every process of the grading is gone, atomically)")
    _add_timeout_and_hidden(parser, "seconds of submission time per test: its import and all its "
                                    f"calls (default {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help=f"runner processes in parallel (default {default_jobs()})")
    parser.add_argument("--memory", type=int, default=None, metavar="MB",
                        help="address-space limit of the worker in MiB (default: the exercise's "
                             "memory_mb, 2048)")
    parser.add_argument("--trusted", action="store_true",
                        help="grade even where the kernel offers neither Landlock nor a network "
                             "namespace (then only the in-process audit hook stands between the "
                             "submission and the grader's files): for code you trust")
    parser.add_argument("--show", choices=SHOW, default="visible",
                        help="what --json shows students: 'visible' tests only until the due "
                             "date (hidden ones 'after_due_date', the default) or 'hidden' too")
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


COMMANDS = ("release", "batch", "local", "sync", "gradescope")
USAGE = ("python -m rkmlearn.grading {release,batch,local,sync,gradescope} ...\n"
         "       python -m rkmlearn.grading EXERCISE_DIR SUBMISSION [options]")


def _command_parser(command: str) -> argparse.ArgumentParser:
    prog = f"python -m rkmlearn.grading {command}"
    exercise_help = "the exercise folder, e.g. exercises/ch01_kernels"
    if command == "release":
        p = argparse.ArgumentParser(prog=prog, description=(
            "Write the handout of an exercise: its notebook without solutions (written-answer "
            "questions kept), starter.py, README.md and the public tests; never solution* or "
            "tests/hidden."))
        p.add_argument("exercise_dir", help=exercise_help)
        p.add_argument("out_dir", help="the handout folder to create (must not exist or be empty)")
    elif command == "batch":
        p = argparse.ArgumentParser(prog=prog, description=(
            "Grade every submission in SUBMISSIONS_DIR: an LMS export unzipped (Moodle, Canvas, "
            "Blackboard file names) or NAME.py, NAME.ipynb or NAME/ with one such file, each "
            "in its own judge process; write marks.csv (id, name, points per function, manual, "
            "total, late penalty, final), tests.csv, feedback/ID.txt, results/ID/results.json "
            "and written/qN.html (written answers, one page per question) under --out."))
        p.add_argument("exercise_dir", help=exercise_help)
        p.add_argument("submissions_dir", help="the folder of submissions (an LMS export, "
                                               "unzipped)")
        p.add_argument("--out", required=True, metavar="DIR",
                       help="output folder: new or empty, or that of an earlier batch (then "
                            "updated: the manual column is kept)")
        p.add_argument("--jobs", type=int, default=default_jobs(), metavar="N",
                       help="submissions graded at a time (default: %(default)s)")
        _add_timeout_and_hidden(p, "seconds of submission time per test (default %(default)g); a "
                                   "function that times out fails its other tests at once")
        p.add_argument("--show", choices=SHOW, default="visible",
                       help="what feedback and results.json show students: 'visible' tests "
                            "only (before the due date, the default) or 'hidden' too (after)")
        p.add_argument("--roster", metavar="CSV",
                       help="class list: an 'id' column, 'name', and columns that the LMS "
                            "export's names match (username, email, moodle_id, canvas_id...)")
        p.add_argument("--due", metavar="DATETIME",
                       help="due time, e.g. 2026-12-01T23:59 (local time): adds submitted, "
                            "late and penalty columns")
        p.add_argument("--late-policy", default="10%/day", metavar="POLICY",
                       help="penalty with --due: 'P%%/day' or 'P%%/hour', optionally ',max=M%%'; "
                            "'zero' or 'none' (default: %(default)s)")
        p.add_argument("--only", metavar="STUDENT", action="append",
                       help="regrade only this student (id or name; repeat for more) into the "
                            "--out folder of an earlier batch")
    elif command == "local":
        p = argparse.ArgumentParser(prog=prog, description=(
            "Grade your own .py or .ipynb file with the PUBLIC tests, NOT sandboxed: for "
            "macOS and Windows, where the sandbox cannot run. For your own code only. "
            "Exit status 0 when the tests ran (whatever the score), 2 on usage errors, 3 "
            "when pytest itself failed."))
        p.add_argument("exercise_dir", help="the exercise (handout) folder")
        p.add_argument("submission", help="your .py file or exercise notebook (.ipynb)")
        p.add_argument("--function", default=None, help="only the tests of this function")
        p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                       help="seconds per call of your code (default %(default)g)")
    elif command == "gradescope":
        p = argparse.ArgumentParser(prog=prog, description=(
            "Write a Gradescope autograder zip: setup.sh (the wheel installed with "
            "requirements.txt's pins), run_autograder, requirements.txt, the wheel and the "
            "exercise without its solution (hidden tests included). Upload it as the "
            "assignment's autograder."))
        p.add_argument("exercise_dir", help=exercise_help)
        p.add_argument("out_zip", help="the zip file to create, e.g. ch01_autograder.zip")
        p.add_argument("--wheel", metavar="WHL",
                       help="the rkmlearn wheel to put in (default: built from this checkout)")
        p.add_argument("--requirements", metavar="TXT",
                       help="the pins for setup.sh (default: the repository's requirements.txt)")
        p.add_argument("--show", choices=SHOW, default="visible",
                       help="'visible': hidden tests shown after the due date (default); "
                            "'hidden': every test shown at once")
    else:
        p = argparse.ArgumentParser(prog=prog, description=(
            "Write solution.py and starter.py from the exercise notebook (one source), or with "
            "--check fail when they are out of date."))
        p.add_argument("exercise_dir", help=exercise_help)
        p.add_argument("--check", action="store_true",
                       help="change nothing; exit 1 when the files are out of date")
    return p


def _run_command(command: str, argv: list[str]) -> int:
    parser = _command_parser(command)
    args = parser.parse_args(argv)
    try:
        if command == "release":
            from .notebook import sync_exercise

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
            from .batch import ProgressBar, find_submissions, grade_batch
            from .lms import LatePolicy, Roster, parse_due

            started = time.monotonic()
            due = parse_due(args.due) if args.due else None
            policy = LatePolicy.parse(args.late_policy)
            total = len(find_submissions(args.submissions_dir, Roster.read(args.roster)
                                         if args.roster else None)) if not args.only else \
                len(args.only)
            rows = grade_batch(args.exercise_dir, args.submissions_dir, args.out,
                               jobs=args.jobs, timeout=args.timeout, hidden=args.hidden,
                               roster=args.roster, due=due, late_policy=policy,
                               only=args.only, show=args.show,
                               progress=ProgressBar(max(total, 1)))
            failed = [r for r in rows if r.status != "graded"]
            print(f"Graded {len(rows) - len(failed)} of {len(rows)} submissions in "
                  f"{time.monotonic() - started:.1f} s: {args.out}/marks.csv, tests.csv, "
                  "feedback/, results/")
            for row in failed:
                print(f"  {row.student}: {row.status}")
        elif command == "local":
            from .self_check import NOT_SANDBOXED, LocalCheckFailed, local_check

            try:
                report = local_check(args.exercise_dir, args.submission,
                                     function=args.function, timeout=args.timeout)
            except LocalCheckFailed as exc:
                print(f"{parser.prog}: {exc}", file=sys.stderr)
                return GRADING_FAILED
            print(NOT_SANDBOXED)
            print(report.format_table())
        elif command == "gradescope":
            from .gradescope import export

            names = export(args.exercise_dir, args.out_zip, wheel=args.wheel,
                           requirements=args.requirements, show=args.show)
            print(f"Autograder written to {args.out_zip} ({len(names)} files: "
                  + ", ".join(n for n in names if "/" not in n) + "); upload it in Gradescope "
                  "(Configure Autograder > Zip file upload)")
        else:
            from .notebook import sync_exercise

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


def _mistyped_command(argv: list[str]) -> str | None:
    """A suggestion when the first argument looks like a misspelt command, not a folder."""
    import difflib

    first = argv[0] if argv else ""
    if not first or first.startswith("-") or os.path.exists(first) or "/" in first:
        return None
    close = difflib.get_close_matches(first, COMMANDS, n=1, cutoff=0.6)
    hint = f"did you mean '{close[0]}'? " if close else ""
    return (f"unknown command {first!r}; {hint}the commands are {', '.join(COMMANDS)} (or pass "
            "an exercise folder and a submission to grade)")


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
    mistyped = _mistyped_command(argv)
    if mistyped:
        parser.print_usage(sys.stderr)
        print(f"{parser.prog}: error: {mistyped}", file=sys.stderr)
        return USAGE_ERROR
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
    for warning in report.warnings:
        print(f"note: {printable(warning)}", file=sys.stderr)
    print(report.format_table())
    if report.sandbox:
        print("Sandbox: " + "; ".join(f"{k} {v}" for k, v in sorted(report.sandbox.items())),
              file=sys.stderr)
    if json_path is not None:
        try:
            write_json(json_path, report.to_gradescope(show=args.show))
        except GradingError as exc:
            print(f"{parser.prog}: error: {exc}", file=sys.stderr)
            return USAGE_ERROR
        print(f"Results written to {args.json_path}")
    return 0
