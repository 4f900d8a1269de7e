"""Hostile: kill the grader (every ancestor) from inside a graded function.

No results at all is sometimes worth more than a bad one. Defeated when the worker cannot
signal processes outside its sandbox: another uid as root, Landlock's signal scope, and the
audit hook's refusal of os.kill.
"""
import os
import signal


def rbf_gram(X, Y=None, sigma=1.0):
    pid = os.getppid()
    chain = []
    for _ in range(6):
        if pid <= 1:
            break
        chain.append(pid)
        try:
            pid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
        except Exception:
            break
    for target in chain:
        try:
            os.kill(target, signal.SIGKILL)
        except Exception:
            pass
    raise NotImplementedError


center_train_test = kpca_eig = kpca_transform = rbf_gram
# The same attempt against the mini exercise of the self-check (tests/test_grading.py).
add = mul = rbf_gram
