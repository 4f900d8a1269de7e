"""The grader copies the environment for its runners while pytest (or an instructor's program)
may change it in another thread: a key listed and then removed must not break the copy."""
from __future__ import annotations

import os
from collections.abc import MutableMapping

from rkmlearn.grading import procs


class _Vanishing(MutableMapping):
    """An environment in which PYTEST_CURRENT_TEST disappears between listing and reading."""

    def __init__(self, data):
        self.data = dict(data)

    def __getitem__(self, key):
        if key == "PYTEST_CURRENT_TEST":
            raise KeyError(key)  # removed by another thread after the keys were listed
        return self.data[key]

    def __iter__(self):
        return iter(list(self.data))

    def __len__(self):
        return len(self.data)

    def __setitem__(self, key, value):
        self.data[key] = value

    def __delitem__(self, key):
        del self.data[key]


def test_a_key_removed_while_copying_is_left_out(monkeypatch):
    vanishing = _Vanishing({"HOME": "/home/student", "PYTEST_CURRENT_TEST": "t (call)", "LANG": "C"})
    monkeypatch.setattr(os, "environ", vanishing)
    try:
        dict(os.environ)
    except KeyError:
        pass  # what the judge did before: the grading failed with KeyError
    else:
        raise AssertionError("the stand-in environment does not reproduce the race")
    assert procs.environment() == {"HOME": "/home/student", "LANG": "C"}
