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


@pytest.mark.parametrize("desc, error, text", [
    ({"version": 3}, TypeError, "KeyError('shape')"),
    ({"version": 3, "shape": (4,), "data": (0x7F0000000000, False)}, TypeError, "KeyError('typestr')"),
    ({"version": 3, "shape": 4, "typestr": "<f4", "data": (0x7F0000000000, False)}, TypeError, "not iterable"),
    ({"version": 3, "shape": (4,), "typestr": "<f4", "data": None}, TypeError, "not subscriptable"),
    ({"version": 3, "shape": (4,), "typestr": "zz", "data": (0x7F0000000000, False)}, TypeError, "not understood"),
    ({"version": "3", "shape": (4,), "typestr": "<f4", "data": (0x7F0000000000, False)}, ValueError, "version '3'"),
    (5, ValueError, "not a dict"),
])
def test_a_malformed_interface_is_a_located_type_or_value_error(desc, error, text):
    """A broken ``__cuda_array_interface__`` (a field missing or of another kind, not a
    dict) is a TypeError/ValueError naming the interface and what failed, never the
    KeyError/AttributeError of reading it."""
    from cudalite.cuda.devicearray import from_cuda_array_interface

    with pytest.raises(error, match="__cuda_array_interface__") as err:
        from_cuda_array_interface(desc, sync=False)
    assert text in str(err.value)


def test_a_numpy_integer_version_is_accepted():
    from cudalite.cuda.devicearray import from_cuda_array_interface

    arr = from_cuda_array_interface({"version": np.int64(2), "shape": (4,), "typestr": "<f4",
                                     "data": (0x7F0000000000, False)}, sync=False)
    assert arr.shape == (4,) and arr.dtype == np.float32
