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


class _Ptr:
    def __init__(self, ptr):
        self.ptr = ptr


def _cupy_like(shape, dtype, strides=None, ptr=0x1000):
    """A stand-in of a CuPy array: its attributes and its interface agree."""
    dtype = np.dtype(dtype)
    strides = strides or tuple(int(np.prod(shape[i + 1:])) * dtype.itemsize for i in range(len(shape)))
    cls = type("ndarray", (), {"__module__": "cupy._core.core"})
    a = cls()
    a.data, a.shape, a.strides, a.dtype, a.ndim = _Ptr(ptr), tuple(shape), tuple(strides), dtype, len(shape)
    a._c_contiguous = all(s == e for s, e in zip(strides, _cupy_like_c(shape, dtype))) or int(np.prod(shape)) <= 1
    a.__cuda_array_interface__ = {"version": 3, "data": (ptr, False), "shape": tuple(shape), "typestr": dtype.str,
                                  "strides": tuple(strides)}
    return a


def _cupy_like_c(shape, dtype):
    return tuple(int(np.prod(shape[i + 1:])) * dtype.itemsize for i in range(len(shape)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "uint64", "complex64", "bool"])
def test_cupy_arrays_are_read_by_their_attributes_with_the_interface_s_result(dtype):
    from cudalite.cuda._ufuncs.vectorize import _cupy_key, _key_reader

    a = _cupy_like((7,), dtype)
    reader = _key_reader(type(a), a, 3)
    assert reader.seen == {}
    assert reader(a) == _cupy_key(a) == _cai_key(a) == ((np.dtype(dtype), 1, "C"), (7,), 0x1000)


@pytest.mark.parametrize("shape, strides", [((7,), (8,)), ((2, 3), None)])
def test_cupy_arrays_the_fast_path_does_not_take(shape, strides):
    from cudalite.cuda._ufuncs.vectorize import _cupy_key

    assert _cupy_key(_cupy_like(shape, "float32", strides)) is None  # strided, or 2-d: the general path


def test_cupy_keys_are_kept_for_the_last_arrays_while_1d():
    """The reader keeps the keys of the last ``size`` arrays: the same object, still 1-d,
    is not read again; one made 2-d in place is not the fast path's; the oldest goes."""
    from cudalite.cuda._ufuncs.vectorize import _cupy_keys

    reader = _cupy_keys(2)
    a, b, c = _cupy_like((7,), "float32"), _cupy_like((5,), "float64", ptr=0x2000), _cupy_like((3,), "int8")
    ka = reader(a)
    a.data, a.dtype = None, None  # unreadable now: a hit must not read them
    assert reader(a) == ka == ((np.dtype("float32"), 1, "C"), (7,), 0x1000)
    reader(b)
    a.ndim, a.shape = 2, (1, 7)  # CuPy's in-place reshape
    assert reader(a) is None
    a.ndim, a.shape = 1, (7,)
    assert reader(a) == ka  # 1-d again: the same pointer, dtype and extent
    reader(c)  # a third array: the oldest (a) goes
    assert len(reader.seen) == 2 and id(a) not in reader.seen
    assert reader(b) == ((np.dtype("float64"), 1, "C"), (5,), 0x2000)
