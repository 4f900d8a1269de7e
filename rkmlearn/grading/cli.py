"""Command line: ``python -m rkmlearn.grading``.

Grade a submission::

    python -m rkmlearn.grading EXERCISE_DIR SUBMISSION.py [--json results.json] [--timeout 30]
                               [--hidden | --no-hidden] [--isolation batch|test] [--jobs 2]

Make the copy handed out to students (no solution, no hidden tests)::

    python -m rkmlearn.grading --student-copy EXERCISE_DIR OUT_DIR

Exit status: 0 whenever grading completed, whatever the score; 2 for usage errors (missing folder
or file, bad option) and for exercises whose tests cannot be collected.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .handout import student_copy
from .runner import (DEFAULT_TIMEOUT, ISOLATION_MODES, GradingError, collect_tests,
                     default_jobs, grade)

USAGE_ERROR = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m rkmlearn.grading",
        description="Autograde a submission against an exercise's tests (each test in its own "
                    "process), or make the student copy of an exercise.",
        epilog="Exit status 0 when grading completed (whatever the score), 2 on usage errors.")
    parser.add_argument("exercise_dir", help="exercise folder, e.g. exercises/ch01_kernels")
    parser.add_argument("target", metavar="SUBMISSION_OR_OUT_DIR",
                        help="the student's .py file; with --student-copy, the folder to create")
    parser.add_argument("--json", metavar="OUT.json", dest="json_path",
                        help="also write Gradescope-style results.json to this file")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                        help=f"seconds allowed per test (default {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--hidden", action=argparse.BooleanOptionalAction, default=True,
                        help="run tests/hidden too when present (default: yes)")
    parser.add_argument("--isolation", choices=ISOLATION_MODES, default="batch",
                        help="'batch' (default): one process per share of tests, restarted after "
                             "any test that kills it; 'test': a fresh process for every test")
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help=f"tests run in parallel (default {default_jobs()})")
    parser.add_argument("--student-copy", action="store_true",
                        help="copy EXERCISE_DIR to OUT_DIR without solution* and tests/hidden/")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if args.student_copy:
            files = student_copy(args.exercise_dir, args.target)
            print(f"Student copy written to {args.target} ({len(files)} files; solution and "
                  "hidden tests left out).")
            return 0
        if args.json_path is not None:
            parent = Path(args.json_path).expanduser().resolve().parent
            if not parent.is_dir():
                raise GradingError(f"--json: folder {str(parent)!r} does not exist; create it "
                                   "or write the file elsewhere")
        # Collect once, here, so that the header can say how many tests will run.
        tests = collect_tests(args.exercise_dir, include_hidden=args.hidden)
        jobs = args.jobs if args.jobs is not None else default_jobs()
        print(f"Grading {args.target} against {len(tests)} tests of {args.exercise_dir} "
              f"(timeout {args.timeout:g} s per test, {jobs} in parallel)...",
              file=sys.stderr, flush=True)
        unmarked = [t.name for t in tests if not t.marked]
        if unmarked:
            print(f"note: {len(unmarked)} test(s) have no @pytest.mark.points and count 1 point "
                  f"each: {', '.join(unmarked)}", file=sys.stderr)
        report = grade(args.exercise_dir, args.target, timeout=args.timeout,
                       include_hidden=args.hidden, isolation=args.isolation, jobs=jobs,
                       tests=tests)
    except GradingError as exc:
        parser.print_usage(sys.stderr)
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    print(report.format_table())
    if args.json_path is not None:
        Path(args.json_path).write_text(json.dumps(report.to_gradescope(), indent=2) + "\n",
                                        encoding="utf-8")
        print(f"Results written to {args.json_path}")
    return 0
