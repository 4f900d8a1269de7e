"""Data sets of the book, real wherever a package ships them; none needs a network for the book.

* :func:`load_santafe` -- the real Santa Fe laser series A, shipped with rkmlearn (10 093 values;
  1000 train / 100 test as in the papers), or the original files from a folder or a download.
* :func:`sum_of_sines` -- the toy series of the duality paper's code (generated, exact).
* :func:`sine_wave` -- the sine wave of the recurrent RKM paper's Fig. 2 (generated, exact).
"""

from .santafe import (
    SANTAFE_N_TEST,
    SANTAFE_N_TRAIN,
    SANTAFE_SHA256,
    SANTAFE_URL,
    SANTAFE_URL_ENV,
    load_santafe,
)
from .sines import sine_wave, sum_of_sines

__all__ = [
    "load_santafe",
    "sum_of_sines",
    "sine_wave",
    "SANTAFE_URL",
    "SANTAFE_URL_ENV",
    "SANTAFE_SHA256",
    "SANTAFE_N_TRAIN",
    "SANTAFE_N_TEST",
]
