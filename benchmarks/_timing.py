"""Best-of-``repeats`` timers shared by the benchmarks (imported as a sibling module: the scripts
run as ``python benchmarks/<name>.py`` or through ``run_all.py``, both with this folder on the path)."""
from __future__ import annotations

import time

import numpy as np


def best_cpu(function, repeats):
    """The smallest CPU time (``time.process_time``) of ``repeats`` calls of ``function()``."""
    best = np.inf
    for _ in range(repeats):
        start = time.process_time()
        function()
        best = min(best, time.process_time() - start)
    return best


def best_wall(function, repeats):
    """``(smallest wall time of repeats calls, the last call's return value)``."""
    best, value = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        value = function()
        best = min(best, time.perf_counter() - start)
    return best, value
