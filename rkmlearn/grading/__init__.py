"""Autograder for the book's exercises.

Grade a student's file against an exercise folder::

    python -m rkmlearn.grading exercises/ch01_kernels my_solution.py --json results.json

The submission is imported only in sandboxed worker processes (one per test); the tests, which
compare its answers with the expected ones, run in other processes that never import it, and
what it returns crosses over as plain data. See :mod:`rkmlearn.grading.runner` for the processes,
:mod:`rkmlearn.grading.sandbox` and :mod:`rkmlearn.grading._worker` for what the worker can
touch, and ``exercises/README.md`` for the exercise format, the points and the JSON.

This subpackage uses the standard library, numpy and pytest; it does not import the rest of
:mod:`rkmlearn` (its runner processes load it as a package of its own).
"""
from .exercise import (EXCLUDED_FROM_STUDENT_COPY, ExerciseConfig, GradingError, load_config,
                       student_copy)
from .report import GradeReport, TestResult, validate_results
from .runner import DEFAULT_TIMEOUT, CollectedTest, collect_tests, default_jobs, grade

__all__ = [
    "grade", "collect_tests", "student_copy", "validate_results", "load_config",
    "GradeReport", "TestResult", "CollectedTest", "GradingError", "ExerciseConfig",
    "DEFAULT_TIMEOUT", "EXCLUDED_FROM_STUDENT_COPY", "default_jobs",
]
