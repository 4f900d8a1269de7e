"""Grading results: one record per test, a plain-text table and a Gradescope ``results.json``.

The JSON written by :meth:`GradeReport.to_gradescope` follows the results format of the Gradescope
autograder (``/autograder/results/results.json``), which most learning-management systems either
read directly or convert easily::

    {
      "score": 35.0,                 # points earned, ALL tests (what Gradescope records)
      "max_score": 36.0,
      "execution_time": 9.8,         # seconds, wall clock, from the grader's start
      "output": "Visible tests: 24/24 points (100.0 %). ...",   # shown to students
      "visibility": "visible",
      "stdout_visibility": "hidden",
      "extra_data": {"visible_score": 24.0, "visible_max_score": 24.0,
                     "hidden_score": 11.0, "hidden_max_score": 12.0,
                     "sandbox": {"uid": "sandbox uid 60200", "landlock": "on (ABI 7)", ...}},
      "tests": [
        {"number": 1, "name": "public/test_rbf_gram.py::test_matches_sklearn",
         "score": 2.0, "max_score": 2.0, "status": "passed",
         "output": "passed", "visibility": "visible"},
        {"number": 2, "name": "hidden/test_rbf_gram_hidden.py::test_far_from_origin",
         "score": 0.0, "max_score": 1.0, "status": "failed",
         "output": "AssertionError: ...", "visibility": "after_due_date"}
      ]
    }

Public tests are ``"visible"``; hidden tests are ``"after_due_date"`` so that students see them
only once the deadline has passed. The ``output`` text shown to students counts the visible tests
only; the total, hidden points included, is in ``score`` (and ``extra_data``) for the instructor.
"""
from __future__ import annotations

import re

import math
import shutil
import textwrap
from dataclasses import dataclass, field

__all__ = ["TestResult", "GradeReport", "validate_results", "shorten"]

