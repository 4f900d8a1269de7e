r"""The deep RKM classifier's objective and its gradients, as pure functions of the blocks (Part IV).

Objective :eq:`eq-deep-lssvm` (LS-SVM level) or :eq:`eq-deep-mlp` (MLP level) of Chapter 9,
*Deep RKM classifiers*, over the blocks ``[H_1, ..., H_L, theta...]``: ``L`` dual KPCA levels
(Stiefel blocks) and the primal classifier's parameters (Euclidean blocks). Level ``j >= 2`` works on
the centred kernel matrix of the previous level's hidden features, ``K_c(H_{j-1}) = M_c K(H_{j-1})
M_c``; its term depends on ``H_{j-1}`` through that matrix, with the gradient
:eq:`eq-deep-kernel-gradient` (:func:`kernel_trace_gradient`). Everything here is checked against
finite differences in ``tests/test_deep.py``.
"""

from __future__ import annotations

import numpy as np

from ...kernels import RBF, GramCenterer, Linear

__all__ = [
    "DIFFERENTIABLE_KERNELS",
    "centred_gram",
    "kernel_trace_gradient",
    "lssvm_loss",
    "mlp_loss",
    "deep_objective",
]

#: Kernels of levels ``j >= 2`` (their gradient with respect to the previous level's ``H`` is coded).
DIFFERENTIABLE_KERNELS = (Linear, RBF)


def centred_gram(kernel, Z):
    """``K_c(Z) = M_c K(Z) M_c`` (n, n) of the rows of ``Z`` (:eq:`eq-centering-train`)."""
    return GramCenterer().fit_transform(kernel(Z))


def kernel_trace_gradient(kernel, Z, K, G):
    r"""Gradient of ``<K(Z), G> = sum_ik K_ik G_ik`` with respect to ``Z`` (:eq:`eq-deep-kernel-gradient`).

    With ``G = (M_c H)(M_c H)^T`` this is the gradient of ``tr(H^T K_c(Z) H)``: centring moves onto
    ``G`` because ``tr(H^T M_c K M_c H) = <K, M_c H H^T M_c>``.

    Parameters
    ----------
    kernel : Linear or RBF
    Z : ndarray of shape (n, s)
        The previous level's hidden features.
    K : ndarray of shape (n, n)
        ``kernel(Z)`` (uncentred), already computed by the caller.
    G : ndarray of shape (n, n), symmetric

    Returns
    -------
    ndarray of shape (n, s)
        ``2 G Z`` (linear kernel); ``(2 / sigma^2) (A Z - diag(A 1) Z)`` with ``A = G * K`` (RBF).
    """
    if isinstance(kernel, Linear):
        return 2.0 * (G @ Z)
    if isinstance(kernel, RBF):
        A = G * K
        return (2.0 / kernel.sigma**2) * (A @ Z - A.sum(axis=1)[:, None] * Z)
    raise ValueError(
        f"the kernel of a level j >= 2 must be one of {[k.__name__ for k in DIFFERENTIABLE_KERNELS]} "
        f"(its gradient with respect to H_(j-1) is needed); got {kernel!r}."
    )


def lssvm_loss(H, theta, Y, lam, eta):
    r"""LS-SVM classification term of :eq:`eq-deep-lssvm` and its gradients.

    ``1/(2 lam) ||Y - H W - 1 b^T||_F^2 + eta/2 ||W||_F^2`` with ``theta = [W; b^T]`` of shape
    ``(s + 1, p)`` and ``Y`` in ``{-1, +1}`` (one column per one-vs-all output): since
    ``y^2 = 1``, ``(1 - y (w^T h + b))^2 = (y - w^T h - b)^2``.

    Returns
    -------
    value : float
    grad_H : ndarray of shape (n, s)
    grad_theta : ndarray of shape (s + 1, p)
    """
    W, b = theta[:-1], theta[-1]
    R = H @ W + b - Y  # residuals
    value = 0.5 / lam * float(np.sum(R * R)) + 0.5 * eta * float(np.sum(W * W))
    grad_theta = np.vstack([(H.T @ R) / lam + eta * W, R.sum(axis=0) / lam])
    return value, (R @ W.T) / lam, grad_theta


def _softmax_cross_entropy(logits, labels):
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    n = logits.shape[0]
    ce = -float(log_p[np.arange(n), labels].sum())
    d_logits = np.exp(log_p)
    d_logits[np.arange(n), labels] -= 1.0
    return ce, d_logits


def mlp_forward(H, theta1, theta2):
    """Logits of the one-hidden-layer ReLU MLP ``f(h) = W2^T relu(W1^T h + b1) + b2``."""
    Z = H @ theta1[:-1] + theta1[-1]
    A = np.maximum(Z, 0.0)
    return A @ theta2[:-1] + theta2[-1], Z, A


def mlp_loss(H, theta1, theta2, labels, lam, eta):
    r"""MLP classification term of :eq:`eq-deep-mlp` and its gradients (back-propagation).

    ``1/(2 lam N) sum_i CE(f(h_i), y_i) + eta/2 (||W1||_F^2 + ||W2||_F^2)`` with
    ``theta1 = [W1; b1^T]`` (s + 1, m) and ``theta2 = [W2; b2^T]`` (m + 1, p); ``labels`` are class
    indices ``0..p-1``.

    Returns
    -------
    value : float
    grad_H, grad_theta1, grad_theta2 : ndarrays of the shapes of ``H``, ``theta1``, ``theta2``
    """
    n = H.shape[0]
    W1, W2 = theta1[:-1], theta2[:-1]
    logits, Z, A = mlp_forward(H, theta1, theta2)
    ce, d_logits = _softmax_cross_entropy(logits, labels)
    c = 0.5 / (lam * n)
    d_logits *= c
    value = c * ce + 0.5 * eta * (float(np.sum(W1 * W1)) + float(np.sum(W2 * W2)))
    grad2 = np.vstack([A.T @ d_logits + eta * W2, d_logits.sum(axis=0)])
    dZ = (d_logits @ W2.T) * (Z > 0.0)
    grad1 = np.vstack([H.T @ dZ + eta * W1, dZ.sum(axis=0)])
    return value, dZ @ W1.T, grad1, grad2


