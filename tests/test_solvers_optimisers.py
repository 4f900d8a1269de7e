"""The optimiser API of rkmlearn.solvers.optimisers: the update rule is chosen per block (issue 23).

A block's kind is its geometry ("stiefel" / "euclidean"); the line search or Adam is the block's
update rule (``update=``). ``"adam"`` in ``blocks`` stays a shorthand for a Euclidean block with the
Adam of the ``adam_*`` settings, and the option objects give the same run as the flat keywords.
"""

import numpy as np
import pytest

from rkmlearn.solvers.line_search import LineSearch
from rkmlearn.solvers.objectives import trace_objective
from rkmlearn.solvers.optimisers import Adam, projected_gradient


def problem():
    rng = np.random.default_rng(3)
    G = rng.normal(size=(25, 25))
    K = G @ G.T
    A, B = rng.normal(size=(30, 4)), rng.normal(size=(30, 2))

    def fun(X):
        return -0.5 * float(np.sum(X[0] * (K @ X[0]))) + 0.5 * float(np.sum((A @ X[1] - B) ** 2)) \
            + 0.5 * float(np.sum((A @ X[2] - B) ** 2))

    def grad(X):
        return [-K @ X[0], A.T @ (A @ X[1] - B), A.T @ (A @ X[2] - B)]

    return fun, grad, [rng.normal(size=(25, 3)), np.zeros((4, 2)), np.ones((4, 2))], K, A, B


def same_run(a, b):
    for x, y in zip(a.X, b.X):
        np.testing.assert_array_equal(x, y)
    assert a.history == b.history and a.n_iter == b.n_iter


def test_adam_as_an_update_rule_equals_the_adam_block_shorthand():
    fun, grad, X0, *_ = problem()
    short = projected_gradient(fun, grad, X0, blocks=("stiefel", "adam", "adam"), adam_learning_rate=0.05,
                               adam_betas=(0.8, 0.99), max_iter=40, tol=0.0)
    rule = Adam(0.05, (0.8, 0.99))
    explicit = projected_gradient(fun, grad, X0, blocks=("stiefel", "euclidean", "euclidean"),
                                  update=(None, rule, rule), max_iter=40, tol=0.0)
    same_run(short, explicit)


def test_one_block_group_by_adam_the_other_by_the_line_search():
    """Blocks 0-1 line-searched, block 2 moved by Adam: each converges to its own minimiser."""
    fun, grad, X0, K, A, B = problem()
    blocks = ("stiefel", "euclidean", "euclidean")
    mixed = projected_gradient(fun, grad, X0, blocks=blocks, update=("line_search", None, Adam(0.05)),
                               max_iter=3000, tol=1e-9)
    searched = projected_gradient(fun, grad, X0, blocks=blocks, max_iter=mixed.n_iter, tol=0.0)
    assert not np.array_equal(mixed.X[2], searched.X[2])  # Adam moved block 2, not the line search
    assert mixed.converged, mixed.message
    lstsq = np.linalg.lstsq(A, B, rcond=None)[0]
    np.testing.assert_allclose(mixed.X[1], lstsq, atol=1e-7)
    np.testing.assert_allclose(mixed.X[2], lstsq, atol=1e-7)
    top = np.linalg.eigh(K)[1][:, -3:]
    np.testing.assert_allclose(mixed.X[0] @ mixed.X[0].T, top @ top.T, atol=1e-6)


def test_line_search_object_equals_its_flat_keywords():
    fun, grad = trace_objective(np.diag(np.arange(1.0, 9.0)))
    X0 = np.random.default_rng(0).normal(size=(8, 2))
    flat = projected_gradient(fun, grad, X0, armijo=0.3, shrink=0.7, max_backtracks=9, max_iter=30)
    obj = projected_gradient(fun, grad, X0, line_search=LineSearch(0.3, 0.7, 9), max_iter=30)
    np.testing.assert_array_equal(flat.X, obj.X)
    assert flat.history == obj.history


def test_update_rules_are_validated():
    fun, grad, X0, *_ = problem()
    blocks = ("stiefel", "euclidean", "euclidean")
    with pytest.raises(ValueError, match=r"update\[0\]: Adam moves Euclidean blocks only"):
        projected_gradient(fun, grad, X0, blocks=blocks, update=(Adam(), None, None))
    with pytest.raises(ValueError, match="update must give one rule per block"):
        projected_gradient(fun, grad, X0, blocks=blocks, update=(None, None))
    with pytest.raises(ValueError, match=r"update\[1\] must be 'line_search', None or an Adam"):
        projected_gradient(fun, grad, X0, blocks=blocks, update=(None, "sgd", None))
    with pytest.raises(ValueError, match=r"update\[2\]\.learning_rate"):
        projected_gradient(fun, grad, X0, blocks=blocks, update=(None, None, Adam(learning_rate=-1.0)))
    with pytest.raises(ValueError, match="update needs blocks"):
        projected_gradient(fun, grad, X0[0], update=(None,))
    with pytest.raises(ValueError, match="max_backtracks"):
        LineSearch(max_backtracks=0)
    with pytest.raises(TypeError, match="learning_rate"):
        projected_gradient(fun, grad, X0[0], learning_rate=0.1)