VISIBLE = "visible"
HIDDEN = "after_due_date"
# --show: what students see. "visible" before the due date, "hidden" (every test) after it.
HIDDEN_SHOWN = "hidden"
SHOW = ("visible", HIDDEN_SHOWN)
_VISIBILITIES = {"visible", "hidden", "after_due_date", "after_published"}


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` with every control character shown as an escape (``\\x1b``): what a submission
    puts in a message or a name never drives the instructor's terminal (clear the screen, move
    the cursor, print a fake score) or reorders text (bidirectional overrides)."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), str(text))


def shorten(text: str, limit: int) -> str:
    """Collapse ``text`` onto one line (lines joined by `` | ``), escape its control characters
    and cut it to ``limit`` characters."""
    lines = [" ".join(printable(line).split()) for line in str(text).splitlines()]
    one_line = " | ".join(line for line in lines if line)
    if len(one_line) <= limit:
        return one_line
    return one_line[: max(limit - 3, 0)] + "..."


def _fmt_points(value: float) -> str:
    """Points without a spurious ``.0``: 2 -> '2', 0.5 -> '0.5'."""
    return f"{value:g}"


@dataclass
class TestResult:
    """The outcome of one graded test.

    Attributes
    ----------
    name : str
        The test's pytest node id relative to the exercise's ``tests/`` folder, e.g.
        ``"public/test_rbf_gram.py::test_matches_sklearn"``.
    max_score : float
        Points the test is worth (its ``@pytest.mark.points(n)``; 1 when unmarked).
    passed : bool
        Whether the test passed. A test earns all of its points or none.
    message : str
        Why it failed (assertion, exception, time-out, crash), or ``""`` when it passed.
    hidden : bool
        True for tests under ``tests/hidden/``.
    duration : float
        Seconds the test's phases took (setup, call, teardown), as its runner measured them.
    """

    __test__ = False  # not a pytest test class, despite the name

    name: str
    max_score: float
    passed: bool
    message: str = ""
    hidden: bool = False
    duration: float = 0.0

    @property
    def score(self) -> float:
        return self.max_score if self.passed else 0.0

    @property
    def visibility(self) -> str:
        return HIDDEN if self.hidden else VISIBLE


@dataclass
class GradeReport:
    """All test results of one submission, with totals, a table and JSON export."""

    exercise: str
    submission: str
    tests: list[TestResult] = field(default_factory=list)
    execution_time: float = 0.0
    sandbox: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)     # for the student: cells left out, ...
    warnings: list[str] = field(default_factory=list)  # for the instructor only

    @property
    def score(self) -> float:
        return math.fsum(t.score for t in self.tests)

    @property
    def max_score(self) -> float:
        return math.fsum(t.max_score for t in self.tests)

    @property
    def percent(self) -> float:
        return 100.0 * self.score / self.max_score if self.max_score > 0 else 0.0

    def _total(self, hidden: bool) -> tuple[float, float]:
        tests = [t for t in self.tests if t.hidden == hidden]
        return math.fsum(t.score for t in tests), math.fsum(t.max_score for t in tests)

    @property
    def has_hidden(self) -> bool:
        return any(t.hidden for t in self.tests)

    def summary(self) -> str:
        """The one-line total of ALL tests, e.g. ``"Score: 7/12 (58.3 %)"`` (instructors)."""
        return (f"Score: {_fmt_points(self.score)}/{_fmt_points(self.max_score)} "
                f"({self.percent:.1f} %)")

    def student_summary(self) -> str:
        """What students may see before the due date: the visible tests' points only."""
        if not self.has_hidden:
            return self.summary()
        score, top = self._total(hidden=False)
        percent = 100.0 * score / top if top > 0 else 0.0
        _, hidden_top = self._total(hidden=True)
        count = sum(t.hidden for t in self.tests)
        return (f"Visible tests: {_fmt_points(score)}/{_fmt_points(top)} points ({percent:.1f} %). "
                f"{count} hidden tests ({_fmt_points(hidden_top)} points) are graded as well; "
                "their results are shown after the due date.")

    def format_table(self, width: int | None = None, show: str = HIDDEN_SHOWN) -> str:
        """The results as a plain-text table followed by the score line.

        One row per test (name, points earned/available, passed); a failed test gets its whole
        message under it, indented and wrapped to ``width``. Notes on the submission (cells left
        out for a syntax error) come first.

        Parameters
        ----------
        width : int, optional
            Width in characters messages are wrapped to. Defaults to the terminal's width (100
            when there is no terminal), but never less than 60.
        show : {"hidden", "visible"}, default="hidden"
            ``"visible"``: what a student may see before the due date: the visible tests and
            their score only, and how many hidden tests there are. ``"hidden"``: every test.
        """
        if show not in SHOW:
            raise ValueError(f"show must be one of {SHOW}, got {show!r}")
        if width is None:
            width = shutil.get_terminal_size((100, 24)).columns
        width = max(int(width), 60)
        shown = [t for t in self.tests if show == HIDDEN_SHOWN or not t.hidden]
        rows = [(t.name, f"{_fmt_points(t.score)}/{_fmt_points(t.max_score)}",
                 "yes" if t.passed else "NO", t.message) for t in shown]
        out = []
        for note in self.notes:
            out += textwrap.wrap("NOTE: " + printable(note), width, subsequent_indent="      ")
        if out:
            out.append("")
        name_w = max([len("test")] + [len(r[0]) for r in rows])
        pts_w = max([len("points")] + [len(r[1]) for r in rows])
        out += [f"{'test':<{name_w}}  {'points':>{pts_w}}  passed", "-" * (name_w + pts_w + 10)]
        for name, pts, ok, message in rows:
            out.append(f"{name:<{name_w}}  {pts:>{pts_w}}  {ok}")
            if message:
                out += textwrap.wrap(shorten(message, 100_000), width, initial_indent="    -> ",
                                     subsequent_indent="       ", break_on_hyphens=False)
        out.append("")
        if show == HIDDEN_SHOWN:
            out.append(self.summary())
            if self.has_hidden:
                (vis, vis_top), (hid, hid_top) = self._total(False), self._total(True)
                out.append(f"(visible tests {_fmt_points(vis)}/{_fmt_points(vis_top)}, hidden "
                           f"tests {_fmt_points(hid)}/{_fmt_points(hid_top)})")
        else:
            out += textwrap.wrap(self.student_summary(), width)
        return "\n".join(out)

    def to_gradescope(self, show: str = "visible") -> dict:
        """The report as a Gradescope ``results.json`` dictionary (format in the module docstring).

        ``show="visible"`` (before the due date): hidden tests are ``"after_due_date"`` and the
        text students see counts the visible tests only; ``show="hidden"``: every test visible.
        Notes on the submission (cells left out) head the ``output`` text.
        """
        if show not in SHOW:
            raise ValueError(f"show must be one of {SHOW}, got {show!r}")
        tests = [{
            "number": i,
            "name": t.name,
            "score": t.score,
            "max_score": t.max_score,
            "status": "passed" if t.passed else "failed",
            "output": "passed" if t.passed else t.message,
            "visibility": VISIBLE if show == HIDDEN_SHOWN else t.visibility,
        } for i, t in enumerate(self.tests, start=1)]
        (vis, vis_top), (hid, hid_top) = self._total(False), self._total(True)
        summary = self.summary() if show == HIDDEN_SHOWN else self.student_summary()
        return {
            "score": self.score,
            "max_score": self.max_score,
            "execution_time": round(self.execution_time, 3),
            "output": "\n\n".join([*(f"NOTE: {n}" for n in self.notes), summary]),
            "visibility": VISIBLE,
            "stdout_visibility": "hidden",
            "extra_data": {"visible_score": vis, "visible_max_score": vis_top,
                           "hidden_score": hid, "hidden_max_score": hid_top,
                           "notes": list(self.notes), "warnings": list(self.warnings),
                           "sandbox": dict(self.sandbox)},
            "tests": tests,
        }

    @classmethod
    def from_gradescope(cls, data: dict, exercise: str = "", submission: str = "") -> GradeReport:
        """Rebuild a report from :meth:`to_gradescope` output (after validating it)."""
        validate_results(data)
        tests = [TestResult(name=t["name"], max_score=float(t["max_score"]),
                            passed=t["score"] == t["max_score"] and t.get("status") != "failed",
                            message="" if t.get("status") == "passed" else t["output"],
                            hidden=t["visibility"] != VISIBLE
                            or t["name"].startswith("hidden/"))
                 for t in data["tests"]]
        extra = data.get("extra_data") or {}
        return cls(exercise=exercise, submission=submission, tests=tests,
                   execution_time=float(data["execution_time"]),
                   sandbox=dict(extra.get("sandbox") or {}),
                   notes=[str(n) for n in extra.get("notes") or []],
                   warnings=[str(n) for n in extra.get("warnings") or []])


def validate_results(data: dict) -> None:
    """Check that ``data`` has the ``results.json`` shape; raise ``ValueError`` saying what is wrong.

    Parameters
    ----------
    data : dict
        A parsed ``results.json``.
    """
    if not isinstance(data, dict):
        raise ValueError(f"results must be a JSON object, got {type(data).__name__}")
    for key, kind in (("score", (int, float)), ("max_score", (int, float)),
                      ("execution_time", (int, float)), ("tests", list)):
        if not isinstance(data.get(key), kind) or isinstance(data.get(key), bool):
            raise ValueError(f"results[{key!r}] must be {'a list' if kind is list else 'a number'}, "
                             f"got {data.get(key)!r}")
    if "extra_data" in data and not isinstance(data["extra_data"], dict):
        raise ValueError(f"results['extra_data'] must be an object, got {data['extra_data']!r}")
    total = 0.0
    for i, test in enumerate(data["tests"]):
        if not isinstance(test, dict):
            raise ValueError(f"results['tests'][{i}] must be an object, got {test!r}")
        for key, kind in (("name", str), ("score", (int, float)), ("max_score", (int, float)),
                          ("output", str), ("visibility", str)):
            if not isinstance(test.get(key), kind) or isinstance(test.get(key), bool):
                raise ValueError(f"results['tests'][{i}][{key!r}] has the wrong type or is missing: "
                                 f"{test.get(key)!r}")
        if test["visibility"] not in _VISIBILITIES:
            raise ValueError(f"results['tests'][{i}]['visibility'] must be one of "
                             f"{sorted(_VISIBILITIES)}, got {test['visibility']!r}")
        if not 0 <= test["score"] <= test["max_score"]:
            raise ValueError(f"results['tests'][{i}]: score {test['score']} is outside "
                             f"[0, max_score={test['max_score']}]")
        total += test["score"]
    if not math.isclose(total, data["score"], rel_tol=1e-9, abs_tol=1e-9):
        raise ValueError(f"results['score'] = {data['score']} is not the sum of the test scores "
                         f"({total})")
