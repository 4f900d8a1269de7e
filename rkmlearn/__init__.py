"""rkmlearn: Restricted Kernel Machines, the library of an executable textbook.

The pieces and how models compose them are described in ``rkmlearn/README.md``.

Names are imported when first used (PEP 562): ``from rkmlearn import KPCA`` loads the models,
while ``import rkmlearn.grading`` (the autograder, which uses none of the library) stays fast.
"""
from importlib import import_module

__version__ = "0.1.0"

_SUBPACKAGES = ("datasets", "features", "forecasting", "kernels", "level", "models", "preimage",
                "solvers", "views")
# public name -> the subpackage that defines it. No public name may also be a submodule's name:
# importing that submodule would bind the module on the package over the name
# (tests/test_lazy_names.py).
_HOMES = {
    "KPCA": "models", "MultiViewKPCA": "models", "ProbabilisticKPCA": "models",
    "TensorMultiViewRKM": "models", "RecurrentRKM": "models", "DeepRKMClassifier": "models",
    "AlgorithmChoice": "models", "choose_algorithm": "models",
    "KernelSpectralClustering": "models", "KernelCCA": "models", "GenerativeRKM": "models",
    "NARForecaster": "forecasting", "RecursiveForecaster": "forecasting",
    "Level": "level", "solve_level": "level",
    "View": "views",
}

__all__ = ["__version__", *_SUBPACKAGES, *_HOMES]


def __getattr__(name):
    if name in _SUBPACKAGES:
        value = import_module(f".{name}", __name__)
    elif name in _HOMES:
        value = getattr(import_module(f".{_HOMES[name]}", __name__), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # looked up once
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
