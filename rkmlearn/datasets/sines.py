"""The sum-of-sines series of the duality paper's toy forecasting experiment."""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

from .._validation import check_scalar_range

__all__ = ["sum_of_sines"]

#: Sampling interval of the paper's public code (``np.arange(0, 5, 0.01)``).
SAMPLING_INTERVAL = 0.01
#: (amplitude, frequency in cycles per unit of t) of the two waves.
_WAVES = ((1.0, 1.0), (0.2, 20.0))

_DESCRIPTION = """\
Sum of two sine waves, x(t) = sin(2 pi t) + 0.2 sin(2 pi 20 t), sampled at t = 0, 0.01, 0.02, ...
(100 samples per unit of t: 100 samples per period of the slow wave, 5 per period of the fast one).

This is the series that the public code of Achten et al., "Duality in Multi-View Restricted Kernel
Machines", runs for its "Sum of Sinusoids" experiment (Figures 2, 3 and 7; Table 4: 400 training and
100 test values, lag p = 40, linear kernels, s = 4 components). The paper's text writes
x_l = sum_j alpha_j sin(2 pi omega_j l) with omega in {100, 2000} and integer l; read literally that
series is identically zero, because sin(2 pi k) = 0 for every integer k. The code samples the time
t in steps of 0.01 instead, which is what is reproduced here.

The first n_train values are the training series, the next n_test values the test series, which a
forecaster is asked to continue.
"""


def sum_of_sines(n_train=400, n_test=100):
    """Sum of two sine waves: the toy series of the duality paper's forecasting experiment.

    The series is ``x(t) = sin(2 pi t) + 0.2 sin(2 pi 20 t)`` sampled at ``t = 0.01 k``,
    ``k = 0, 1, ...``: a slow wave of period 1 (100 samples) carrying a small fast wave of period
    0.05 (5 samples). The defaults reproduce the 500 values ``t = 0, 0.01, ..., 4.99`` that the
    public code of the duality paper (Achten et al., *Duality in Multi-View Restricted Kernel
    Machines*, Table 4) splits into 400 training and 100 test values.

    **Why not the formula printed in the paper.** The paper writes
    ``x_l = sum_j alpha_j sin(2 pi omega_j l)`` with ``alpha in {1, 0.2}``,
    ``omega in {100, 2000}`` and an integer time index ``l``. Taken literally that series is
    identically zero: ``2 pi omega_j l`` is an integer multiple of ``2 pi`` and the sine of it
    vanishes. The code samples the time ``t`` in steps of 0.01 with frequencies 1 and 20, i.e.
    ``omega_j`` is measured per 100 samples rather than per sample. This function follows the
    code.

    Parameters
    ----------
    n_train : int, default=400
        Number of training values, ``t = 0, 0.01, ..., 0.01 (n_train - 1)``. At least 1.
    n_test : int, default=100
        Number of test values, the continuation of the training series. At least 1.
        The series is defined for every ``t``, so ``n_train + n_test`` may exceed the paper's
        500: the extra values continue the same sampling grid past ``t = 4.99``.

    Returns
    -------
    data : :class:`sklearn.utils.Bunch`
        With attributes

        ``train`` : ndarray of shape (n_train,)
            The training series (float64).
        ``test`` : ndarray of shape (n_test,)
            Its continuation (float64).
        ``t_train``, ``t_test`` : ndarray of shape (n_train,) and (n_test,)
            The sampling times.
        ``description`` : str
            Where the series comes from, and the paper's misprint.

    Raises
    ------
    ValueError
        If ``n_train`` or ``n_test`` is not an integer >= 1.

    See Also
    --------
    load_santafe : the real-world series of the same experiment.

    Examples
    --------
    >>> import numpy as np
    >>> from rkmlearn.datasets import sum_of_sines
    >>> data = sum_of_sines()
    >>> data.train.shape, data.test.shape
    ((400,), (100,))
    >>> float(data.t_test[0]), float(data.t_test[-1])
    (4.0, 4.99)

    The series has period 1, that is 100 samples:

    >>> bool(np.allclose(data.train[100:], data.train[:-100]))
    True

    The paper's printed formula, with an integer time index, is zero everywhere:

    >>> l = np.arange(1, 500)
    >>> bool(np.allclose(np.sin(2 * np.pi * 100 * l) + 0.2 * np.sin(2 * np.pi * 2000 * l), 0))
    True
    """
    n_train = check_scalar_range(n_train, "n_train", low=1, low_inclusive=True, integer=True)
    n_test = check_scalar_range(n_test, "n_test", low=1, low_inclusive=True, integer=True)
    # k * 0.01 rather than a running sum: the same grid as np.arange(0, 5, 0.01), no drift.
    t = np.arange(n_train + n_test, dtype=np.float64) * SAMPLING_INTERVAL
    x = sum(amplitude * np.sin(2.0 * np.pi * frequency * t) for amplitude, frequency in _WAVES)
    return Bunch(
        train=x[:n_train].copy(),
        test=x[n_train:].copy(),
        t_train=t[:n_train].copy(),
        t_test=t[n_train:].copy(),
        description=_DESCRIPTION,
    )
