"""Hostile: a child in its own session that keeps the grader's output pipe open for 60 s.

A grader that waits for end-of-file on the test process's output waits for this child too.
Defeated by an output drain that never waits for end-of-file, and by the sweep.
"""
import subprocess
import sys

try:
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)  # rkmlearn-hostile-h10"],
                     start_new_session=True)
except BaseException:
    pass


def _not_done(*args, **kwargs):
    raise NotImplementedError


# Chapter 1's functions, and the mini exercise's of the self-check (tests/test_grading.py).
rbf_gram = center_train_test = kpca_eig = kpca_transform = add = mul = _not_done
