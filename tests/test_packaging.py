"""The wheel carries every subpackage and data file of rkmlearn.

A peer library shipped a wheel without its subpackages for a year: packaging is easy to get wrong
silently, because the editable install used by every other test reads the source tree directly.
This test builds a real wheel from a copy of the tracked sources, checks its file list against the
source tree, installs it into an empty folder and imports every module from there.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "rkmlearn"
DATA_SUFFIXES = {".json", ".txt", ".csv", ".dat", ".gz"}


def _source_files() -> tuple[set[str], set[str]]:
    """Subpackages and data files of the source tree, as wheel-relative paths."""
    packages, data = set(), set()
    for path in PACKAGE.rglob("*"):
        if "__pycache__" in path.parts:
            continue
        rel = path.relative_to(ROOT).as_posix()
        if path.name == "__init__.py":
            packages.add(path.parent.relative_to(ROOT).as_posix())
        elif path.is_file() and path.suffix in DATA_SUFFIXES:
            data.add(rel)
    return packages, data


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(PACKAGE, src / "rkmlearn", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(src)],
        check=True, capture_output=True, text=True,
    )
    (whl,) = out.glob("rkmlearn-*.whl")
    return whl


def test_wheel_contains_every_subpackage_and_data_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    packages, data = _source_files()
    assert "rkmlearn" in packages and len(packages) >= 2, packages
    missing_packages = sorted(p for p in packages if f"{p}/__init__.py" not in names)
    assert not missing_packages, f"subpackages missing from the wheel: {missing_packages}"
    missing_data = sorted(d for d in data if d not in names)
    assert not missing_data, f"data files missing from the wheel: {missing_data}"
    modules = {p.relative_to(ROOT).as_posix() for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}
    assert modules <= names, f"modules missing from the wheel: {sorted(modules - names)}"


def test_installed_wheel_imports_every_module(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target",
         str(target), str(wheel)],
        check=True, capture_output=True, text=True,
    )
    modules = sorted(
        ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for p in PACKAGE.rglob("*.py")
        if "__pycache__" not in p.parts and p.name != "__main__.py"
    )
    code = (
        "import importlib, sys\n"
        f"mods = {modules!r}\n"
        "for m in mods:\n"
        "    mod = importlib.import_module(m)\n"
        f"    assert mod.__file__.startswith({str(target)!r}), (m, mod.__file__)\n"
        "print(len(mods))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    # cwd outside the repository, so the source tree cannot shadow the installed wheel.
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.strip()) == len(modules)
