"""GPU-less: the DLPack capsule's DLManagedTensor and the GPU-addressable host arrays.

The capsule is built over a fake device pointer and read back with ctypes; the
mapped-array logic is exercised over ordinary host memory posing as mapped memory.
"""

import ctypes
import gc
import sys
import weakref

import numpy as np
import pytest

from cudalite.cuda._memory import dlpack as _dlpack
from cudalite.cuda._memory.hostarray import MappedNDArray, host_array_over
from cudalite.cuda.devicearray import DeviceNDArray, is_device_array

BASE = 0x7F0000000000


class FakeMemory:
    device_id = 3


def read_capsule(cap):
    proto = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)
    get = proto(("PyCapsule_GetPointer", ctypes.pythonapi))
    return ctypes.cast(get(cap, b"dltensor"), ctypes.POINTER(_dlpack._DLManagedTensor)).contents


def test_dlpack_capsule_fields_and_lifetime():
    d = DeviceNDArray((4, 6), None, np.float32, ptr=BASE, owner=FakeMemory())[:, ::-2]
    assert d.__dlpack_device__() == (_dlpack.KDLCUDA, 3)
    ref = weakref.ref(d)
    cap = d.__dlpack__(stream=None)
    t = read_capsule(cap).dl_tensor
    assert t.data == d._ptr and t.ndim == 2 and t.byte_offset == 0
    assert (t.device.device_type, t.device.device_id) == (2, 3)
    assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (2, 32, 1)
    assert [t.shape[i] for i in range(2)] == [4, 3]
    assert [t.strides[i] for i in range(2)] == [6, -2]  # elements, not bytes
    del d
    gc.collect()
    assert ref() is not None  # the capsule keeps the array alive
    del cap, t
    gc.collect()
    assert ref() is None  # an unconsumed capsule releases it


def test_dlpack_deleter_called_by_consumer():
    d = DeviceNDArray((5,), None, np.complex128, ptr=BASE, owner=FakeMemory())
    ref = weakref.ref(d)
    cap = d.__dlpack__()
    m = read_capsule(cap)
    assert (m.dl_tensor.dtype.code, m.dl_tensor.dtype.bits) == (5, 128)
    rename = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(("PyCapsule_SetName", ctypes.pythonapi))
    rename(cap, b"used_dltensor")  # what a consumer does, then it calls the deleter
    del d
    gc.collect()
    m.deleter(ctypes.pointer(m))
    gc.collect()
    assert ref() is None
    del cap  # the destructor must not call the deleter again
    gc.collect()


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int64, np.float16, np.float64, np.complex64])
def test_dlpack_dtypes(dtype):
    code, bits, lanes = _dlpack.dlpack_dtype(np.dtype(dtype))
    assert bits == np.dtype(dtype).itemsize * 8 and lanes == 1
    assert code == {"b": 6, "i": 0, "u": 1, "f": 2, "c": 5}[np.dtype(dtype).kind]


def test_dlpack_rejects_records_and_odd_strides():
    rec = np.dtype([("a", np.int32), ("b", np.float64)])
    with pytest.raises(BufferError):
        DeviceNDArray((3,), None, rec, ptr=BASE, owner=FakeMemory()).__dlpack__()
    with pytest.raises(BufferError):
        DeviceNDArray((3,), (6,), np.int32, ptr=BASE, owner=FakeMemory()).__dlpack__()
    with pytest.raises(BufferError):
        DeviceNDArray((3,), None, np.int32, ptr=BASE, owner=FakeMemory()).__dlpack__(copy=True)


def fake_mapped(shape, dtype=np.float32, order="C"):
    """A MappedNDArray over ordinary host memory mapped at a fake device address."""
    backing = np.zeros(int(np.prod(shape)) * np.dtype(dtype).itemsize, np.uint8)
    hp = backing.__array_interface__["data"][0]
    strides = None if order == "C" else tuple(np.zeros(shape, dtype, order="F").strides)
    arr = host_array_over(hp, backing.nbytes, backing, shape, dtype, strides, cls=MappedNDArray)
    return arr._attach(hp, BASE, backing.nbytes, backing), hp


def test_mapped_array_views_keep_device_addresses():
    a, hp = fake_mapped((4, 6))
    assert is_device_array(a) and isinstance(a, np.ndarray)
    assert a._ptr == BASE and a._layout == "C" and a._kernel_params == (BASE, 4, 6)
    v = a[1:, ::2]
    assert isinstance(v, MappedNDArray) and v._ptr == BASE + 24 and v._layout == "A"
    assert v._kernel_params == (BASE + 24, 3, 3, 24, 8)
    assert v.__cuda_array_interface__["data"] == (BASE + 24, False)
    assert a.T._layout == "F" and a.T.__cuda_array_interface__["strides"] == (4, 24)
    a[...] = 1.5
    b = a + 1  # new memory: a plain ndarray
    assert type(b) is np.ndarray and float(b[0, 0]) == 2.5
    c = a.copy()  # new memory kept as the subclass: no device side
    assert not is_device_array(c) and not hasattr(c, "__cuda_array_interface__")
    assert type(a.copy_to_host()) is np.ndarray and a.copy_to_host().sum() == 36
    f, _ = fake_mapped((3, 5), order="F")
    assert f._layout == "F" and f._type_key == (np.dtype(np.float32), 2, "F")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX only")
def test_is_device_array_markers():
    d = DeviceNDArray((2,), None, np.int8, ptr=BASE, owner=None)
    assert is_device_array(d)
    assert not is_device_array([1, 2]) and not is_device_array(np.zeros(2))
