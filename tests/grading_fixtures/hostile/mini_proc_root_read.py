"""Hostile: read the reference solution through /proc/self/root/../<path>.

The audit hook's check of '..' was lexical; with Landlock unavailable the hook was the only
wall. The self-check writes the solution's absolute path in place of SOLUTION and grades this
with Landlock off. Answers right only if it read the solution: it must score 0.
"""
SOLUTION = ""  # replaced by the self-check


def _leaked():
    try:
        with open("/proc/self/root/.." + SOLUTION) as fh:
            return "def add" in fh.read()
    except Exception:
        return False


def add(a, b):
    return a + b if _leaked() else 0


def mul(a, b):
    return a * b if _leaked() else 0