def _same_arrays(kept, given):
    """Whether ``given`` holds the very arrays ``kept`` does (identity: a point the objective has seen)."""
    return len(kept) == len(given) and all(a is b for a, b in zip(kept, given))


def deep_objective(K0_c, kernels, etas, *, head=None):
    r"""``fun`` and ``grad`` of the deep RKM objective over the blocks ``[H_1, ..., H_L, theta...]``.

    ``J = - sum_j 1/(2 eta_j) tr(H_j^T K_c^{(j-1)} H_j) + head(H_L, theta)``: the KPCA levels of
    :eq:`eq-deep-lssvm` / :eq:`eq-deep-mlp` with ``K_c^{(0)} = K0_c`` fixed and
    ``K_c^{(j-1)} = M_c K_j(H_{j-1}) M_c``. The gradient of level ``j``'s term is
    ``-(1/eta_j) K_c^{(j-1)} H_j`` in ``H_j`` and, through :func:`kernel_trace_gradient`,
    ``-(1/(2 eta_j)) d<K_j(H_{j-1}), G_j>/dH_{j-1}`` with ``G_j = (M_c H_j)(M_c H_j)^T``.

    Parameters
    ----------
    K0_c : ndarray of shape (n, n)
        Centred kernel matrix of the inputs (level 1).
    kernels : sequence of Kernel, length L - 1
        Kernels of levels 2..L (:data:`DIFFERENTIABLE_KERNELS`).
    etas : sequence of float, length L
    head : callable or None
        ``head(H_L, *theta) -> (value, grad_H_L, *grad_theta)`` (e.g. :func:`lssvm_loss` with its
        data bound), or None: the classifier term is off (plain deep KPCA).

    Returns
    -------
    fun, grad : callables of the list of blocks
        ``grad`` at the arrays of the last ``fun`` call reuses its level products (one pass over
        ``K0_c`` per iteration): pass new arrays for a new point, never the old ones changed in
        place (the optimisers always make new arrays).
    """
    L = len(etas)
    cache = {}  # level j -> (H_{j-1} it was computed from, K_j(H_{j-1}))
    # the per-level terms of the last point, kept by identity: the optimiser evaluates fun at a point
    # (its line search's accepted trial) and then grad at the SAME arrays, so an iteration makes ONE
    # pass over the n x n K0_c, not two (the same operations, the same bits)
    memo, head_memo = [(), None], [(), None]

    def centred(H):  # H - mean(H): np.mean's own sum and division (the same bits) without its overhead
        return H - np.add.reduce(H, axis=0) / H.shape[0]

    def kernel_matrix(j, Z):
        hit = cache.get(j)
        if hit is None or hit[0] is not Z:
            hit = cache[j] = (Z, kernels[j - 1](Z))
        return hit[1]

    def levels(Hs):
        """``(Hc, K, KHc, tr(Hc^T KHc))`` per level at the point ``Hs``."""
        if _same_arrays(memo[0], Hs):
            return memo[1]
        terms = []
        for j in range(L):
            H = Hs[j]
            # tr(H^T M_c K M_c H) = tr(Hc^T K Hc) with Hc = M_c H:
            # K is never centred explicitly
            Hc = centred(H)
            if j == 0:
                K, KHc = None, K0_c @ H
            elif isinstance(kernels[j - 1], Linear):
                # K = Z Z^T: O(n s^2), no n x n matrix
                Zc = centred(Hs[j - 1])
                K, KHc = None, Zc @ (Zc.T @ Hc)
            else:
                K = kernel_matrix(j, Hs[j - 1])
                KHc = K @ Hc
                KHc -= KHc.mean(axis=0)  # M_c K M_c H
            terms.append((Hc, K, KHc, float(np.sum(Hc * KHc))))
        memo[:] = [tuple(Hs), terms]
        return terms

    def evaluate(blocks, want_grad):
        Hs, theta = blocks[:L], blocks[L:]
        value = 0.0
        grads = [np.zeros_like(H) for H in Hs] if want_grad else None
        for j, (Hc, K, KHc, trace) in enumerate(levels(Hs)):
            value -= 0.5 / etas[j] * trace
            if want_grad:
                grads[j] -= KHc / etas[j]
                if j > 0:
                    Z = Hs[j - 1]
                    if K is None:
                        # linear kernel: d tr(Hc^T Z Z^T Hc) / dZ = 2 Hc Hc^T Z,
                        # formed as products
                        grads[j - 1] -= (1.0 / etas[j]) * (Hc @ (Hc.T @ Z))
                    else:
                        G = Hc @ Hc.T
                        dK = kernel_trace_gradient(kernels[j - 1], Z, K, G)
                        grads[j - 1] -= 0.5 / etas[j] * dK
        theta_grads = []
        if head is not None:
            point = (Hs[-1], *theta)
            if not _same_arrays(head_memo[0], point):
                head_memo[:] = [point, head(*point)]
            out = head_memo[1]
            value += out[0]
            if want_grad:
                grads[-1] += out[1]
                # the caller's own arrays: the memo keeps its own
                theta_grads = [g.copy() for g in out[2:]]
        return value, (grads + theta_grads) if want_grad else None

    def fun(blocks):
        return evaluate(blocks, False)[0]

    def grad(blocks):
        return evaluate(blocks, True)[1]

    return fun, grad
