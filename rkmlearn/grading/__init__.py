"""Autograder for the book's exercises.

Grade a student's file against an exercise folder::

    python -m rkmlearn.grading exercises/ch01_kernels my_solution.py --json results.json

The submission is imported only in sandboxed worker processes (one per test); the tests, which
compare its answers with the expected ones, run in other processes that never import it, and
what it returns crosses over as plain data. See :mod:`rkmlearn.grading.runner` for the processes,
:mod:`rkmlearn.grading.sandbox` and :mod:`rkmlearn.grading._worker` for what the worker can
touch, and ``exercises/README.md`` for the exercise format, the points and the JSON.

Students check one function from an exercise notebook with :func:`check`; instructors hand out
exercises with ``python -m rkmlearn.grading release`` and grade a class with ``... batch`` (see
``exercises/README.md``).

This subpackage uses the standard library, numpy and pytest (``pip install 'rkmlearn[grading]'``);
it does not import the rest of :mod:`rkmlearn` (its runner processes load it as a package of its
own). The sandbox needs Linux; elsewhere :func:`check` runs an unsandboxed local check.
"""
from .check import check, local_check
from .exercise import (EXCLUDED_FROM_STUDENT_COPY, ExerciseConfig, GradingError, load_config,
                       student_copy)
from .report import GradeReport, TestResult, validate_results

__all__ = [
    "grade", "check", "local_check", "collect_tests", "student_copy", "validate_results",
    "load_config", "GradeReport", "TestResult", "CollectedTest", "GradingError",
    "ExerciseConfig", "DEFAULT_TIMEOUT", "EXCLUDED_FROM_STUDENT_COPY", "default_jobs",
]
# The sandboxed grader needs Linux: it is imported when first used, so that check() (which
# falls back on an unsandboxed local check elsewhere) imports on macOS and Windows too.
_RUNNER_NAMES = {"grade", "collect_tests", "DEFAULT_TIMEOUT", "CollectedTest", "default_jobs"}


def __getattr__(name):
    if name in _RUNNER_NAMES:
        from . import runner

        return getattr(runner, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
