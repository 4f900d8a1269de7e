"""Careless (mini exercise): ``add`` allocates and touches 1 GiB; ``mul`` is right.

Under the worker's memory cap numpy raises MemoryError; only ``add``'s tests fail.
"""
import numpy as np


def add(a, b):
    block = np.ones(2**30 // 8)
    return a + b + int(block[0]) - 1


def mul(a, b):
    return a * b
