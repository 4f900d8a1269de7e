"""Autograder for the book's exercises.

Grade a student's file against an exercise folder::

    python -m rkmlearn.grading exercises/ch01_kernels my_solution.py --json results.json

The submission is imported only in sandboxed worker processes (one per test); the tests, which
compare its answers with the expected ones, run in other processes that never import it, and
what it returns crosses over as plain data. ``README.md`` in this folder maps the modules (judge,
runner, sandbox, worker, report, batch, command line); ``exercises/README.md`` gives the
exercise format, the points and the JSON.

Students check one function from an exercise notebook with :func:`check`; instructors hand out
exercises with ``python -m rkmlearn.grading release`` and grade a class with ``... batch``.

This subpackage uses the standard library, numpy, pytest and nbformat (``pip install
'rkmlearn[grading]'``); it imports nothing of the rest of :mod:`rkmlearn`. Its names are
imported when first used (PEP 562): the sandboxed processes import modules of this package
without the judge's, and the sandbox needs Linux, while :func:`check` (which falls back on an
unsandboxed local check elsewhere) imports on macOS and Windows too.
"""
from importlib import import_module

# public name -> the module that defines it. No public name may also be a submodule's name:
# importing that submodule (the command line does) would bind the module on the package over the
# name (tests/test_lazy_names.py); hence self_check.py for check().
_HOMES = {
    "grade": "judge", "collect_tests": "judge", "DEFAULT_TIMEOUT": "judge",
    "CollectedTest": "judge", "default_jobs": "judge",
    "check": "self_check", "local_check": "self_check",
    "GradingError": "errors",
    "ExerciseConfig": "exercise", "load_config": "exercise",
    "student_copy": "handout", "EXCLUDED_FROM_STUDENT_COPY": "handout",
    "GradeReport": "report", "TestResult": "report", "validate_results": "report",
}
__all__ = list(_HOMES)


def __getattr__(name):
    if name in _HOMES:
        value = getattr(import_module(f".{_HOMES[name]}", __name__), name)
        globals()[name] = value  # looked up once
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
