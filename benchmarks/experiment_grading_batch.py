"""Grade a class with ``python -m rkmlearn.grading batch``: 20 submissions of Chapter 1.

Ten copies of the reference solution and ten of the starter, as twenty students, graded with
``--jobs 2`` (two judges at a time, one runner each): the wall time of the whole batch, the time
per submission, and one feedback file. The full batch takes minutes; run it with
``python benchmarks/experiment_grading_batch.py [--jobs 2] [--students 20]``. ``--quick``: two
students (one solution, one starter), one judge: the smoke run that ``make test`` runs.
"""
from __future__ import annotations

import argparse
import csv
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CH01 = ROOT / "exercises" / "ch01_kernels"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="2 students, 1 judge")
    args = parser.parse_args(argv)
    if args.quick:
        args.students, args.jobs = 2, 1
    with tempfile.TemporaryDirectory(prefix="rkm-batch-") as tmp:
        subs = Path(tmp) / "submissions"
        subs.mkdir()
        for k in range(args.students):
            source = CH01 / ("solution.py" if k % 2 == 0 else "starter.py")
            shutil.copy(source, subs / f"student{k:02d}.py")
        out = Path(tmp) / "marks"
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "rkmlearn.grading", "batch", str(CH01),
                               str(subs), "--out", str(out), "--jobs", str(args.jobs)],
                              capture_output=True, text=True)
        wall = time.perf_counter() - start
        print(done.stdout.strip())
        if done.returncode != 0:
            print(done.stderr[-3000:])
            return done.returncode
        with open(out / "marks.csv", newline="") as fh:
            rows = list(csv.DictReader(fh))
        totals = sorted({r["total"] for r in rows})
        print(f"{len(rows)} submissions, --jobs {args.jobs}: {wall:.1f} s wall, "
              f"{wall / len(rows):.2f} s per submission; totals seen: {totals} of "
              f"{rows[0]['max_score']}")
        print("\nfeedback/student01.txt (a starter):\n")
        print((out / "feedback" / "student01.txt").read_text()[:1500])
    return 0


if __name__ == "__main__":
    sys.exit(main())
