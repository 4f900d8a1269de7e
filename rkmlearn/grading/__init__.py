"""Autograder for the book's exercises.

Grade a student's file against an exercise folder::

    python -m rkmlearn.grading exercises/ch01_kernels my_solution.py --json results.json

Each test runs in its own subprocess (see :mod:`rkmlearn.grading.runner` for why), so a submission
that hangs, exits, crashes or fails to import costs only the tests it affects. The exercise layout,
the ``points`` marker and the JSON format are documented in ``exercises/README.md``.

This subpackage uses only the standard library and pytest; it does not import the rest of
:mod:`rkmlearn`.
"""
from .handout import EXCLUDED_FROM_STUDENT_COPY, student_copy
from .report import GradeReport, TestResult, validate_results
from .runner import (DEFAULT_TIMEOUT, ISOLATION_MODES, CollectedTest, GradingError, collect_tests,
                     grade, run_tests)

__all__ = [
    "grade", "collect_tests", "run_tests", "student_copy", "validate_results",
    "GradeReport", "TestResult", "CollectedTest", "GradingError",
    "DEFAULT_TIMEOUT", "ISOLATION_MODES", "EXCLUDED_FROM_STUDENT_COPY",
]
