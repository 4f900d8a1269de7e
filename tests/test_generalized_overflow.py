"""generalized_eigenpairs when the eigenvalues themselves leave float64: a ValueError saying to rescale
(before: scipy's ``ArpackError -9999`` from ARPACK, LAPACK's DLASCL complaints on stderr)."""

import numpy as np
import pytest

from rkmlearn.solvers.generalized import generalized_eigenpairs

rng = np.random.default_rng(0)
A = rng.normal(size=(10, 10))
A = A + A.T
B = np.eye(10) + 0.1 * np.ones((10, 10))


@pytest.mark.parametrize("solver", ["auto", "dense", "arpack", "block"])
@pytest.mark.parametrize("scale", [1e300, 1e200, 1e155])
def test_overflowing_eigenvalues_are_a_clear_error(solver, scale):
    with pytest.raises(ValueError, match=r"^the eigenvalues of A x = lambda B x overflow float64.*Rescale"):
        generalized_eigenpairs(A * scale, B / scale, 2, solver)


@pytest.mark.parametrize("solver", ["dense", "arpack", "block"])
def test_large_but_representable_eigenvalues_are_solved(solver):
    # eigenvalues near 6e306: scaled exactly, no error
    reference, _ = generalized_eigenpairs(A, B, 2, "dense")
    values, _ = generalized_eigenpairs(A * 1e153, B / 1e153, 2, solver)
    np.testing.assert_allclose(values, reference * 1e306, rtol=1e-10)

