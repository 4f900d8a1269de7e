"""Make the student copy of an exercise: everything except the solution and the hidden tests."""
from __future__ import annotations

import fnmatch
import shutil
from pathlib import Path

from .runner import GradingError

__all__ = ["student_copy", "EXCLUDED_FROM_STUDENT_COPY"]

# Relative to the exercise folder. `solution*` catches solution.py and any solution notes.
EXCLUDED_FROM_STUDENT_COPY = ("solution*", "tests/hidden")
_JUNK = ("__pycache__", ".pytest_cache", "*.pyc", ".ipynb_checkpoints")


def student_copy(exercise_dir, out_dir) -> list[str]:
    """Copy an exercise for students, leaving out ``solution*`` and ``tests/hidden/``.

    Parameters
    ----------
    exercise_dir : str or Path
        The exercise folder, e.g. ``exercises/ch01_kernels``.
    out_dir : str or Path
        Where the copy goes. It must not exist yet (or be an empty folder) and must not lie
        inside ``exercise_dir``.

    Returns
    -------
    list of str
        The copied files, relative to ``out_dir``, sorted.

    Raises
    ------
    GradingError
        If ``exercise_dir`` is not an exercise folder, or ``out_dir`` is not empty or lies inside it.
    """
    src = Path(exercise_dir).expanduser().resolve()
    dst = Path(out_dir).expanduser().resolve()
    if not src.is_dir() or not (src / "tests").is_dir():
        raise GradingError(f"exercise directory {str(exercise_dir)!r} does not exist or has no "
                           "tests/ folder; pass an exercise folder such as exercises/ch01_kernels")
    if dst == src or src in dst.parents:
        raise GradingError(f"out_dir {str(out_dir)!r} lies inside the exercise folder; choose a "
                           "folder elsewhere")
    if dst.exists() and (not dst.is_dir() or any(dst.iterdir())):
        raise GradingError(f"out_dir {str(out_dir)!r} already exists and is not an empty folder; "
                           "choose a new folder so that nothing is overwritten")

    def ignore(folder: str, names: list[str]) -> set[str]:
        rel = Path(folder).relative_to(src)
        skipped = set()
        for name in names:
            path = (rel / name).as_posix()
            if any(fnmatch.fnmatch(path, pat) for pat in EXCLUDED_FROM_STUDENT_COPY) or \
                    any(fnmatch.fnmatch(name, pat) for pat in _JUNK):
                skipped.add(name)
        return skipped

    shutil.copytree(src, dst, ignore=ignore, dirs_exist_ok=True)
    return sorted(p.relative_to(dst).as_posix() for p in dst.rglob("*") if p.is_file())
