"""The ufunc fast path's view of a foreign CUDA array (``_cai_key``): only 1-or-more-d
C-contiguous, unmasked arrays with a readable interface qualify (GPU-less fakes)."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite.cuda._ufuncs.vectorize import _cai_key


class Fake:
    def __init__(self, **cai):
        self._cai = {"version": 3, "data": (0x1000, False), **cai}

    @property
    def __cuda_array_interface__(self):
        return self._cai


class Broken:
    @property
    def __cuda_array_interface__(self):
        raise RuntimeError("no interface today")


@pytest.mark.parametrize("obj,expected", [
    (Fake(shape=(5,), typestr="<f4"), ((np.dtype("float32"), 1, "C"), (5,), 0x1000)),
    (Fake(shape=(5,), typestr="<f8", strides=(8,)), ((np.dtype("float64"), 1, "C"), (5,), 0x1000)),
    (Fake(shape=(2, 3), typestr="<i4", strides=(12, 4)), ((np.dtype("int32"), 2, "C"), (2, 3), 0x1000)),
    (Fake(shape=(1, 3), typestr="<i4", strides=(999, 4)), ((np.dtype("int32"), 2, "C"), (1, 3), 0x1000)),
])
def test_c_contiguous_arrays_qualify(obj, expected):
    assert _cai_key(obj) == expected


@pytest.mark.parametrize("obj", [
    Fake(shape=(5,), typestr="<f4", strides=(8,)),          # every other element
    Fake(shape=(2, 3), typestr="<i4", strides=(4, 8)),      # Fortran order
    Fake(shape=(5,), typestr="<f4", mask=(0x2000, False)),  # masked
    Fake(shape=(5,), typestr="not a dtype"),
    Fake(shape=(5,), typestr=">f4" if np.little_endian else "<f4"),  # not the native byte order
    Fake(typestr="<f4"),                                     # no shape
    Fake(shape=(5,), typestr="<f4", data=None),              # no data pointer
    Broken(), object(), np.zeros(3),
])
def test_anything_else_does_not(obj):
    assert _cai_key(obj) is None
