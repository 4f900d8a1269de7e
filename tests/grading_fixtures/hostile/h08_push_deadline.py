"""Hostile: hang, but keep telling the grader that the test has only just started.

A thread rewrites ``started_at`` in the grader's record (found through the environment, as the
old design exposed it) every 0.2 s while ``rbf_gram`` loops forever. Defeated when the clock
that kills a call is the judge's own: nothing the worker writes moves it.
"""
import json
import os
import threading
import time


def _refresh():
    path = os.environ.get("RKMLEARN_GRADING_RESULT")
    while path:
        try:
            with open(path) as fh:
                record = json.load(fh)
            record["started_at"] = record["last_event"] = time.time()
            with open(path + ".x", "w") as fh:
                json.dump(record, fh)
            os.replace(path + ".x", path)
        except Exception:
            pass
        time.sleep(0.2)


def rbf_gram(X, Y=None, sigma=1.0):
    threading.Thread(target=_refresh, daemon=True).start()
    while True:
        pass


def _not_done(*args, **kwargs):
    raise NotImplementedError


center_train_test = kpca_eig = kpca_transform = _not_done
