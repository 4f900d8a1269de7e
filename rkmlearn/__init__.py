"""rkmlearn: Restricted Kernel Machines, the library of an executable textbook."""

__version__ = "0.1.0"

from . import features, kernels, linalg, stiefel
from .kpca import KPCA

__all__ = ["__version__", "features", "kernels", "linalg", "stiefel", "KPCA"]
