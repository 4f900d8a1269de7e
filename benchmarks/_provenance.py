"""Where a stored result came from: the command that made it and the commit of the code it ran.

Every JSON file that an experiment script writes for the book carries ``"provenance": {"command",
"commit", "dirty"}`` so that a reader can regenerate it (tests/test_experiment_provenance.py
recomputes stored points at HEAD and compares). ``dirty`` is True when the library or the scripts
differed from that commit (uncommitted changes under ``rkmlearn/`` or ``benchmarks/``).
"""
from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _git(*args):
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def provenance(argv=None):
    """``{"command", "commit", "dirty"}`` of this run (``argv``: default ``sys.argv``)."""
    argv = sys.argv if argv is None else argv
    script = Path(argv[0]).resolve()
    try:
        script = script.relative_to(ROOT)
    except ValueError:
        pass
    changes = _git("status", "--porcelain", "--untracked-files=no", "--", "rkmlearn", "benchmarks")
    return {"command": shlex.join(["python", str(script), *argv[1:]]),
            "commit": _git("rev-parse", "HEAD") or "unknown (not a git checkout)",
            "dirty": bool(changes)}
