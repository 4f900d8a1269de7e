"""Probabilistic (kernel) PCA in primal and dual (Part II, Chapters 6 and 7).

* :mod:`.model`: :class:`ProbabilisticKPCA`, the estimator (parameters, fit, inference, sampling);
* :mod:`.likelihood`: its maximum-likelihood ``sigma^2`` and log-density, pure functions;
* :mod:`.sampling`: its generation (latent coordinates, feature / kernel samples), pure functions.
"""

from .model import ProbabilisticKPCA

__all__ = ["ProbabilisticKPCA"]
