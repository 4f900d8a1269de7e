"""The deep RKM classifier (Part IV, paper 003; Chapter 9).

* :mod:`.classifier`: :class:`DeepRKMClassifier`, the estimator (parameters, fit, inference);
* :mod:`.training`: its training steps (levels, deep KPCA initialisation, joint training);
* :mod:`.objective`: the objective :eq:`eq-deep-lssvm` / :eq:`eq-deep-mlp` and its gradients, pure.
"""

from .classifier import SMOOTHER_FRACTION, DeepRKMClassifier

__all__ = ["DeepRKMClassifier", "SMOOTHER_FRACTION"]
