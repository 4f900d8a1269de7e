"""Generated periodic series: the duality paper's sum of sines and the recurrent RKM paper's sine wave."""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

from .._validation import check_scalar_range

__all__ = ["sum_of_sines", "sine_wave"]

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
        ``DESCR`` : str
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
        DESCR=_DESCRIPTION,
    )


_SINE_DESCRIPTION = """\
Sine wave x_k = {amplitude:g} sin(2 pi k / {period:g}), k = 0, 1, ..., {n_last}: {period:g} samples per period.

The "simple sine wave" whose latent trajectory Pandey et al., "Recurrent Restricted Kernel
Machines for Time-series Forecasting" (ESANN 2022), show in Fig. 2. The paper gives neither the
period nor the length; these are rkmlearn's choices (parameters of sine_wave). The first n_train
values are the training series, the next n_test the test series.
"""


def sine_wave(n_train=200, n_test=100, *, period=20.0, amplitude=1.0):
    """A sampled sine wave: the toy series of the recurrent RKM paper's Fig. 2.

    ``x_k = amplitude * sin(2 pi k / period)`` for ``k = 0, 1, ..., n_train + n_test - 1``. Each
    value is computed from its own index (no recursion, no accumulated rounding), so the series
    is the same on every machine to the last bit that ``numpy.sin`` guarantees.

    The paper (Pandey et al., ESANN 2022, Fig. 2) does not state the period or the length; the
    defaults (20 samples per period, 10 periods of training, 5 of test) are rkmlearn's.

    Parameters
    ----------
    n_train : int, default=200
        Number of training values. At least 1.
    n_test : int, default=100
        Number of test values, the continuation of the training series. At least 1.
    period : float, default=20.0
        Samples per period, > 0 (need not be an integer).
    amplitude : float, default=1.0
        Amplitude, > 0.

    Returns
    -------
    data : :class:`sklearn.utils.Bunch`
        ``train`` (n_train,), ``test`` (n_test,), ``t_train`` and ``t_test`` (the sample
        indices ``k`` as float64), ``DESCR``.

    Raises
    ------
    ValueError
        If a size is not an integer >= 1, or ``period`` or ``amplitude`` is not a finite
        number > 0.

    Examples
    --------
    >>> import numpy as np
    >>> from rkmlearn.datasets import sine_wave
    >>> data = sine_wave()
    >>> data.train.shape, data.test.shape, bool(np.allclose(data.train[20:], data.train[:-20]))
    ((200,), (100,), True)
    """
    n_train = check_scalar_range(n_train, "n_train", low=1, low_inclusive=True, integer=True)
    n_test = check_scalar_range(n_test, "n_test", low=1, low_inclusive=True, integer=True)
    period = check_scalar_range(period, "period", low=0)
    amplitude = check_scalar_range(amplitude, "amplitude", low=0)
    k = np.arange(n_train + n_test, dtype=np.float64)
    x = amplitude * np.sin(2.0 * np.pi * k / period)
    return Bunch(
        train=x[:n_train].copy(),
        test=x[n_train:].copy(),
        t_train=k[:n_train].copy(),
        t_test=k[n_train:].copy(),
        DESCR=_SINE_DESCRIPTION.format(amplitude=amplitude, period=period, n_last=n_train + n_test - 1),
    )
