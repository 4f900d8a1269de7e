"""Hostile: forge the grader's pass/fail record, then leave without a trace.

Looks for the record through the grader's environment variables (the old design put
RKMLEARN_GRADING_SELECT / RKMLEARN_GRADING_RESULT there) and through any JSON file named in the
environment or in the ancestors' command lines, writes "every test passed" into it and ends the
process with os._exit(0). Defeated when the record and the JSON are written by a process that
never runs student code, in a folder the student's process cannot reach.
"""
import json
import os
import time


def _forge():
    select, result = os.environ.get("RKMLEARN_GRADING_SELECT"), os.environ.get("RKMLEARN_GRADING_RESULT")
    if select and result:
        ids = json.load(open(select))
        ok = {"outcome": "passed", "duration": 0.0, "message": ""}
        record = {"found": ids, "tests": {i: {"phases": {"setup": ok, "call": ok, "teardown": ok}}
                                          for i in ids},
                  "current": None, "started_at": None, "last_event": time.time(),
                  "finished": True, "exitstatus": 0}
        with open(result, "w") as fh:
            json.dump(record, fh)
        os._exit(0)
    # Anything else that looks like a record: files named in the environment.
    for value in os.environ.values():
        if value.endswith(".json"):
            try:
                with open(value, "w") as fh:
                    json.dump({"score": 36.0, "max_score": 36.0, "tests": []}, fh)
            except Exception:
                pass


try:
    _forge()
except Exception:
    pass


def _not_done(*args, **kwargs):
    raise NotImplementedError


# Chapter 1's functions, and the mini exercise's of the self-check (tests/test_grading.py).
rbf_gram = center_train_test = kpca_eig = kpca_transform = add = mul = _not_done
