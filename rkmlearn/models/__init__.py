"""RKM models: thin estimators composed of views (:mod:`rkmlearn.views`) and levels (:mod:`rkmlearn.level`).

* :class:`MultiViewKPCA` (Part I), :class:`KPCA` (its one-view case), :class:`ProbabilisticKPCA`
  (Part II); :func:`choose_algorithm`, the duality paper's flowchart.
* Parts III-V (tensor classifier, deep RKM, recurrent RKM) plug in as described in ``rkmlearn/README.md``.
"""

from .flowchart import AlgorithmChoice, choose_algorithm
from .kpca import KPCA
from .multiview import MultiViewKPCA
from .probabilistic import ProbabilisticKPCA
from .recurrent import RecurrentRKM

__all__ = ["KPCA", "MultiViewKPCA", "ProbabilisticKPCA", "RecurrentRKM", "AlgorithmChoice", "choose_algorithm"]
