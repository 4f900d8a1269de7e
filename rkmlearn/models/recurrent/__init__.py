r"""The recurrent RKM (Pandey et al., 2022): latent dynamics for time-series forecasting (Part V).

Training is one RKM level with a coupling (:eq:`eq-rrkm-eig`): the ``s`` leading eigenpairs of
``K + A``, ``K`` the centred kernel matrix of the training steps and ``A`` the banded Toeplitz
matrix of the lag weights (:mod:`rkmlearn.models.recurrent.latent_dynamics`), through
:func:`rkmlearn.level.solve_level` with ``coupling=A``. Forecasting runs the latent recursion
:eq:`eq-rrkm-recursion` and maps each new latent to the input space by a pre-image of
:eq:`eq-rrkm-feature` (kernel smoother or kernel ridge regression), one step at a time in the
loop of :class:`rkmlearn.forecasting.RecursiveForecaster`.
"""

from .forecaster import PREIMAGES, PSD_CHECKS, RecurrentRKM, UnstableRecursionWarning

__all__ = ["RecurrentRKM", "UnstableRecursionWarning", "PREIMAGES", "PSD_CHECKS"]
