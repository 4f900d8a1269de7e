"""`add` never returns: catastrophic regex backtracking runs inside C, where no signal reaches it."""
import re


def add(a, b):
    re.match(r"(a|aa)+$", "a" * 200 + "b")
    return a + b


def mul(a, b):
    return a * b
