"""The examples in the core library's docstrings run and print what they show."""

import doctest
import importlib

import pytest

CORE_MODULES = [
    "rkmlearn._validation", "rkmlearn.base", "rkmlearn.views", "rkmlearn.level", "rkmlearn.forecasting",
    "rkmlearn._validation.arrays", "rkmlearn._validation.scalars", "rkmlearn._validation.boundary",
    "rkmlearn.kernels", "rkmlearn.kernels.zoo", "rkmlearn.kernels.spec", "rkmlearn.kernels.centering",
    "rkmlearn.kernels.operator", "rkmlearn.solvers.operator", "rkmlearn.matrix_free",
    "rkmlearn.features", "rkmlearn.preimage", "rkmlearn.solvers.eigen",
    "rkmlearn.solvers.linear", "rkmlearn.solvers.stiefel", "rkmlearn.solvers.subspace",
    "rkmlearn.solvers.line_search", "rkmlearn.solvers.optimisers", "rkmlearn.solvers.objectives",
    "rkmlearn.solvers.generalized", "rkmlearn.solvers.iteration",
    "rkmlearn.models.kpca", "rkmlearn.models.multiview",
    "rkmlearn.models.probabilistic.model", "rkmlearn.models.probabilistic.sampling",
    "rkmlearn.models.probabilistic.likelihood",
    "rkmlearn.models.flowchart", "rkmlearn.models.deep.classifier",
    "rkmlearn.models.deep.training", "rkmlearn.models.deep.objective", "rkmlearn.models.tensor",
    "rkmlearn.models.coding",
    "rkmlearn.models.selection", "rkmlearn.models.committee", "rkmlearn.models.mvlssvm",
    "rkmlearn.models.recurrent.latent_dynamics", "rkmlearn.models.recurrent.forecaster",
]


@pytest.mark.parametrize("name", CORE_MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed"
