"""The ufunc fast path's view of a foreign CUDA array (``cudalite.cuda._ufuncs.keys``):
only 1-or-more-d C-contiguous, unmasked arrays with a readable interface qualify; a CuPy
array read a second time launches as a kept device-array view, only on CuPy's null
stream (GPU-less fakes)."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite.cuda._ufuncs.keys import cai_key as _cai_key
from cudalite.cuda._ufuncs.keys import cupy_key as _cupy_key
from cudalite.cuda._ufuncs.keys import cupy_keys as _cupy_keys
from cudalite.cuda._ufuncs.keys import key_reader as _key_reader


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
    assert _cai_key(obj) == (*expected, obj)  # launched as itself


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
    a = _cupy_like((7,), dtype)
    reader = _key_reader(type(a), a, 3)
    assert reader.seen == {}
    assert reader(a) == _cupy_key(a) == _cai_key(a) == ((np.dtype(dtype), 1, "C"), (7,), 0x1000, a)


@pytest.mark.parametrize("shape, strides", [((7,), (8,)), ((2, 3), None)])
def test_cupy_arrays_the_fast_path_does_not_take(shape, strides):
    assert _cupy_key(_cupy_like(shape, "float32", strides)) is None  # strided, or 2-d: the general path


def test_cupy_keys_are_kept_for_the_last_arrays_while_1d():
    """The reader keeps the keys of the last ``size`` arrays: the same object, still 1-d,
    is not read again; one made 2-d in place is not the fast path's; the oldest goes."""
    reader = _cupy_keys(2)
    a, b, c = _cupy_like((7,), "float32"), _cupy_like((5,), "float64", ptr=0x2000), _cupy_like((3,), "int8")
    ka = reader(a)
    assert ka == ((np.dtype("float32"), 1, "C"), (7,), 0x1000, a)  # the first time: launched as itself
    a.data, a.dtype = None, None  # unreadable now: a hit must not read them
    again = reader(a)
    assert again[:3] == ka[:3]
    a.ndim, a.shape = 2, (1, 7)  # CuPy's in-place reshape
    assert reader(a) is None
    a.ndim, a.shape = 1, (7,)
    assert reader(a)[:3] == ka[:3]  # 1-d again: the same pointer, dtype and extent
    reader(b)
    reader(c)  # a third array: the oldest (a) goes
    assert len(reader.seen) == 2 and id(a) not in reader.seen
    assert reader(b)[:3] == ((np.dtype("float64"), 1, "C"), (5,), 0x2000)


def test_a_cupy_array_read_again_launches_as_a_kept_view():
    """The second read gives a DeviceNDArray over the same memory (its owner the CuPy
    array), the same object at every later read; an array whose interface fails keeps
    launching as itself."""
    from cudalite.cuda import DeviceNDArray

    reader = _cupy_keys(3)
    a = _cupy_like((7,), "float32", ptr=0x5000)
    assert reader(a)[3] is a
    view = reader(a)[3]
    assert type(view) is DeviceNDArray and view is not a
    assert (view.device_ctypes_pointer.value, view.shape, view.strides, view.dtype) == (
        0x5000, (7,), (4,), np.dtype("float32"))
    assert view._type_key == reader(a)[0] and reader(a)[3] is view  # kept: made once
    b = _cupy_like((7,), "float32", ptr=0x6000)
    reader(b)
    del b.__cuda_array_interface__  # no interface: no view, the CuPy launch path takes it
    assert reader(b)[3] is b and reader(b)[3] is b


def test_a_failed_view_is_tried_once(monkeypatch):
    from cudalite.cuda._ufuncs import keys

    tried = []

    def failing(a, sync=True):
        tried.append(a)
        raise TypeError("no interface")

    monkeypatch.setattr(keys, "as_cuda_array", failing)
    a = _cupy_like((4,), "float64")
    reader = _key_reader(type(a), a, 3)
    for _ in range(4):
        assert reader(a)[3] is a
    assert tried == [a] and list(reader.seen) == [id(a)] and reader.seen[id(a)][0] is a


def test_views_launch_only_on_cupy_s_null_stream(monkeypatch):
    """The reader names CuPy's current-stream query and its null stream (the fast path
    launches views only while they are the same); without a CuPy module (a stand-in
    class) there is no query, and no view is ever launched."""
    import sys
    import types

    reader = _cupy_keys(2)
    assert reader.current_stream is None or "cupy" in sys.modules
    null = object()
    fake = types.ModuleType("cupy")
    fake.cuda = types.SimpleNamespace(get_current_stream=lambda: null, Stream=types.SimpleNamespace(null=null))
    monkeypatch.setitem(sys.modules, "cupy", fake)
    reader = _cupy_keys(2)
    assert reader.current_stream() is reader.null_stream is null
    fake.cuda.Stream = types.SimpleNamespace()  # no null stream object: a sentinel nothing returns
    reader = _cupy_keys(2)
    assert reader.current_stream() is not reader.null_stream
    del fake.cuda  # a module without cupy.cuda: no query, no views (and no AttributeError)
    assert _cupy_keys(2).current_stream is None
