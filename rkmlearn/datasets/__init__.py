"""Time series of Part I: the duality paper's two forecasting data sets, and an offline stand-in.

* :func:`sum_of_sines` -- the toy series of the duality paper's code (generated, exact).
* :func:`load_santafe` -- the real Santa Fe laser series A (read from a folder or downloaded once,
  verified by SHA-256).
* :func:`make_laser_series` -- a synthetic chaotic laser series from the Lorenz-Haken equations,
  an honestly labelled stand-in for Santa Fe A when it cannot be downloaded.
"""

from .laser import make_laser_series
from .santafe import SANTAFE_SHA256, SANTAFE_URL, SANTAFE_URL_ENV, load_santafe
from .sines import sum_of_sines

__all__ = [
    "sum_of_sines",
    "load_santafe",
    "make_laser_series",
    "SANTAFE_URL",
    "SANTAFE_URL_ENV",
    "SANTAFE_SHA256",
]
