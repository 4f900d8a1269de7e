"""Exercises 3 and 4: ``moc_codebook(n_classes)`` and ``decode_outputs(outputs, codebook)``."""
import numpy as np
import pytest


@pytest.mark.points(2)
def test_moc_codebook_is_the_binary_expansion(submission):
    for n_c in (3, 4, 10):
        C = np.asarray(submission.moc_codebook(n_c))
        m = int(np.ceil(np.log2(n_c)))
        assert C.shape == (n_c, m), f"n_classes = {n_c}: shape must be {(n_c, m)}, got {C.shape}"
        bits = (C > 0).astype(int)
        np.testing.assert_array_equal(bits @ (2 ** np.arange(m)), np.arange(n_c),
                                      err_msg="row c must be the bits of c, least significant first")
        assert set(np.unique(C)) == {-1.0, 1.0}, "entries must be -1 and +1"


@pytest.mark.points(2)
def test_decode_outputs_nearest_codeword(submission, rng):
    C = 2.0 * ((np.arange(6)[:, None] >> np.arange(3)) & 1) - 1.0
    idx = rng.integers(0, 6, size=40)
    F = C[idx] + 0.9 * rng.uniform(-1, 1, size=(40, 3))
    got = np.asarray(submission.decode_outputs(F, C))
    expected = np.argmin(((F[:, None, :] - C[None]) ** 2).sum(-1), axis=1)
    np.testing.assert_array_equal(got, expected, err_msg="not the nearest codeword")
    np.testing.assert_array_equal(got, idx)
