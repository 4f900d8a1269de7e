"""rkmlearn: Restricted Kernel Machines, the library of an executable textbook.

The pieces and how models compose them are described in ``rkmlearn/README.md``.
"""

__version__ = "0.1.0"

from . import datasets, features, forecasting, kernels, level, models, preimage, solvers, views
from .forecasting import NARForecaster, RecursiveForecaster
from .level import Level, solve_level
from .models import (KPCA, AlgorithmChoice, DeepRKMClassifier, MultiViewKPCA, ProbabilisticKPCA,
                     RecurrentRKM, TensorMultiViewRKM, choose_algorithm)
from .views import View

__all__ = [
    "__version__",
    "datasets",
    "features",
    "forecasting",
    "kernels",
    "level",
    "models",
    "preimage",
    "solvers",
    "views",
    "KPCA",
    "MultiViewKPCA",
    "ProbabilisticKPCA",
    "TensorMultiViewRKM",
    "RecurrentRKM",
    "NARForecaster",
    "RecursiveForecaster",
    "AlgorithmChoice",
    "choose_algorithm",
    "Level",
    "solve_level",
    "View",
    "DeepRKMClassifier",
]
