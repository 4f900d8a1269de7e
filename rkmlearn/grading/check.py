"""``check("rbf_gram")``: grade one function of an exercise from the notebook you are working in.

In an exercise notebook (``chNN_exercises.ipynb`` of the handout that ``python -m
rkmlearn.grading release`` writes), each exercise ends with a check cell::

    from rkmlearn.grading import check
    check("rbf_gram")

It grades the public tests that call that function, on the code the notebook has run so far: the
imports, functions, classes and UPPER_CASE constants of every cell executed in this kernel, in the
order they ran (a cell run again replaces its earlier definitions, as in the kernel). On Linux
that is the course grader itself (the same sandbox, tests and points); on macOS and Windows the
public tests run unsandboxed, clearly labelled, which is fine for your own code.
"""
from __future__ import annotations

import html
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from .errors import GradingError
from .exercise import load_config
from .notebook import definitions_only, read_notebook, submission_module

__all__ = ["check", "find_exercise", "local_check", "CheckResult"]

NOT_SANDBOXED = ("LOCAL CHECK, NOT SANDBOXED: your code ran in the same process as the tests. "
                 "Fine for your own code; the course's grader (Linux) is what counts.")


def find_exercise(function: str, start=None) -> Path:
    """The exercise folder for ``function``: the nearest folder at or above ``start`` (the
    current directory) whose ``pytest.ini`` declares it in ``[grading] functions``."""
    here = Path.cwd() if start is None else Path(start)
    for folder in [here, *here.resolve().parents]:
        if (folder / "pytest.ini").is_file() and (folder / "tests").is_dir():
            functions = load_config(folder).functions
            if not functions or function in functions:
                return folder
            raise GradingError(f"{function!r} is not an exercise of {folder.name}; its "
                               f"functions are: {', '.join(functions)}")
    raise GradingError("no exercise folder found here or above: open the notebook from your "
                       "handout folder (python -m rkmlearn.grading release EXERCISE OUT), or "
                       "pass exercise='path/to/the/exercise'")


def _kernel_code() -> tuple[str, list[str]]:
    """The definitions of every cell this IPython kernel has run, in order."""
    # Inside a kernel IPython is already imported; the grader itself never imports it.
    get_ipython = getattr(sys.modules.get("IPython"), "get_ipython", None)
    shell = get_ipython() if get_ipython is not None else None
    if shell is None:
        raise GradingError("check() reads the code of the notebook it runs in; outside Jupyter "
                           "pass the file: check('rbf_gram', submission='my_answers.py')")
    history = list(shell.user_ns.get("In", []))[1:-1]  # the last one is this check cell
    return definitions_only(history)


class CheckResult:
    """What :func:`check` found: the report (or the local pytest output) and a table."""

    def __init__(self, function, report=None, local_output=None, notes=()):
        self.function, self.report, self.local_output = function, report, local_output
        self.notes = list(notes)

    @property
    def passed(self) -> bool:
        if self.report is not None:
            return all(t.passed for t in self.report.tests)
        return " failed" not in self.local_output and " error" not in self.local_output

    def _rows(self):
        for test in self.report.tests:
            name = test.name.split("::", 1)[-1].replace("test_", "", 1).replace("_", " ")
            yield name, test.score, test.max_score, test.passed, test.message

    def __repr__(self) -> str:
        if self.report is None:
            return NOT_SANDBOXED + "\n" + self.local_output
        lines = [f"check({self.function!r}): {self.report.summary()}"]
        for name, score, top, passed, message in self._rows():
            lines.append(f"  {'PASS' if passed else 'FAIL'} {score:g}/{top:g}  {name}")
            if not passed:
                lines.append(f"        {message}")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        if self.report is None:
            return (f"<p><b>{html.escape(NOT_SANDBOXED)}</b></p><pre>"
                    f"{html.escape(self.local_output)}</pre>")
        rows = []
        for name, score, top, passed, message in self._rows():
            mark = "&#10004;" if passed else "&#10008;"
            hint = "" if passed else html.escape(message)
            rows.append(f"<tr><td>{mark}</td><td>{html.escape(name)}</td>"
                        f"<td>{score:g}/{top:g}</td><td>{hint}</td></tr>")
        notes = "".join(f"<p>note: {html.escape(n)}</p>" for n in self.notes)
        return (f"<p><b>check({html.escape(repr(self.function))})</b>: "
                f"{html.escape(self.report.summary())}</p><table><tr><th></th><th>test</th>"
                f"<th>points</th><th>what failed (hint)</th></tr>{''.join(rows)}</table>{notes}")


