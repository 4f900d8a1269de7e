"""Geometry of the Stiefel manifold St(n, p) = {X in R^{n x p} : X^T X = I_p} and of products of it.

The hidden features of kernel PCA maximise ``tr(H^T K_c H)`` on St, :eq:`eq-stiefel-trace`. This
module is the manifold only (as pymanopt's ``manifolds``): :func:`project_stiefel`
(:eq:`eq-stiefel-projection`), :func:`riemannian_gradient`, :func:`constraint_violation`, the two
retractions (projection and Cayley, :eq:`eq-cayley-update`), and the same pieces over a PRODUCT of
Stiefel and Euclidean blocks (a deep RKM trains several H's and classifier weights jointly). The
optimisers are in :mod:`~rkmlearn.solvers.optimisers`, the line search in
:mod:`~rkmlearn.solvers.line_search`.

The metric is the ambient Euclidean one, so the Riemannian gradient is ``G - X sym(X^T G)`` on a
Stiefel block and ``G`` on a Euclidean block.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_array, nested

__all__ = ["GEOMETRIES", "project_stiefel", "riemannian_gradient", "constraint_violation", "as_point"]

#: The geometry of a block of a product manifold.
GEOMETRIES = ("stiefel", "euclidean")


def as_point(X, name, *, tall=True):
    """``X`` as a finite float64 2-D array (:func:`~rkmlearn._validation.check_array`); with
    ``tall``, a point of St(n, p) needs ``n >= p``. ValueError naming ``name`` otherwise. Inside a
    validated call (:func:`~rkmlearn._validation.validate`: the library's own start points) ``X`` is trusted."""
    if nested():
        return X
    X = check_array(X, name, ensure_all_finite=False)
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains NaN or infinity; remove or impute those entries.")
    if tall and X.shape[1] > X.shape[0]:
        raise ValueError(
            f"{name} has shape {X.shape}, but a point of St(n, p) needs n >= p (more rows than columns); "
            "transpose it or use fewer columns."
        )
    return X


def project_stiefel(X):
    """Closest point of the Stiefel manifold to ``X`` (its polar factor).

    Implements :eq:`eq-stiefel-projection` (Chapter 1): ``P(X) = X (X^T X)^{-1/2} = U V^T`` from
    the thin SVD ``X = U S V^T``; ``X`` (n, p), n >= p, gives ``Q`` (n, p) with ``Q^T Q = I``.
    """
    return _polar(as_point(X, "X"))


def _polar(X):
    """:func:`project_stiefel` of a checked array (the optimisers' inner loops)."""
    U, _, Vt = np.linalg.svd(X, full_matrices=False)
    return U @ Vt


def riemannian_gradient(X, G):
    """Riemannian gradient on St(n, p) for the metric inherited from the ambient space.

    The projection of the Euclidean gradient ``G`` (n, p) onto the tangent space at ``X``,
    ``G - X sym(X^T G)``; the result ``Z`` satisfies ``X^T Z + Z^T X = 0``.
    """
    XtG = X.T @ G
    return G - X @ (0.5 * (XtG + XtG.T))


def constraint_violation(X):
    """Distance from the constraint, ``||X^T X - I_p||_F`` (0 exactly on the manifold)."""
    X = np.asarray(X, dtype=np.float64)
    return float(np.linalg.norm(X.T @ X - np.eye(X.shape[1])))


def _cayley_factors(X, D):
    """Low-rank factors of the skew matrix A with ``A X = -(tangent part of D)``.

    With ``P = D - X (X^T D) / 2`` the skew-symmetric ``A = X P^T - P X^T = U V^T`` has
    ``U = [X, P]`` and ``V = [P, -X]`` (n x 2p), and ``A X = -(D - X sym(X^T D))``
    (Wen & Yin 2013). Storing A through (U, V) keeps every step O(n p^2) instead of O(n^2 p).
    """
    P = D - 0.5 * X @ (X.T @ D)
    return np.hstack([X, P]), np.hstack([P, -X])


def _cayley_step(X, U, V, alpha):
    """Cayley retraction :eq:`eq-cayley-update`, ``Y = (I - a/2 A)^{-1} (I + a/2 A) X``, A = U V^T.

    The n x n inverse is never formed: by the Sherman-Morrison-Woodbury identity
    ``(I - a/2 U V^T)^{-1} = I + a/2 U (I_{2p} - a/2 V^T U)^{-1} V^T``. The 2p x 2p system is
    well conditioned because A is skew-symmetric (the eigenvalues of I - a/2 A have modulus >= 1).
    """
    half = 0.5 * alpha
    Z = X + half * (U @ (V.T @ X))
    small = np.eye(U.shape[1]) - half * (V.T @ U)
    return Z + half * (U @ np.linalg.solve(small, V.T @ Z))


def _retract(X, D, t, retraction):
    """Move from X along ``-t`` times the tangent part of D, staying on St."""
    if retraction == "projection":
        U, _, Vt = np.linalg.svd(X - t * D, full_matrices=False)
        return U @ Vt
    U, V = _cayley_factors(X, D)
    return _cayley_step(X, U, V, t)


# -- products of Stiefel and Euclidean blocks (lists of arrays, one geometry per block) ------------
def tangent(X, G, kinds):
    """Riemannian gradient per block: tangent projection (Stiefel) or G itself (Euclidean)."""
    return [riemannian_gradient(x, g) if kind == "stiefel" else g for x, g, kind in zip(X, G, kinds)]


def move(x, r, t, kind, retraction):
    """One block moved by ``-t r``: retracted onto St (Stiefel) or linearly (Euclidean)."""
    return _retract(x, r, t, retraction) if kind == "stiefel" else x - t * r


def norm(R):
    """Frobenius norm of a list of blocks (one block: ``np.linalg.norm`` itself)."""
    if len(R) == 1:
        return float(np.linalg.norm(R[0]))
    return float(np.sqrt(sum(float(np.sum(r * r)) for r in R)))


def inner(A, B):
    """Euclidean inner product of two lists of blocks, summed over the blocks."""
    return sum(float(np.sum(a * b)) for a, b in zip(A, B))


def violation(X, kinds):
    """The largest :func:`constraint_violation` over the Stiefel blocks (0 without any)."""
    return max((constraint_violation(x) for x, kind in zip(X, kinds) if kind == "stiefel"), default=0.0)
