"""Hostile: start threads at import until the sandbox uid cannot fork (issue 36, row 8).

``RLIMIT_NPROC`` counts threads, and every runner's worker shared the sandbox uid: this worker
starts THREADS idle threads at import and keeps them while ``add`` sleeps, so another runner's
zygote could not fork its worker, and the grading failed as the sandbox's fault ("grading
failed: the sandbox could not start"). It also prints a line in the form of the sandbox's own
diagnostics. It answers both functions honestly: its honest marks are full marks.
"""
import threading
import time

THREADS = 125
_stop = threading.Event()
threading.stack_size(256 * 1024)  # 125 threads within the address-space cap
_threads = []
for _ in range(THREADS):
    try:
        thread = threading.Thread(target=_stop.wait, daemon=True)
        thread.start()
    except RuntimeError:
        break
    _threads.append(thread)
print("grader: the worker's namespaces: forged by the submission", flush=True)


def add(a, b):
    time.sleep(2.0)  # hold the threads while the other runner starts its workers
    return a + b


def mul(a, b):
    time.sleep(2.0)
    return a * b
