"""Hostile: three children of 1 GiB each (the address-space cap is per process).

Graded with the audit hook off (as if defeated). Defeated by the kernel: a worker of an
exercise that allows no processes cannot fork (RLIMIT_NPROC 0). Answers right only when no
child could be started: it must get full marks and use no more than its cap.
"""
import os


def _children():
    started = 0
    for _ in range(3):
        try:
            pid = os.fork()
        except OSError:
            continue
        if pid == 0:
            try:
                block = bytearray(2**30)
                block[::4096] = b"x" * len(block[::4096])
            finally:
                os._exit(0)
        started += 1
        os.waitpid(pid, 0)
    return started


def add(a, b):
    return a + b if _children() == 0 else a - b


def mul(a, b):
    return a * b
