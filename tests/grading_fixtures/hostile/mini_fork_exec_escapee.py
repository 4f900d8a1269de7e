"""Hostile (mini exercise): start a process although the rules forbid it, past the audit hook.

``_posixsubprocess.fork_exec`` forks without raising an audit event, and its ``preexec_fn`` runs
Python code in the child before any exec (which Landlock would refuse): the child leaves the
session and sleeps. A hole in the in-process layer, on purpose: the sweep must still find and
kill the child (it is re-parented to the runner, a subreaper, and as root it has the sandbox uid).
"""
import os
import time

import _posixsubprocess


def _stay():
    os.setsid()
    while True:
        time.sleep(1)


def add(a, b):
    r, w = os.pipe()
    args = [b"/bin/true"]
    _posixsubprocess.fork_exec(args, args, True, (), None, None, -1, -1, -1, -1, -1, -1, r, w,
                               True, False, -1, None, None, None, -1, _stay, False)
    return a + b


def mul(a, b):
    return a * b
