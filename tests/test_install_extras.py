"""The wheel, installed in a FRESH virtual environment, with each extra in turn.

What a student or an instructor does on a machine of their own: ``pip install
rkmlearn-*.whl`` (the core), then ``[grading]``, then ``[book,data]``. Each step is checked as a
user would meet it: the core imports, fits a model and loads every bundled data set; a feature
whose extra is missing says which extra to install; with ``[grading]`` a starter scores 0 and a
solution full marks, from a ``.py`` and from a notebook; with everything, ``pip check`` is clean.

Installs go through pip's configured indexes (the package registries), pinned to the tested set
by ``requirements.txt`` as a constraints file; the venv is outside the repository.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CH01 = ROOT / "exercises" / "ch01_kernels"
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]


def _clean_env() -> dict:
    # No PYTHONPATH (it could put a source tree, or its egg-info, in front of the venv's
    # site-packages: pip would then think rkmlearn is installed) and no outer virtualenv.
    return {k: v for k, v in os.environ.items()
            if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}


def _run(cmd, **kwargs):
    kwargs.setdefault("env", _clean_env())
    done = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, f"{cmd}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """(python of a fresh venv with the wheel installed, the wheel, a work folder)."""
    base = tmp_path_factory.mktemp("extras")
    src = base / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "rkmlearn", src / "rkmlearn",
                    ignore=shutil.ignore_patterns("__pycache__"))
    _run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir",
          str(base / "dist"), str(src)])
    (wheel,) = (base / "dist").glob("rkmlearn-*.whl")
    venv.create(base / "venv", with_pip=True)
    python = base / "venv" / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "-q", "-c", str(ROOT / "requirements.txt"),
          str(wheel)], cwd=base)
    return python, wheel, base


def _py(python, code, cwd):
    # cwd outside the repository and no PYTHONPATH: only the installed wheel can be imported.
    return _run([str(python), "-c", code], cwd=cwd)


def _install(python, wheel, extras, cwd):
    _run([str(python), "-m", "pip", "install", "-q", "-c", str(ROOT / "requirements.txt"),
          f"{wheel}[{extras}]"], cwd=cwd)


CORE = r"""
import importlib.util, json
import numpy as np
import rkmlearn
from rkmlearn import KPCA
from rkmlearn import datasets as ds
for extra in ("matplotlib", "ipywidgets", "pytest", "pooch", "statsmodels"):
    assert importlib.util.find_spec(extra) is None, extra + " came with the core"
X = np.random.default_rng(0).normal(size=(50, 3))
assert KPCA(2, kernel="rbf", kernel_params={"sigma": 1.0}).fit(X).H_.shape == (50, 2)
shapes = {
    "mfeat": [v.shape for v in ds.load_mfeat().views],
    "santafe": ds.load_santafe().train.shape,
    "sines": ds.sum_of_sines().train.shape,
    "sine_wave": ds.sine_wave().train.shape,
    "digits": ds.load_digits_split(random_state=0).X_train.shape,
}
if hasattr(ds, "load_mnist_5k"):
    shapes["mnist_5k"] = ds.load_mnist_5k().X_test.shape
messages = {}
for name, call in [("widgets", lambda: __import__("rkmlearn.widgets")),
                   ("sunspots", ds.load_sunspots),
                   ("grading", lambda: __import__("rkmlearn.grading", fromlist=["grade"])
                    .grade("EX", "sub.py"))]:
    try:
        call()
    except ImportError as exc:
        messages[name] = str(exc)
print(json.dumps({"shapes": {k: list(map(list, v)) if isinstance(v, list) else list(v)
                             for k, v in shapes.items()}, "messages": messages}))
"""


def test_core_wheel_works_without_extras_and_names_them(fresh):
    python, _, base = fresh
    out = json.loads(_py(python, CORE, base).strip().splitlines()[-1])
    assert out["shapes"]["mfeat"] == [[2000, d] for d in (76, 216, 64, 240, 47, 6)]
    assert out["shapes"]["santafe"] == [1000]
    assert out["shapes"]["mnist_5k"] == [2000, 784]  # bundled too (the paper's 2,000 test images)
    msgs = out["messages"]
    assert "rkmlearn[book]" in msgs["widgets"], msgs
    assert "rkmlearn[data]" in msgs["sunspots"], msgs
    assert "rkmlearn[grading]" in msgs["grading"], msgs


GRADE = r"""
import json, sys
from rkmlearn.grading import grade
ex, out = sys.argv[1], {}
for name in sys.argv[2:]:
    report = grade(ex, name, include_hidden=False, jobs=2)
    out[name] = [report.score, report.max_score]
print(json.dumps(out))
"""


def test_grading_extra_grades_py_and_notebook_from_a_handout(fresh):
    python, wheel, base = fresh
    _install(python, wheel, "grading", base)
    handout = base / "handout"
    env = _clean_env()
    _run([str(python), "-m", "rkmlearn.grading", "release", str(CH01), str(handout)], cwd=base)
    assert not list(handout.rglob("solution*")) and not (handout / "tests" / "hidden").exists()
    # The instructor's solutions, as a student would hand them in: .py and the notebook.
    shutil.copy(CH01 / "solution.py", base / "answer.py")
    shutil.copy(CH01 / "ch01_exercises.ipynb", base / "answer.ipynb")
    subs = [str(handout / "starter.py"), str(handout / "ch01_exercises.ipynb"),
            str(base / "answer.py"), str(base / "answer.ipynb")]
    done = subprocess.run([str(python), "-c", GRADE, str(handout), *subs], cwd=base, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    scores = json.loads(done.stdout.strip().splitlines()[-1])
    top = scores[subs[0]][1]
    assert top > 0
    assert scores[subs[0]] == scores[subs[1]] == [0, top], scores
    assert scores[subs[2]] == scores[subs[3]] == [top, top], scores


def test_all_extras_explorers_sunspots_and_pip_check(fresh):
    python, wheel, base = fresh
    _install(python, wheel, "book,data", base)
    out = _py(python, "import rkmlearn.widgets as w; from rkmlearn.datasets import "
                      "load_sunspots; print(type(w.FenchelYoungExplorer).__name__, "
                      "load_sunspots().series.shape)", base)
    assert "(" in out
    _run([str(python), "-m", "pip", "check"], cwd=base)


def test_project_venv_passes_pip_check():
    """The project's own .venv (what make test runs in): no package with broken pins."""
    _run([sys.executable, "-m", "pip", "check"])
