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
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .errors import GradingError
from .exercise import load_config
from .notebook import (definitions, definitions_only, module_of_cells, notebook_submission,
                       read_notebook)

__all__ = ["check", "find_exercise", "local_check", "CheckResult", "LocalCheckFailed"]


class LocalCheckFailed(GradingError):
    """pytest itself failed in the local check (not the student's code): exit non-zero."""

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


def _notebook_file(shell) -> Path | None:
    """The file of the notebook this kernel runs, where the front end says it (JupyterLab and
    Notebook 7 set ``__session__`` and ``$JPY_SESSION_NAME``; VS Code ``__vsc_ipynb_file__``)."""
    for value in (shell.user_ns.get("__session__"), shell.user_ns.get("__vsc_ipynb_file__"),
                  os.environ.get("JPY_SESSION_NAME")):
        if isinstance(value, str) and value.endswith(".ipynb") and Path(value).is_file():
            return Path(value)
    return None


def _kernel_code() -> tuple[str, list[str]]:
    """The code a fresh kernel would have: the definitions of the cells this kernel ran, in the
    order they ran, less those the notebook no longer has (a deleted or rewritten cell).

    A definition is stale when the name it binds is bound by no cell of the saved notebook any
    more: a fresh kernel (Restart and Run All) would not have it, so neither has the check, and a
    note says so. When the notebook's file cannot be found, the kernel's history is graded and
    a note says how to make sure that it is the notebook's.
    """
    # Inside a kernel IPython is already imported; the grader itself never imports it.
    get_ipython = getattr(sys.modules.get("IPython"), "get_ipython", None)
    shell = get_ipython() if get_ipython is not None else None
    if shell is None:
        raise GradingError("check() reads the code of the notebook it runs in; outside Jupyter "
                           "pass the file: check('rbf_gram', submission='my_answers.py')")
    history = [c for c in list(shell.user_ns.get("In", []))[1:-1]  # the last: this check cell
               if isinstance(c, str)]
    nb_file = _notebook_file(shell)
    if nb_file is None:
        source, notes = definitions_only(history)
        return source, notes + ["check() could not find this notebook's file, so it graded "
                                "every cell this kernel has run, in the order they ran; if you "
                                "deleted or changed cells since, restart the kernel and run all "
                                "cells (Kernel > Restart Kernel and Run All Cells)"]
    current = notebook_submission(read_notebook(nb_file))
    in_notebook = set().union(*(names for names, _ in definitions(current.source))) \
        if current.source.strip() else set()
    kept, stale, notes = [], [], []
    module = module_of_cells([(f"code cell {n}", c) for n, c in enumerate(history, start=1)])
    notes += module.notes
    for names, text in definitions(module.source):
        if names and not names & in_notebook:
            stale.extend(sorted(names))
            if text.startswith(("import ", "from ")):
                continue  # an import a fresh kernel would not run: left out
        kept.append(text)
    if stale:
        notes.append(f"an earlier definition is in play: this kernel still has "
                     f"{', '.join(stale)} from a cell that the saved {nb_file.name} no longer "
                     "holds; check() left such imports out, as a fresh kernel would. Restart the "
                     "kernel (Kernel > Restart Kernel and Run All Cells) so that it matches the "
                     "notebook (and save the notebook first if you added that cell since)")
    return "\n\n\n".join(kept) + "\n", notes


