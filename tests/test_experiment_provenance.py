"""Every stored result the book reads says how it was made, and points of it regenerate at HEAD.

Chapters 9 and 10 show numbers computed by ``benchmarks/experiment_*.py`` and stored beside them as
JSON. Each file records ``"provenance": {"command", "commit"}``; the scripts write it themselves
(``benchmarks/_provenance.py``), and a point of each file is recomputed here with today's library.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _stored_files():
    """The JSON files the notebooks read (every ``<name>.json`` a notebook names, found beside it)."""
    found = set()
    for notebook in (ROOT / "book").rglob("*.ipynb"):
        if ".ipynb_checkpoints" in notebook.parts or "_build" in notebook.parts:
            continue
        text = "".join("".join(c["source"]) for c in json.loads(notebook.read_text())["cells"])
        names = set(re.findall(r"[\w/.-]+\.json", text))
        found |= {notebook.parent / n for n in names if (notebook.parent / n).is_file()}
        # an f-string name such as f"mnist_{name}.json" (Chapter 9's three parts): every file it can name
        for head, tail in re.findall(r"([\w/.-]*)\{\w+\}([\w/.-]*\.json)", text):
            found |= set(notebook.parent.glob(f"{head}*{tail}"))
    return sorted(found)


def _load(name, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_book_reads_the_four_stored_files():
    names = {p.relative_to(ROOT).as_posix() for p in _stored_files()}
    assert names == {"book/deep/mnist_table2.json", "book/deep/mnist_depth.json", "book/deep/mnist_table3.json",
                     "book/recurrent/data/rrkm_santafe_grid.json"}


@pytest.mark.parametrize("path", _stored_files(), ids=lambda p: p.name)
def test_stored_file_records_command_and_commit(path):
    record = json.loads(path.read_text())["provenance"]
    command = shlex.split(record["command"])
    assert command[0] == "python" and (ROOT / command[1]).is_file(), record["command"]
    assert re.fullmatch(r"[0-9a-f]{40}", record["commit"]), record["commit"]
    known = subprocess.run(["git", "cat-file", "-e", f"{record['commit']}^{{commit}}"], cwd=ROOT,
                           capture_output=True)
    if (ROOT / ".git").exists():
        assert known.returncode == 0, f"{record['commit']} is not a commit of this repository"


def test_scripts_write_their_provenance(monkeypatch, tmp_path):
    mnist = _load("experiment_table2_mnist", monkeypatch)
    monkeypatch.setattr(mnist, "OUT", tmp_path)
    monkeypatch.setattr(mnist, "SAVE", True)
    monkeypatch.setattr("sys.argv", ["benchmarks/experiment_table2_mnist.py", "--part", "table2"])
    mnist.save("table2", {"correct": {"50,0,1 level": 1}})
    record = json.loads((tmp_path / "mnist_table2.json").read_text())["provenance"]
    assert record["command"] == "python benchmarks/experiment_table2_mnist.py --part table2"
    assert re.fullmatch(r"[0-9a-f]{40}", record["commit"]) or record["commit"].startswith("unknown")


def test_a_table2_draw_regenerates_at_head(monkeypatch):
    # N = 50, seed 0, one level: the smoother chosen on a validation split, then the test images right
    mnist = _load("experiment_table2_mnist", monkeypatch)
    stored = json.loads((ROOT / "book/deep/mnist_table2.json").read_text())
    for name in ("1 level", "3 levels"):
        correct, fraction = mnist.table2_cell(50, 0, name)
        assert (correct, fraction) == (stored["correct"][f"50,0,{name}"], stored["fraction"][f"50,0,{name}"])


def test_a_santafe_grid_row_regenerates_at_head(monkeypatch):
    santafe = _load("experiment_rrkm_santafe", monkeypatch)
    stored = json.loads((ROOT / "book/recurrent/data/rrkm_santafe_grid.json").read_text())
    row = stored["grid"][0]  # window 1, sigma_x 0.15, sigma_t 0.5, s 12, the kernel smoother
    setting = {k: row[k] for k in ("window", "sigma_x", "sigma_t", "s")}
    series = np.concatenate([santafe.load_santafe().train, santafe.load_santafe().test])
    values = santafe.scores(series[:1000], stored["origins"], setting, (("smoother", None),))[("smoother", None)]
    np.testing.assert_allclose(values, row["val"], rtol=1e-4)  # as Chapter 10 checks it
