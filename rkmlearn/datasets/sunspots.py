"""Yearly sunspot numbers 1700-2008, the series that statsmodels ships."""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

from .._validation import check_scalar_range

__all__ = ["load_sunspots"]


def load_sunspots(n_test=None):
    """Yearly mean sunspot numbers 1700-2008 (309 values), from statsmodels, offline.

    The classic real series of time-series analysis (Box & Jenkins; Tong), shipped inside
    ``statsmodels`` (``statsmodels.datasets.sunspots``), which the book also uses for its ARMA
    baselines; Part V uses it as a further real series beside Santa Fe.

    Parameters
    ----------
    n_test : int or None, default=None
        If given, the last ``n_test`` years form the test part (``1 <= n_test <= 307``, leaving
        at least two training values).

    Returns
    -------
    data : :class:`sklearn.utils.Bunch`
        ``series`` (309,) float64 and ``years`` (309,) int; with ``n_test``, also ``train``,
        ``test``, ``years_train``, ``years_test``; ``DESCR`` (statsmodels' description).

    Raises
    ------
    ImportError
        If statsmodels is not installed.
    ValueError
        If ``n_test`` is out of range.

    Examples
    --------
    >>> from rkmlearn.datasets import load_sunspots
    >>> data = load_sunspots(n_test=50)
    >>> data.series.shape, data.train.shape, int(data.years_test[0])
    ((309,), (259,), 1959)
    """
    try:
        from statsmodels.datasets import sunspots
    except ImportError as exc:
        raise ImportError(
            "load_sunspots reads the series shipped with statsmodels: pip install "
            "'rkmlearn[data]' (or pip install statsmodels)."
        ) from exc
    frame = sunspots.load().data
    series = frame["SUNACTIVITY"].to_numpy(dtype=np.float64)
    years = frame["YEAR"].to_numpy().astype(np.int64)
    data = Bunch(
        series=series,
        years=years,
        DESCR=f"{sunspots.TITLE}\n{sunspots.DESCRSHORT}\n\nSource: {sunspots.SOURCE}\n"
        f"Shipped with statsmodels (statsmodels.datasets.sunspots); {sunspots.COPYRIGHT}",
    )
    if n_test is not None:
        n_test = check_scalar_range(n_test, "n_test", low=1, high=series.size - 2, low_inclusive=True, integer=True)
        split = series.size - n_test
        data.update(
            train=series[:split].copy(),
            test=series[split:].copy(),
            years_train=years[:split].copy(),
            years_test=years[split:].copy(),
        )
    return data
