"""The packages that import their public names lazily (PEP 562: ``rkmlearn`` and
``rkmlearn.grading``) give the object, not a submodule, however they were imported before.

Importing a submodule binds its name on the package. Where a public name equals a submodule's
name (``rkmlearn.grading.check`` was the module of the function ``check``), whoever imported the
submodule first (the command line, a test) made ``from rkmlearn.grading import check`` a module
for everyone after, and ``check("rbf_gram")`` failed with "'module' object is not callable".
"""
from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["rkmlearn", "rkmlearn.grading"]


def _submodule_names(package: str) -> set[str]:
    return {info.name for info in pkgutil.iter_modules(importlib.import_module(package).__path__)}


def _lazy_names(package: str) -> set[str]:
    """The names the package imports when first used (not the subpackages it lists as such)."""
    module = importlib.import_module(package)
    return set(module._HOMES)


@pytest.mark.parametrize("package", PACKAGES)
def test_no_lazy_name_is_also_a_submodule(package):
    clashes = _lazy_names(package) & _submodule_names(package)
    assert not clashes, (f"{package}: public name(s) {sorted(clashes)} are also submodules; "
                         "importing the submodule would shadow the name")


# In a fresh interpreter: import every submodule the package has (as the command line or a test
# would), then every public name, which must be what its home module defines.
_AFTER_SUBMODULES = r"""
import importlib, inspect, pkgutil, sys
package = importlib.import_module(sys.argv[1])
for info in pkgutil.iter_modules(package.__path__):
    if not info.name.startswith("_"):
        importlib.import_module(f"{package.__name__}.{info.name}")
wrong = []
for name, home in package._HOMES.items():
    got = getattr(importlib.import_module(package.__name__), name)
    expected = getattr(importlib.import_module(f".{home}", package.__name__), name)
    if got is not expected:
        wrong.append(f"{name}: {got!r}")
print("\n".join(wrong) or "ok")
"""


@pytest.mark.parametrize("package", PACKAGES)
def test_public_names_survive_importing_every_submodule(package):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    result = subprocess.run([sys.executable, "-c", _AFTER_SUBMODULES, package], cwd=ROOT,
                            env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok", result.stdout


def test_check_from_a_notebook_after_the_command_line_imported_its_module():
    # what the exercise notebooks' first cell does, after the grader's own modules were loaded
    # (cli.py imports the check's module for ``python -m rkmlearn.grading local``)
    importlib.import_module("rkmlearn.grading.cli")
    for info in pkgutil.iter_modules(importlib.import_module("rkmlearn.grading").__path__):
        if not info.name.startswith("_") and info.name != "worker":
            importlib.import_module(f"rkmlearn.grading.{info.name}")
    from rkmlearn.grading import check, local_check

    assert inspect.isfunction(check) and check.__name__ == "check"
    assert inspect.isfunction(local_check)
