"""Hostile: leave a 1,100-deep chain of folders in the scratch folder.

shutil.rmtree recursed once per level and the grader crashed (RecursionError): no table, no
JSON, and a root-only copy of the hidden tests left behind. Defeated by a cleanup that walks
with one directory descriptor at a time. Answers honestly: it must get full marks.
"""
import os


def _chain():
    path = "d"
    for _ in range(1100):
        try:
            os.mkdir(path)
        except OSError:
            return
        path += "/d"


def add(a, b):
    _chain()
    return a + b


def mul(a, b):
    return a * b
