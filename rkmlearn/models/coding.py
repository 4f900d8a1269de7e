"""Output codes of multi-class RKM classifiers: one-versus-all and minimum output coding.

A classifier with ``m`` binary outputs encodes ``n_c`` classes by a codebook ``C`` (n_c, m) with
entries ``+-1``: class ``c`` is the codeword ``C[c]`` (Chapter 8, :eq:`eq-tensor-codes`). Training
targets are the rows ``Y = C[y]``; a new sample with output values ``f`` (m,) is assigned the class
of the nearest codeword in Euclidean distance. All codewords have the same norm ``sqrt(m)``, so the
nearest codeword is the one with the largest ``f^T C[c]``; for one-versus-all this is the class of
the largest output.
"""

from __future__ import annotations

import numpy as np

from .._validation import array, check_option, validate

__all__ = ["CODINGS", "output_codebook", "encode_labels", "decode_outputs"]

#: The output codes: one-versus-all (``m = n_c``) and minimum output coding (``m = ceil(log2 n_c)``).
CODINGS = ("ova", "moc")


def output_codebook(n_classes, coding="ova"):
    """The codebook ``C`` (n_classes, m) of ``+-1`` entries, :eq:`eq-tensor-codes`.

    ``"ova"``: ``C = 2 I - 1`` (``m = n_classes``), output ``l`` separates class ``l`` from the
    rest. ``"moc"``: row ``c`` is the binary expansion of ``c`` (least significant bit first, bit
    0 -> -1, bit 1 -> +1), ``m = ceil(log2 n_classes)`` outputs. Two classes need one output in
    both codes: ``C = [[-1], [+1]]``.

    Parameters
    ----------
    n_classes : int
        At least 2.
    coding : {"ova", "moc"}, default="ova"

    Returns
    -------
    codebook : ndarray of shape (n_classes, m)

    Examples
    --------
    >>> output_codebook(3, "ova")
    array([[ 1., -1., -1.],
           [-1.,  1., -1.],
           [-1., -1.,  1.]])
    >>> output_codebook(3, "moc")
    array([[-1., -1.],
           [ 1., -1.],
           [-1.,  1.]])
    """
    coding = check_option(coding, "coding", CODINGS)
    if isinstance(n_classes, (bool, np.bool_)) or not isinstance(n_classes, (int, np.integer)) or n_classes < 2:
        raise ValueError(
            f"n_classes must be an integer >= 2 (a classifier needs two classes); got {n_classes!r}."
        )
    n_classes = int(n_classes)
    if n_classes == 2:
        return np.array([[-1.0], [1.0]])
    if coding == "ova":
        return 2.0 * np.eye(n_classes) - 1.0
    m = int(np.ceil(np.log2(n_classes)))
    bits = (np.arange(n_classes)[:, None] >> np.arange(m)[None, :]) & 1
    return 2.0 * bits - 1.0


def encode_labels(y_index, codebook):
    """Training targets ``Y = C[y]`` (n, m) of class indices ``y_index`` (n,) in ``0..n_c-1``."""
    return np.asarray(codebook, dtype=np.float64)[np.asarray(y_index)]


@validate(outputs=array(ensure_2d=False), codebook=array())
def decode_outputs(outputs, codebook):
    """Class indices (n,) of the codewords nearest to the rows of ``outputs`` (n, m).

    Nearest in Euclidean distance; since every codeword has norm ``sqrt(m)`` this is
    ``argmax_c outputs @ C[c]`` (ties go to the first class). A 1-D ``outputs`` is one output per
    sample (two classes).

    Examples
    --------
    >>> C = output_codebook(4, "moc")
    >>> decode_outputs(np.array([[0.9, -0.2], [-0.1, 0.8]]), C)
    array([1, 2])
    """
    if outputs.ndim == 1:
        outputs = outputs[:, None]
    if outputs.shape[1] != codebook.shape[1]:
        raise ValueError(
            f"outputs has {outputs.shape[1]} columns but the codebook has {codebook.shape[1]} outputs; "
            "pass one column per output of the code."
        )
    return np.argmax(outputs @ codebook.T, axis=1)
