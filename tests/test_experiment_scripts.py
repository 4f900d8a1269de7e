"""The experiment scripts of Part III run: `benchmarks/experiment_table2_mfeat.py --quick` (issue 22:
its default mode crashed with KeyError 'f0' because a list overwrote the `per_view` flag)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

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
