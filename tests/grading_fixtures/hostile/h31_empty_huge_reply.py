"""Hostile: reply with an empty array of huge dimensions (issue 36, row 6).

``np.zeros((0, N, N))`` is 0 bytes, and the wire accepted its shape; the test, on the judge's
side, then made N x N temporaries from it (2.55 GB at N = 12,000). Here N = 6,000: a (6000,
6000) float64 matrix is more than a reply may carry (256 MiB), so the judge refuses the reply
before the test sees it. ``mul`` answers honestly.
"""
import numpy as np

N = 6000


def add(a, b):
    return np.zeros((0, N, N))


def mul(a, b):
    return a * b
