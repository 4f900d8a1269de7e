"""Run every benchmark in this folder in one process and print its table.

``python benchmarks/run_all.py`` runs the full grids; ``--quick`` runs the small grids that
``make test`` uses (results printed, never asserted: timings depend on the machine).
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small grids, one repeat")
    parser.add_argument("names", nargs="*", help="benchmark files to run (default: all bench_*.py)")
    args = parser.parse_args(argv)
    paths = [HERE / n for n in args.names] if args.names else sorted(HERE.glob("bench_*.py"))
    for path in paths:
        print(f"\n=== {path.name} ({'quick' if args.quick else 'full'}) ===", flush=True)
        start = time.perf_counter()
        _load(path).main(quick=args.quick)
        print(f"--- {path.name} done in {time.perf_counter() - start:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
