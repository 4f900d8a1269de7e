"""An exercise's declared rules: the ``[grading]`` section of its ``pytest.ini``.

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
from dataclasses import dataclass
from pathlib import Path

from .errors import GradingError

__all__ = ["ExerciseConfig", "load_config"]

SECTION = "grading"


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
