"""Hostile (mini exercise, processes allowed): daemons that should outlive the grading.

``add`` starts ``sh -c "sleep 120"`` in a new session twice: one holding the worker's output
pipe, one with its output elsewhere, both with this file's name in their environment (the tests
make that name unique). When processes are allowed, nothing stops them from starting; the sweep
must kill them (and the ``sleep`` they run), and the output drain must not wait for them.
"""
import os
import subprocess

MARK = os.path.basename(__file__)


def add(a, b):
    command, env = ["/bin/sh", "-c", "sleep 120; :"], {"RKMLEARN_HOSTILE": MARK}
    subprocess.Popen(command, start_new_session=True, env=env)  # keeps the output pipe
    subprocess.Popen(command, start_new_session=True, env=env, stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return a + b


def mul(a, b):
    return a * b
