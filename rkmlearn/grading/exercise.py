"""An exercise folder: its declared rules, the student copy, and the folder grading runs from.

An exercise declares what a submission may do in the ``[grading]`` section of its
``pytest.ini`` (pytest itself reads only ``[pytest]``)::

    [grading]
    functions = rbf_gram center_train_test kpca_eig kpca_transform
    allowed_imports = numpy scipy
    preload = numpy scipy.linalg
    processes = no
    memory_mb = 2048

``functions`` are the names the tests may call through the ``submission`` fixture (the book's
self-check requires the starter and the solution to define them); ``allowed_imports`` the
packages besides the standard library; ``preload`` modules the sandbox imports once, before any
submission exists, instead of once per test (they must be allowed imports); ``processes`` whether
the submission may start processes; ``memory_mb`` the worker's address-space limit. All are
optional (defaults: any function, numpy and scipy, numpy, no, 2048).
"""
from __future__ import annotations

import configparser
import fnmatch
import json
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ExerciseConfig", "GradingError", "MissingExtraError", "load_config",
           "student_copy", "grading_folder", "EXCLUDED_FROM_STUDENT_COPY"]

SECTION = "grading"
# Relative to the exercise folder. `solution*` catches solution.py and any solution notes.
EXCLUDED_FROM_STUDENT_COPY = ("solution*", "tests/hidden")
_JUNK = ("__pycache__", ".pytest_cache", "*.pyc", ".ipynb_checkpoints")


class GradingError(ValueError):
    """The grader cannot run: a usage error or a broken exercise, never a student's mistake."""


class MissingExtraError(GradingError, ImportError):
    """The grader needs a package that is not installed (``pip install 'rkmlearn[grading]'``)."""


@dataclass(frozen=True)
class ExerciseConfig:
    """The ``[grading]`` section of an exercise's ``pytest.ini``."""

    functions: tuple[str, ...] = ()
    allowed_imports: tuple[str, ...] = ("numpy", "scipy")
    preload: tuple[str, ...] = ("numpy",)
    processes: bool = False
    memory_mb: int = 2048


def load_config(exercise_dir) -> ExerciseConfig:
    """Read the ``[grading]`` section of ``exercise_dir/pytest.ini`` (defaults when absent).

    Raises
    ------
    GradingError
        When a value is malformed (names that are not identifiers, a memory size that is not a
        positive integer, ``processes`` that is not yes/no).
    """
    ini = Path(exercise_dir) / "pytest.ini"
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(ini, encoding="utf-8")
    except configparser.Error as exc:
        raise GradingError(f"{ini} cannot be parsed: {exc}") from None
    if not parser.has_section(SECTION):
        return ExerciseConfig()
    section = parser[SECTION]
    keys = ("functions", "allowed_imports", "preload", "processes", "memory_mb")
    unknown = set(section) - set(keys)
    if unknown:
        raise GradingError(f"{ini} [{SECTION}]: unknown key(s) {sorted(unknown)}; allowed are "
                           f"{', '.join(keys)}")

    def names(key: str, default: tuple[str, ...]) -> tuple[str, ...]:
        if key not in section:
            return default
        values = tuple(section[key].split())
        bad = [v for v in values if not all(part.isidentifier() for part in v.split("."))]
        if bad:
            raise GradingError(f"{ini} [{SECTION}] {key}: {bad} are not Python names; list "
                               "names separated by spaces")
        return values

    try:
        processes = section.getboolean("processes", fallback=False)
    except ValueError:
        raise GradingError(f"{ini} [{SECTION}] processes must be yes or no, got "
                           f"{section['processes']!r}") from None
    memory = section.get("memory_mb", "2048")
    if not memory.isdigit() or int(memory) < 64:
        raise GradingError(f"{ini} [{SECTION}] memory_mb must be an integer >= 64 (MiB), got "
                           f"{memory!r}")
    allowed = names("allowed_imports", ("numpy", "scipy"))
    preload = names("preload", ("numpy",))
    stray = [m for m in preload if m.split(".")[0] not in ("numpy", *allowed)]
    if stray:
        raise GradingError(f"{ini} [{SECTION}] preload: {stray} are not allowed imports")
    return ExerciseConfig(functions=names("functions", ()), allowed_imports=allowed,
                          preload=preload, processes=processes, memory_mb=int(memory))


def _copy(src: Path, dst: Path, excluded: tuple[str, ...]) -> list[str]:
    def ignore(folder: str, names: list[str]) -> set[str]:
        rel = Path(folder).relative_to(src)
        return {name for name in names
                if any(fnmatch.fnmatch((rel / name).as_posix(), pat) for pat in excluded)
                or any(fnmatch.fnmatch(name, pat) for pat in _JUNK)}

    shutil.copytree(src, dst, ignore=ignore, dirs_exist_ok=True, symlinks=False)
    # A notebook holds the reference code between solution markers: every copy gets the
    # student's version (markers replaced, outputs cleared), never the source.
    from .notebook import read_notebook, student_notebook

    for path in dst.rglob("*.ipynb"):
        text = json.dumps(student_notebook(read_notebook(path)), indent=1, ensure_ascii=False)
        path.write_text(text + "\n", encoding="utf-8")
    return sorted(p.relative_to(dst).as_posix() for p in dst.rglob("*") if p.is_file())


_PARSE_LOCK = threading.Lock()


def parse_python(source: str):
    """``ast.parse(source)``, one thread at a time.

    CPython 3.11's parser keeps its recursion depth in shared state: two threads parsing at once
    (gradings run in threads, e.g. a pool of ``grade`` calls) can fail with "SystemError: AST
    constructor recursion depth mismatch".
    """
    import ast

    with _PARSE_LOCK:
        return ast.parse(source)


def read_regular_file(path) -> bytes:
    """The bytes of ``path``, which must be a regular file: never through a symbolic link.

    A submission that is a link (to ``solution.py``, say), a device, a FIFO or a folder is
    refused: the grader runs as root, which could read what the link points to.
    """
    import os
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if os.path.islink(path):
            raise GradingError(f"submission {str(path)!r} is a symbolic link; submit the file "
                               "itself") from None
        raise GradingError(f"submission {str(path)!r} cannot be opened: {exc.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise GradingError(f"submission {str(path)!r} is not a regular file (a folder, "
                               "device or pipe); submit a .py or .ipynb file")
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


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
