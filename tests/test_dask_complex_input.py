"""A complex Dask array is rejected as a complex NumPy array is (before: its imaginary part was dropped,
with only Dask's ComplexWarning, and the fit went on)."""

import numpy as np
import pytest

from rkmlearn import KPCA
from rkmlearn.features import IdentityFeatures

da = pytest.importorskip("dask.array")
X = np.random.default_rng(0).normal(size=(60, 3))


@pytest.mark.parametrize("data", [X + 1j, X.astype(np.complex64)], ids=["complex128", "complex64"])
def test_complex_dask_array_is_rejected_like_numpy(data):
    model = KPCA(2, feature_map=IdentityFeatures(), setting="primal")
    with pytest.raises(ValueError, match=r"^X must be real-valued; got complex data"):
        model.fit(data)
    with pytest.raises(ValueError, match=r"^X must be real-valued; got a complex Dask array"):
        model.fit(da.from_array(data, chunks=(20, 3)))
