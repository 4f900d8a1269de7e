"""The grader's own errors: a usage error or a broken exercise, never a student's mistake."""


class GradingError(ValueError):
    """The grader cannot run: a usage error or a broken exercise, never a student's mistake."""


class MissingExtraError(GradingError, ImportError):
    """The grader needs a package that is not installed (``pip install 'rkmlearn[grading]'``)."""
