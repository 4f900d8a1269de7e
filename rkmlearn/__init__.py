"""rkmlearn: Restricted Kernel Machines, the library of an executable textbook."""

__version__ = "0.1.0"

from . import datasets, duality, features, kernels, linalg, preimage, probabilistic, stiefel
from .duality import MultiViewKPCA, NARForecaster, choose_algorithm
from .kpca import KPCA
from .probabilistic import ProbabilisticKPCA

__all__ = [
    "__version__",
    "datasets",
    "duality",
    "features",
    "kernels",
    "linalg",
    "preimage",
    "probabilistic",
    "stiefel",
    "KPCA",
    "MultiViewKPCA",
    "NARForecaster",
    "ProbabilisticKPCA",
    "choose_algorithm",
]