class CheckResult:
    """What :func:`check` found: the report, whether it ran unsandboxed, and notes."""

    def __init__(self, function, report, local: bool = False, notes=()):
        self.function, self.report, self.local = function, report, local
        self.notes = list(notes)

    @property
    def passed(self) -> bool:
        return all(t.passed for t in self.report.tests)

    def _rows(self):
        for test in self.report.tests:
            name = test.name.split("::", 1)[-1].replace("test_", "", 1).replace("_", " ")
            yield name, test.score, test.max_score, test.passed, test.message

    def __repr__(self) -> str:
        lines = [NOT_SANDBOXED] if self.local else []
        lines += [f"note: {n}" for n in self.notes]
        lines.append(f"check({self.function!r}): {self.report.summary()}")
        for name, score, top, passed, message in self._rows():
            lines.append(f"  {'PASS' if passed else 'FAIL'} {score:g}/{top:g}  {name}")
            if not passed:
                lines.append(f"        {message}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        rows = []
        for name, score, top, passed, message in self._rows():
            mark = "&#10004;" if passed else "&#10008;"
            hint = "" if passed else html.escape(message)
            rows.append(f"<tr><td>{mark}</td><td>{html.escape(name)}</td>"
                        f"<td>{score:g}/{top:g}</td><td>{hint}</td></tr>")
        notes = "".join(f"<p><b>note:</b> {html.escape(n)}</p>" for n in self.notes)
        head = f"<p><b>{html.escape(NOT_SANDBOXED)}</b></p>" if self.local else ""
        return (f"{head}{notes}<p><b>check({html.escape(repr(self.function))})</b>: "
                f"{html.escape(self.report.summary())}</p><table><tr><th></th><th>test</th>"
                f"<th>points</th><th>what failed (hint)</th></tr>{''.join(rows)}</table>")


def _module_file(submission, folder: Path):
    """(the .py file to test, the notebook's module or None) for a .py or .ipynb submission."""
    sub = Path(submission)
    if sub.suffix == ".ipynb":
        module = notebook_submission(read_notebook(sub))
        path = folder / (sub.stem + ".py")
        path.write_text(module.source, encoding="utf-8")
        return path, module
    if sub.suffix != ".py" or not sub.is_file():
        raise GradingError(f"submission {str(submission)!r} is not an existing .py file or "
                           "exercise notebook (.ipynb)")
    return sub.resolve(), None


def local_check(exercise_dir, submission, *, function: str | None = None,
                timeout: float = 30.0, include_hidden: bool = False):
    """Grade ``submission`` (``.py`` or ``.ipynb``) with the exercise's PUBLIC tests, unsandboxed.

    For a student's own code on macOS or Windows, where the sandbox cannot run: plain pytest with
    :mod:`rkmlearn.grading.local_plugin` (CPU time read in the test process; ``timeout``
    seconds per call, after which that function's other tests fail at once). Returns a
    :class:`~rkmlearn.grading.GradeReport` with the same points and messages as the grader.

    Raises
    ------
    GradingError
        When the folder is not an exercise, the file is not a .py or .ipynb file, or pytest
        itself could not run the tests (its output is in the message).
    """
    from .report import GradeReport, TestResult
    from .feedback import explain_missing, locate

    started = time.monotonic()
    exercise = Path(exercise_dir).resolve()
    public = exercise / "tests" / "public"
    if not public.is_dir():
        raise GradingError(f"{exercise} has no tests/public folder; pass an exercise (handout) "
                           "folder")
    folders = [public] + ([exercise / "tests" / "hidden"] if include_hidden
                          and (exercise / "tests" / "hidden").is_dir() else [])
    args = [str(p) for folder in folders for p in sorted(folder.rglob("test_*.py"))]
    if function is not None:
        from .testfiles import tests_calling  # static: which tests call the function

        only = sorted(tests_calling(exercise, function))
        if not only:
            raise GradingError(f"no public test calls {function}()")
        args = [str(exercise / t) for t in only if t.startswith("tests/public/")]
    with tempfile.TemporaryDirectory(prefix="rkmlearn-local-") as tmp:
        path, module = _module_file(submission, Path(tmp))
        results = Path(tmp) / "results.json"
        # The plugin's own names (imported here: it imports pytest and numpy).
        from .local_plugin import RESULTS_ENV, SUBMISSION_ENV, TIMEOUT_ENV

        env = {**os.environ, SUBMISSION_ENV: str(path), RESULTS_ENV: str(results),
               TIMEOUT_ENV: f"{timeout:g}",
               "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
        # Exercises have no conftest.py (their plugin gives the fixtures): none is loaded here.
        cmd = [sys.executable, "-m", "pytest", "-c", os.devnull, "--rootdir", str(exercise),
               "--noconftest", "-p", "rkmlearn.grading.local_plugin", "-p", "no:cacheprovider",
               "-q", "--import-mode=importlib", "-o", "addopts=", "-p", "no:randomly", *args]
        try:
            done = subprocess.run(cmd, cwd=exercise, env=env, capture_output=True, text=True,
                                  timeout=600 + 10 * timeout, errors="replace")
        except subprocess.TimeoutExpired:
            raise LocalCheckFailed("the local check did not finish; an endless loop in C "
                                   "code, which cannot be interrupted?") from None
        data = json.loads(results.read_text(encoding="utf-8")) if results.is_file() else None
        if data is None or data["exitstatus"] not in (0, 1) or not data["tests"]:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
            raise LocalCheckFailed(f"pytest could not run the tests (exit status "
                                   f"{done.returncode}):\n{tail}")
    tests = []
    for entry in data["tests"]:
        message = entry["message"]
        if module is not None and message:
            message = explain_missing(locate(message, path.name, module.where), module.dropped)
        name = entry["nodeid"][len("tests/"):] if entry["nodeid"].startswith("tests/") \
            else entry["nodeid"]
        tests.append(TestResult(name=name, max_score=entry["points"], passed=entry["passed"],
                                message=message, hidden=entry["hidden"]))
    return GradeReport(exercise=str(exercise), submission=str(submission), tests=tests,
                       execution_time=time.monotonic() - started,
                       sandbox={"sandbox": "none (local check, not sandboxed)"},
                       notes=list(module.notes) if module is not None else [])


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
        else:
            path = Path(submission)
        if not sandbox:
            report = local_check(folder, path, function=function)
            return CheckResult(function, report, local=True, notes=notes + report.notes)
        from .judge import grade

        report = grade(folder, path, timeout=timeout, include_hidden=False, function=function,
                       jobs=1)
    return CheckResult(function, report, notes=notes + report.notes)
