"""The experiment scripts run: every `benchmarks/experiment_*.py --quick` (`experiment_table2_mfeat.py`'s
default mode once crashed with KeyError 'f0' because a list overwrote the `per_view` flag;
`experiment_table2_mnist.py`, which made Chapter 9's stored tables, once crashed at import of a
moved helper, with no test running it)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_table2_mfeat_quick_mode_runs(capsys):
    acc = _load("experiment_table2_mfeat").main(quick=True)
    assert set(acc) == {"BSV", "BSV b=0", "FC", "Comm", "Comm, weights tuned", "add", "mean", "MV-LSSVM"}
    for key, values in acc.items():
        assert values.shape == (1,) and 10 < values[0] <= 100, key
    assert np.mean([acc["add"][0], acc["mean"][0]]) > 80  # 200 training digits: far above chance
    assert "rhoTMV-RKM_add" in capsys.readouterr().out


# every other experiment script, as `make test` runs it: `python benchmarks/<script> --quick` (seconds each);
# experiment_table2_mfeat.py runs in process above
SCRIPTS = sorted(p.name for p in (ROOT / "benchmarks").glob("experiment_*.py"))
IN_PROCESS = {"experiment_table2_mfeat.py"}


def test_every_experiment_script_has_a_quick_mode():
    for name in SCRIPTS:
        assert '"--quick"' in (ROOT / "benchmarks" / name).read_text(), f"{name} has no --quick mode"


@pytest.mark.parametrize("name", [n for n in SCRIPTS if n not in IN_PROCESS])
def test_experiment_script_quick_mode_runs(name, tmp_path):
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / name), "--quick"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip(), f"{name} --quick printed nothing"
    assert not list(tmp_path.iterdir()), "a quick run writes nothing"