def local_check(exercise_dir, submission, *, function: str | None = None,
                timeout: float = 300.0) -> str:
    """Run the exercise's PUBLIC tests on ``submission`` with plain pytest, unsandboxed.

    For a student's own code on macOS or Windows, where the sandbox cannot run. Returns pytest's
    output, headed by a line saying that nothing was sandboxed.
    """
    exercise = Path(exercise_dir).resolve()
    public = exercise / "tests" / "public"
    if not public.is_dir():
        raise GradingError(f"{exercise} has no tests/public folder")
    from .testfiles import tests_calling  # static: which tests call the function

    args = [str(p) for p in sorted(public.rglob("test_*.py"))]
    if function is not None:
        only = sorted(tests_calling(exercise, function))
        if not only:
            raise GradingError(f"no public test calls {function}()")
        args = [str(exercise / t) for t in only if t.startswith("tests/public/")]
    env = {**os.environ, "RKMLEARN_SUBMISSION": str(Path(submission).resolve()),
           "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    # Exercises have no conftest.py (their plugin gives the fixtures): none is loaded here.
    cmd = [sys.executable, "-m", "pytest", "-c", os.devnull, "--rootdir", str(exercise),
           "--noconftest", "-p", "rkmlearn.grading.local_plugin", "-p", "no:cacheprovider", "-q",
           "--import-mode=importlib", "-o", "addopts=", *args]
    done = subprocess.run(cmd, cwd=exercise, env=env, capture_output=True, text=True,
                          timeout=timeout)
    return NOT_SANDBOXED + "\n" + done.stdout + done.stderr


def check(function: str, *, exercise=None, submission=None, timeout: float = 30.0,
          sandbox: bool | None = None) -> CheckResult:
    """Grade the public tests of one exercise function on your current code.

    Parameters
    ----------
    function : str
        The function to check, e.g. ``"rbf_gram"``.
    exercise : str or Path, optional
        The exercise folder; default: found from the current directory (the handout folder
        the notebook sits in).
    submission : str or Path, optional
        A ``.py`` or ``.ipynb`` file to check instead of the code this notebook has run.
    timeout : float, default=30
        Seconds of your code's time per test.
    sandbox : bool, optional
        Default: the course's sandboxed grader on Linux, the unsandboxed local check elsewhere.

    Returns
    -------
    CheckResult
        Shown as a table in Jupyter: each test, its points, and what failed with a hint.
    """
    if not isinstance(function, str) or not function.isidentifier():
        raise GradingError(f"function must be the name of an exercise function such as "
                           f"'rbf_gram', got {function!r}")
    folder = find_exercise(function) if exercise is None else Path(exercise)
    sandbox = sys.platform.startswith("linux") if sandbox is None else sandbox
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="rkmlearn-check-") as tmp:
        if submission is None:
            source, notes = _kernel_code()
            path = Path(tmp) / "notebook_code.py"
            path.write_text(source, encoding="utf-8")
        elif Path(submission).suffix == ".ipynb":
            source, notes = submission_module(read_notebook(submission))
            path = Path(tmp) / "notebook_code.py"
            path.write_text(source, encoding="utf-8")
        else:
            path = Path(submission)
        if not sandbox:
            return CheckResult(function, local_output=local_check(folder, path, function=function),
                               notes=notes)
        from .judge import grade

        report = grade(folder, path, timeout=timeout, include_hidden=False, function=function,
                       jobs=1)
    return CheckResult(function, report=report, notes=notes)
