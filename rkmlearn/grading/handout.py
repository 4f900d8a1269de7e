"""Copies of an exercise: the student's handout, and the folder grading runs from.

Neither ever holds ``solution*``; the handout also leaves out ``tests/hidden``. A notebook is
copied as the student's version (solution blocks replaced, outputs cleared), never the source.
"""
from __future__ import annotations

import fnmatch
import shutil
from pathlib import Path

from .errors import GradingError
from .notebook import read_notebook, student_notebook, write_notebook

__all__ = ["student_copy", "grading_folder", "EXCLUDED_FROM_STUDENT_COPY"]

# Relative to the exercise folder. `solution*` catches solution.py and any solution notes.
EXCLUDED_FROM_STUDENT_COPY = ("solution*", "tests/hidden")
_JUNK = ("__pycache__", ".pytest_cache", "*.pyc", ".ipynb_checkpoints")


def _copy(src: Path, dst: Path, excluded: tuple[str, ...]) -> list[str]:
    def ignore(folder: str, names: list[str]) -> set[str]:
        rel = Path(folder).relative_to(src)
        return {name for name in names
                if any(fnmatch.fnmatch((rel / name).as_posix(), pat) for pat in excluded)
                or any(fnmatch.fnmatch(name, pat) for pat in _JUNK)}

    shutil.copytree(src, dst, ignore=ignore, dirs_exist_ok=True, symlinks=False)
    # A notebook holds the reference code between solution markers: every copy gets the
    # student's version (markers replaced, outputs cleared), never the source.
    for path in dst.rglob("*.ipynb"):
        write_notebook(student_notebook(read_notebook(path)), path)
    return sorted(p.relative_to(dst).as_posix() for p in dst.rglob("*") if p.is_file())


def _check_exercise(exercise_dir) -> Path:
    src = Path(exercise_dir).expanduser().resolve()
    if not src.is_dir() or not (src / "tests").is_dir():
        raise GradingError(f"exercise directory {str(exercise_dir)!r} does not exist or has no "
                           "tests/ folder; pass an exercise folder such as exercises/ch01_kernels")
    return src


def student_copy(exercise_dir, out_dir, with_hidden: bool = False) -> list[str]:
    """Copy an exercise for students, leaving out ``solution*`` and ``tests/hidden/``.

    Parameters
    ----------
    exercise_dir : str or Path
        The exercise folder, e.g. ``exercises/ch01_kernels``.
    out_dir : str or Path
        Where the copy goes. It must not exist yet (or be an empty folder) and must not lie
        inside ``exercise_dir``.
    with_hidden : bool, default=False
        Keep ``tests/hidden/``: the folder for a Gradescope autograder zip, which must hold the
        hidden tests but never the solution.

    Returns
    -------
    list of str
        The copied files, relative to ``out_dir``, sorted.

    Raises
    ------
    GradingError
        If ``exercise_dir`` is not an exercise folder, or ``out_dir`` is not empty or lies inside it.
    """
    src = _check_exercise(exercise_dir)
    dst = Path(out_dir).expanduser().resolve()
    if dst == src or src in dst.parents:
        raise GradingError(f"out_dir {str(out_dir)!r} lies inside the exercise folder; choose a "
                           "folder elsewhere")
    if dst.exists() and (not dst.is_dir() or any(dst.iterdir())):
        raise GradingError(f"out_dir {str(out_dir)!r} already exists and is not an empty folder; "
                           "choose a new folder so that nothing is overwritten")
    return _copy(src, dst, ("solution*",) if with_hidden else EXCLUDED_FROM_STUDENT_COPY)


def grading_folder(exercise_dir, out_dir, include_hidden: bool = True) -> Path:
    """The folder the tests run from: the student copy plus (optionally) ``tests/hidden``.

    Never the instructor's folder: ``solution*`` is left out whatever happens, and nothing the
    grading writes lands in the exercise.
    """
    dst = Path(out_dir)
    student_copy(exercise_dir, dst, with_hidden=include_hidden)
    return dst
