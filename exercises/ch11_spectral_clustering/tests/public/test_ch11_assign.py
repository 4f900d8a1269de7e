"""Exercise 2: ``ksc_assign(scores, codebook)``."""
import numpy as np
import pytest


@pytest.mark.points(2)
def test_assign_nearest_codeword(submission):
    codebook = np.array([[1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0]])
    scores = np.array([[0.3, 2.0], [-0.1, 0.5], [-3.0, -0.2], [0.0, -1.0], [5.0, -4.0]])
    got = np.asarray(submission.ksc_assign(scores, codebook))
    # [+,+] -> 0; [-,+] -> 1; [-,-] -> 2; [+,-] (0 counts as +) -> distance 1 to 0 and to 2: tie -> 0
    np.testing.assert_array_equal(got, [0, 1, 2, 0, 0])


@pytest.mark.points(1)
def test_assign_many_points(submission, rng):
    codebook = np.where(rng.normal(size=(4, 3)) >= 0, 1.0, -1.0)
    scores = rng.normal(size=(500, 3))
    signs = np.where(scores >= 0, 1.0, -1.0)
    expected = np.argmin((signs[:, None] != codebook[None]).sum(axis=2), axis=1)
    np.testing.assert_array_equal(np.asarray(submission.ksc_assign(scores, codebook)), expected)
