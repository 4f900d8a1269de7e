"""Hostile (mini exercise): hang, while a thread rewrites every grading record it can find.

The old grader read each test's clock from a record file its test process kept; this thread
keeps writing "just started" into any file named in the environment. ``add`` never returns.
The judge's clock lives in the judge: ``add``'s tests must time out on time.
"""
import json
import os
import threading
import time


def _refresh():
    while True:
        for value in list(os.environ.values()):
            try:
                with open(value, "w") as fh:
                    json.dump({"current": "x", "started_at": time.time(), "last_event": time.time()}, fh)
            except Exception:
                pass
        time.sleep(0.1)


def add(a, b):
    threading.Thread(target=_refresh, daemon=True).start()
    while True:
        pass


def mul(a, b):
    return a * b
