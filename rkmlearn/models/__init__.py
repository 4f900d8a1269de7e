"""RKM models: thin estimators composed of views (:mod:`rkmlearn.views`) and levels (:mod:`rkmlearn.level`).

* :class:`MultiViewKPCA` (Part I), :class:`KPCA` (its one-view case), :class:`ProbabilisticKPCA`
  (Part II); :func:`choose_algorithm`, the duality paper's flowchart; :class:`DeepRKMClassifier`
  (Part IV).
* Parts III and V (tensor classifier, recurrent RKM) plug in as described in ``rkmlearn/README.md``.
"""

from .deep import DeepRKMClassifier
from .flowchart import AlgorithmChoice, choose_algorithm
from .kpca import KPCA
from .multiview import MultiViewKPCA
from .probabilistic import ProbabilisticKPCA

__all__ = ["KPCA", "MultiViewKPCA", "ProbabilisticKPCA", "AlgorithmChoice", "choose_algorithm", "DeepRKMClassifier"]
