"""Hostile (or careless): an endless loop at import time.

Must be detected once and graded 0 in about one per-test time-out, not one time-out per test.
"""
while True:
    pass
