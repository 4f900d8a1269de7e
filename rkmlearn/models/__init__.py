"""RKM models: thin estimators composed of views (:mod:`rkmlearn.views`) and levels (:mod:`rkmlearn.level`).

* :class:`MultiViewKPCA` (Part I), :class:`KPCA` (its one-view case), :class:`ProbabilisticKPCA`
  (Part II); :func:`choose_algorithm`, the duality paper's flowchart; :class:`DeepRKMClassifier`
  (Part IV).
* :class:`TensorMultiViewRKM` (Part III, the tensor multi-view classifier), :class:`CommitteeRKM`
  (its late-fusion / large-N committee), :class:`MultiViewLSSVM` (the pairwise MV-LSSVM baseline)
  and :class:`SimulatedAnnealingSearch` (Algorithm 2).
* :class:`RecurrentRKM` (Part V, the recurrent RKM forecaster).
* :class:`KernelSpectralClustering` (Part VI, kernel spectral clustering: a weighted kernel PCA) and
  :class:`KernelCCA` (Part VI, regularised kernel CCA in its LS-SVM form), :class:`GenerativeRKM`
  (Part VI, Gen-RKM: multi-view kernel PCA, a density on its hidden units, pre-images).
"""

from .deep import DeepRKMClassifier
from .flowchart import AlgorithmChoice, choose_algorithm
from .kpca import KPCA
from .multiview import MultiViewKPCA
from .probabilistic import ProbabilisticKPCA
from .committee import CommitteeRKM
from .mvlssvm import MultiViewLSSVM
from .recurrent import RecurrentRKM
from .selection import SimulatedAnnealingSearch
from .spectral_clustering import KernelSpectralClustering
from .cca import KernelCCA
from .generative import GenerativeRKM
from .tensor import TensorMultiViewRKM

__all__ = ["KPCA", "MultiViewKPCA", "ProbabilisticKPCA", "TensorMultiViewRKM", "CommitteeRKM", "MultiViewLSSVM",
           "SimulatedAnnealingSearch",
           "DeepRKMClassifier", "RecurrentRKM", "KernelSpectralClustering", "KernelCCA", "GenerativeRKM", "AlgorithmChoice", "choose_algorithm"]
