"""The ``typestr`` device arrays export in ``__cuda_array_interface__``
(``_memory.layout.cai_typestr``): the dtype's own when NumPy reads it back, opaque bytes
(``|V<n>``) when it cannot (ml_dtypes' float8_e5m2 is ``<f1``), so every importer --
cudalite's own ``as_cuda_array`` included -- can parse it (GPU-less: a fake address)."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite.cuda._memory.layout import cai_typestr
from cudalite.cuda.devicearray import DeviceNDArray


class _Memory:
    device_id = 0


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.complex128, np.bool_,
                                   np.dtype([("a", "<f4"), ("b", "<i8")])])
def test_numpy_types_export_their_own_typestr(dtype):
    dtype = np.dtype(dtype)
    assert cai_typestr(dtype) == dtype.str


def test_ml_dtypes_export_a_readable_typestr():
    ml = pytest.importorskip("ml_dtypes")
    for t in (ml.float8_e4m3fn, ml.float8_e5m2, ml.bfloat16):
        dtype = np.dtype(t)
        a = DeviceNDArray((4, 8), None, dtype, ptr=0x7F0000000000, owner=_Memory())
        typestr = a.__cuda_array_interface__["typestr"]
        assert np.dtype(typestr).itemsize == dtype.itemsize  # NumPy reads it back
        assert typestr == (dtype.str if t is not ml.float8_e5m2 else "|V1")
