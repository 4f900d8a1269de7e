import pytest


@pytest.mark.points(2)
def test_add(submission):
    assert submission.add(2, 3) == 5


@pytest.mark.points(1)
def test_mul(submission):
    assert submission.mul(2, 3) == 6


def test_mul_unmarked(submission):  # no points marker: counts 1 point
    assert submission.mul(-1, 4) == -4
