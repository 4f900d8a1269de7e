"""The grader's own errors: a usage error or a broken exercise, never a student's mistake."""


class GradingError(ValueError):
    """The grader cannot run: a usage error or a broken exercise, never a student's mistake."""


class MissingExtraError(GradingError, ImportError):
    """The grader needs a package that is not installed (``pip install 'rkmlearn[grading]'``)."""


class InfrastructureError(GradingError):
    """The sandbox failed, twice (the grading is retried once): the grader's or the machine's
    fault, and no score of the submission; never reported as a 0."""
