"""Kernel functions and Gram-matrix centring (Chapter 1).

* :mod:`~rkmlearn.kernels.zoo`: :class:`Kernel` and the zoo of :eq:`eq-kernel-zoo` (linear, RBF,
  Laplacian, polynomial, cosine), squared distances (:eq:`eq-sqdist`);
* :mod:`~rkmlearn.kernels.spec`: :func:`make_kernel` (a kernel from a name, an instance or a
  callable) and :class:`CallableKernel`;
* :mod:`~rkmlearn.kernels.centering`: :class:`GramCenterer` (:eq:`eq-centering-train`,
  :eq:`eq-centering-test`) and :func:`centering_matrix`.
"""

from .centering import GramCenterer, centering_matrix
from .spec import KERNELS, CallableKernel, make_kernel
from .zoo import RBF, Cosine, Kernel, Laplacian, Linear, Polynomial, squared_euclidean_distances

__all__ = [
    "Kernel",
    "Linear",
    "RBF",
    "Laplacian",
    "Polynomial",
    "Cosine",
    "CallableKernel",
    "KERNELS",
    "make_kernel",
    "squared_euclidean_distances",
    "centering_matrix",
    "GramCenterer",
]
