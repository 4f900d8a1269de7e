"""``python -m rkmlearn.grading gradescope EXERCISE OUT.zip``: a Gradescope autograder zip.

The zip holds what Gradescope runs, at its top level:

* ``setup.sh``: run once, as root, when Gradescope builds the image: a virtual environment in
  ``/opt/rkmlearn`` with the course's wheel and its ``[grading]`` extra, every version pinned by
  ``requirements.txt`` (used as pip constraints, so only what grading needs is installed);
* ``run_autograder``: grades the uploaded ``.ipynb`` or ``.py`` into
  ``/autograder/results/results.json`` (``$AUTOGRADER`` and ``$RKMLEARN_PYTHON`` change the
  layout and the interpreter, for a test outside Gradescope);
* ``requirements.txt``: the repository's pins (or, from an installed wheel, the versions
  installed here of what grading imports);
* ``rkmlearn-*.whl``: the wheel (built from this checkout unless ``--wheel`` names one);
* ``EXERCISE/``: the exercise without ``solution*``, hidden tests included.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from .errors import GradingError
from .handout import student_copy

__all__ = ["export", "SETUP_SH", "RUN_AUTOGRADER"]

CHECKOUT = Path(__file__).resolve().parents[2]
GRADING_PACKAGES = ("numpy", "scipy", "scikit-learn", "pytest", "nbformat", "pyseccomp",
                    "fastjsonschema", "jsonschema", "traitlets", "jupyter_core", "iniconfig",
                    "pluggy", "packaging", "joblib", "threadpoolctl")

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image.
set -euo pipefail
cd /autograder/source
apt-get update && apt-get install -y python3 python3-pip python3-venv
python3 -m venv /opt/rkmlearn
# requirements.txt pins every version (as constraints: only what grading needs is installed).
/opt/rkmlearn/bin/pip install -c requirements.txt "$(ls rkmlearn-*.whl)[grading]"
chmod -R go-rwx /autograder/source    # hidden tests: readable by root only
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this as root for every submission; the student's code runs in the sandbox.
set -euo pipefail
AUTOGRADER="${{AUTOGRADER:-/autograder}}"
PYTHON="${{RKMLEARN_PYTHON:-/opt/rkmlearn/bin/python}}"
mkdir -p "$AUTOGRADER/results"
submission=$(find "$AUTOGRADER/submission" -maxdepth 2 -type f \\( -name '*.ipynb' -o -name '*.py' \\) | sort | head -n 1)
if [ -z "$submission" ]; then
    cat > "$AUTOGRADER/results/results.json" <<'EOF'
{{"score": 0, "execution_time": 0, "visibility": "visible", "stdout_visibility": "hidden", "tests": [],
 "output": "No .ipynb or .py file was uploaded: upload your exercise notebook ({exercise}) or a .py file."}}
EOF
    exit 0
fi
"$PYTHON" -m rkmlearn.grading "$AUTOGRADER/source/{exercise}" "$submission" \\
    --json "$AUTOGRADER/results/results.json" --show {show}
"""


def _requirements(path) -> str:
    if path is not None:
        return Path(path).read_text(encoding="utf-8")
    if (CHECKOUT / "requirements.txt").is_file():
        return (CHECKOUT / "requirements.txt").read_text(encoding="utf-8")
    from importlib import metadata

    pins = []
    for name in GRADING_PACKAGES:
        try:
            pins.append(f"{name}=={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            continue
    return "# the versions installed where the zip was made\n" + "\n".join(pins) + "\n"


def _wheel(given, folder: Path) -> Path:
    if given is not None:
        wheel = Path(given)
        if not (wheel.is_file() and wheel.name.startswith("rkmlearn-") and wheel.suffix == ".whl"):
            raise GradingError(f"--wheel {str(given)!r} is not an rkmlearn-*.whl file")
        return wheel
    if not (CHECKOUT / "pyproject.toml").is_file():
        raise GradingError("rkmlearn is installed from a wheel, not run from its repository: "
                           "pass that wheel with --wheel dist/rkmlearn-*.whl")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                           "--no-build-isolation", "-q", "-w", str(folder), str(CHECKOUT)],
                          capture_output=True, text=True)
    found = sorted(folder.glob("rkmlearn-*.whl"))
    if done.returncode != 0 or not found:
        raise GradingError(f"building the wheel failed (pip wheel {CHECKOUT}):\n"
                           + done.stderr[-2000:])
    return found[0]


def export(exercise_dir, out_zip, *, wheel=None, requirements=None,
           show: str = "visible") -> list[str]:
    """Write the autograder zip of ``exercise_dir`` to ``out_zip``; return its file names.

    Raises
    ------
    GradingError
        If the folder is not an exercise, ``out_zip`` exists or is not a ``.zip`` in an existing
        folder, or no wheel can be found or built.
    """
    exercise = Path(exercise_dir).resolve()
    if not (exercise / "tests").is_dir():
        raise GradingError(f"EXERCISE {str(exercise_dir)!r} is not an exercise folder (no tests/)")
    out = Path(out_zip)
    if out.suffix != ".zip" or not out.parent.is_dir() or out.exists():
        raise GradingError(f"OUT {str(out_zip)!r} must be a new .zip file in an existing folder")
    with tempfile.TemporaryDirectory(prefix="rkmlearn-gradescope-") as tmp:
        stage = Path(tmp) / "autograder"
        student_copy(exercise, stage / exercise.name, with_hidden=True)
        shutil.copy(_wheel(wheel, Path(tmp)), stage)
        (stage / "requirements.txt").write_text(_requirements(requirements), encoding="utf-8")
        (stage / "setup.sh").write_text(SETUP_SH, encoding="utf-8")
        (stage / "run_autograder").write_text(
            RUN_AUTOGRADER.format(exercise=exercise.name, show=show), encoding="utf-8")
        names = []
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(stage.rglob("*")):
                if path.is_file():
                    name = path.relative_to(stage).as_posix()
                    info = zipfile.ZipInfo.from_file(path, name)
                    info.external_attr = (0o755 if name in ("setup.sh", "run_autograder")
                                          else 0o644) << 16
                    info.compress_type = zipfile.ZIP_DEFLATED
                    archive.writestr(info, path.read_bytes())
                    names.append(name)
    os.chmod(out, 0o644)
    return names
