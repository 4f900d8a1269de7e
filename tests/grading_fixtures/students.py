"""The four students of issue 31's walk-through, built from Chapter 1's exercise notebook.

* ``alice``: the reference solution copied (every cell as the source notebook has it);
* ``bob``: the starter (the handout notebook, untouched);
* ``carol``: half done: ``rbf_gram`` with its arguments swapped (K(Y, X) instead of K(X, Y)),
  ``center_train_test`` right, the kernel PCA functions not started;
* ``dave``: everything right but a syntax error in the ``center_train_test`` cell and an endless
  loop in ``kpca_eig``.

Used by tests/test_grading_course.py and by ``python tests/grading_fixtures/students.py
EXERCISE OUT_DIR`` (the issue's walk-through).
"""
from __future__ import annotations

import copy
import sys
from pathlib import Path

from rkmlearn.grading.notebook import (read_notebook, remove_markers, student_notebook,
                                       write_notebook)

ROOT = Path(__file__).resolve().parents[2]
CH01 = ROOT / "exercises" / "ch01_kernels"


def _cells(nb: dict):
    for cell in nb["cells"]:
        if cell.get("cell_type") == "code":
            yield cell, "".join(cell["source"]) if isinstance(cell["source"], list) \
                else cell["source"]


def _set(cell: dict, text: str) -> None:
    cell["source"] = text.splitlines(keepends=True)


def solution_notebook(exercise: Path = CH01) -> dict:
    nb = copy.deepcopy(read_notebook(next(exercise.glob("*_exercises.ipynb"))))
    for cell, text in _cells(nb):
        _set(cell, remove_markers(text))
    return nb


def students(exercise: Path = CH01) -> dict:
    """name -> notebook (a dict) of the four students."""
    source = read_notebook(next(exercise.glob("*_exercises.ipynb")))
    alice = solution_notebook(exercise)
    bob = student_notebook(source)
    carol = student_notebook(source)
    solved = {text.split("(")[0]: text for _, text in _cells(alice) if text.startswith("def ")}
    for cell, text in _cells(carol):
        if text.startswith("def rbf_gram"):
            # The arguments swapped: K(Y, X), of shape (m, n) instead of (n, m).
            _set(cell, solved["def rbf_gram"].replace(
                "def rbf_gram(X, Y=None, sigma=1.0):",
                "def rbf_gram(X, Y=None, sigma=1.0):\n    if Y is not None:\n"
                "        X, Y = Y, X"))
        elif text.startswith("def center_train_test"):
            _set(cell, solved["def center_train_test"])
        elif text.startswith('"""') or "import" in text.split("\n", 1)[0]:
            _set(cell, next(t for _, t in _cells(alice) if t.startswith(text[:20])))
    dave = solution_notebook(exercise)
    for cell, text in _cells(dave):
        if text.startswith("def center_train_test(K_train, K_test):"):
            _set(cell, text.replace("def center_train_test(K_train, K_test):",
                                    "def center_train_test(K_train, K_test:", 1))
        elif text.startswith("def kpca_eig"):
            body = text.index('"""', text.index('"""') + 3) + 3
            _set(cell, text[:body] + "\n    while True:\n        pass\n" + text[body:])
    return {"alice": alice, "bob": bob, "carol": carol, "dave": dave}


def write_students(folder: Path, exercise: Path = CH01) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, nb in students(exercise).items():
        paths[name] = folder / f"{name}.ipynb"
        write_notebook(nb, paths[name])
    return paths


if __name__ == "__main__":
    for name, path in write_students(Path(sys.argv[2]), Path(sys.argv[1])).items():
        print(name, path)
