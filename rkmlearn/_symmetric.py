"""Symmetric matrices and numerical rank: the helpers that kernels and the linear and eigen solvers share.

It sits below them all (it imports only :mod:`rkmlearn._validation`), so a kernel never imports a
solver for its symmetry: the one symmetry rule (:data:`SYMMETRY_RTOL`, :func:`exactly_symmetric`,
:func:`check_symmetric_matrix`), the one rank tolerance (:func:`rank_tolerance`) and the tile loops
that keep an ``n x n`` matrix exactly symmetric (:func:`finish_upper_tiles`, :func:`symmetrize_inplace`,
:func:`mirror_lower`).
"""

from __future__ import annotations

import numpy as np

from ._validation import check_square

__all__ = ["SYMMETRY_RTOL", "rank_tolerance", "max_asymmetry", "symmetrize_inplace", "mirror_lower",
           "finish_upper_tiles", "exactly_symmetric", "check_symmetric_matrix", "TILE"]

#: Tile edge of the element-wise passes over an n x n matrix: a 256 x 256 float64 tile (512 kB)
#: and its temporary stay in a core's L2 cache, so each pass costs cache, not memory, bandwidth.
TILE = 256

#: Symmetry tolerance: ``max|K - K^T| <= SYMMETRY_RTOL * max|K|`` is accepted (and symmetrised).
SYMMETRY_RTOL = 1e-8


def rank_tolerance(n):
    """Relative tolerance ``10 * n * eps`` below which an eigenvalue counts as zero.

    The backward error of a symmetric eigensolver is about ``n * eps * ||K||_2``, so smaller
    eigenvalues (and their eigenvectors) are rounding noise. For ``n = 1000`` it is ``2.2e-12``.
    """
    return 10.0 * n * np.finfo(np.float64).eps


def max_asymmetry(K, block=TILE):
    """``max|K - K^T|`` of a square matrix, tile by tile (cache-friendly, no n x n temporary)."""
    n = K.shape[0]
    asym = 0.0
    for i in range(0, n, block):
        for j in range(i, n, block):
            diff = K[i : i + block, j : j + block] - K[j : j + block, i : i + block].T
            asym = max(asym, float(np.abs(diff).max()))
    return asym


def symmetrize_inplace(K, block=TILE):
    """Replace the square matrix ``K`` by ``(K + K^T) / 2`` in place (exactly symmetric); return it.

    Tile by tile: about twice as fast as ``0.5 * (K + K.T)`` at n = 4000, no second n x n array.
    """
    n = K.shape[0]
    for i in range(0, n, block):
        diag = K[i : i + block, i : i + block]
        diag[...] = 0.5 * (diag + diag.T)
        for j in range(i + block, n, block):
            upper = K[i : i + block, j : j + block]
            lower = K[j : j + block, i : i + block]
            upper += lower.T
            upper *= 0.5
            lower[...] = upper.T
    return K


#: What the symmetry rule's message advises by default (``{name}``: the matrix's name).
SYMMETRY_ADVICE = ("Pass a Gram matrix k(x_i, x_j), or symmetrise it with ({name} + {name}.T) / 2 "
                   "if the asymmetry is intended rounding.")


def check_symmetric_matrix(K, name="K", *, kind="(n, n) symmetric matrix", what="symmetric",
                           square_advice=" Pass the Gram matrix kernel(X) of one data set.",
                           advice=SYMMETRY_ADVICE):
    """Validate a square, symmetric matrix; return it exactly symmetric (copied only if needed).

    The one symmetry rule: an asymmetry up to ``SYMMETRY_RTOL * max|K|`` is rounding and is removed;
    more is an error. ``kind``, ``what`` and the advice word the messages for the caller's matrix.
    """
    return exactly_symmetric(check_square(K, name, kind=kind, advice=square_advice), name, what=what, advice=advice)


def exactly_symmetric(K, name="K", *, what="symmetric",
                      advice=SYMMETRY_ADVICE):
    """The symmetry rule of :func:`check_symmetric_matrix` on an already validated square ``K``."""
    asym = max_asymmetry(K)
    if asym == 0.0:
        return K
    scale = np.abs(K).max()
    if asym > SYMMETRY_RTOL * scale:
        raise ValueError(
            f"{name} must be {what}; max|{name} - {name}^T| = {asym:.2e} exceeds {SYMMETRY_RTOL:g} * "
            f"max|{name}| = {SYMMETRY_RTOL * scale:.2e}. {advice.format(name=name)}"
        )
    return symmetrize_inplace(K.copy())  # never modify the caller's array


def mirror_lower(K, block=TILE):
    """Copy the strict lower triangle of the square C-ordered ``K`` onto its upper one, tile by tile."""
    n = K.shape[0]
    for i in range(0, n, block):
        diag = K[i : i + block, i : i + block]
        upper = np.triu_indices(diag.shape[0], 1)
        diag[upper] = diag.T[upper]
        for j in range(i + block, n, block):
            K[i : i + block, j : j + block] = K[j : j + block, i : i + block].T


def finish_upper_tiles(D, finish, tile=TILE):
    """``finish(block, rows, cols)`` in place on each ``tile x tile`` block of ``D``'s upper triangle
    (while it is in cache), each block then mirrored into the lower triangle: exactly symmetric."""
    n = D.shape[0]
    for i in range(0, n, tile):
        rows = slice(i, min(i + tile, n))
        for j in range(i, n, tile):
            cols = slice(j, min(j + tile, n))
            block = D[rows, cols]
            finish(block, rows, cols)
            if i == j:
                # the diagonal tile: its upper triangle is the valid one
                lower = np.tril_indices(block.shape[0], -1)
                block[lower] = block.T[lower]
            else:
                D[cols, rows] = block.T
    return D
