"""GPU-less: DLPack-only producers as kernel arguments -- the capsule is read
(pointer, shape, byte strides, dtype), marked used and its deleter run."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

from cudalite.cuda import _dlpack
from cudalite.cuda._args import DLPackHandler, handler_for
from cudalite.cuda.devicearray import DeviceNDArray

BASE = 0x7F0000000000


class FakeMemory:
    device_id = 0


class DLPackOnly:
    """Exports only DLPack (like a framework array without the CUDA array interface)."""

    def __init__(self, array, device_type=_dlpack.KDLCUDA):
        self.array = array
        self.device_type = device_type
        self.streams = []

    def __dlpack_device__(self):
        return (self.device_type, 0)

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        return _dlpack.to_dlpack(self.array, self.device_type, 0)


def test_read_dlpack_gives_pointer_shape_byte_strides_and_dtype():
    view = DeviceNDArray((4, 6), None, np.float32, ptr=BASE, owner=FakeMemory())[:, ::-2]
    src = DLPackOnly(view)
    ptr, shape, strides, dtype = _dlpack.read_dlpack(src, stream=7)
    assert (ptr, shape, strides, dtype) == (view._ptr, view.shape, view.strides, np.dtype(np.float32))
    assert src.streams == [7]


def test_the_capsule_is_released_after_reading():
    arr = DeviceNDArray((5,), None, np.int64, ptr=BASE, owner=FakeMemory())
    ref = weakref.ref(arr)
    src = DLPackOnly(arr)
    _dlpack.read_dlpack(src)
    del src, arr
    gc.collect()
    assert ref() is None, "the deleter must drop the exporter's reference"


def test_dlpack_only_objects_get_the_dlpack_handler_and_a_type_key():
    src = DLPackOnly(DeviceNDArray((3, 4), None, np.float64, ptr=BASE, owner=FakeMemory()))
    handler = handler_for(type(src), src, None)
    assert isinstance(handler, DLPackHandler)
    assert handler.key(src) == (np.dtype(np.float64), 2, "C")


def test_host_dlpack_tensors_are_rejected():
    src = DLPackOnly(DeviceNDArray((3,), None, np.float32, ptr=BASE, owner=FakeMemory()), _dlpack.KDLCPU)
    with pytest.raises(TypeError, match="CUDA device"):
        _dlpack.read_dlpack(src)
