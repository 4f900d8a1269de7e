import pytest


@pytest.mark.points(1)
def test_add_negative(submission):
    assert submission.add(-2, -3) == -5
