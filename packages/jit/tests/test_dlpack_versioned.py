"""DLPack 1.x on the consumer side (GPU-less: capsules made by cudalite's own exporter
over fake device memory): ``max_version=(1, 0)`` is asked for, a versioned capsule is
read (and its deleter called), a legacy producer still works, a read-only tensor is
refused for a kernel with a clear error, an unknown major version is refused, and
DLPack 1.1's fp8 codes map to ml_dtypes' fp8 dtypes (both ways)."""

from __future__ import annotations

import ctypes
import gc
import weakref

import ml_dtypes  # noqa: F401  (fp8/bfloat16 dtypes on the host)
import numpy as np
import pytest

from cudalite.cuda._memory import dlpack as D


class _Memory:
    """What ``to_dlpack`` exports: a pointer, shape, byte strides and dtype."""

    def __init__(self, shape, dtype, ptr=0x7F00_0000_1000):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.strides = tuple(D.c_strides(self.shape, self.dtype.itemsize))
        self._ptr = ptr


class _Producer:
    """A CUDA DLPack producer; ``versioned``: answers ``max_version=(1, 0)`` with DLPack 1.x;
    ``legacy``: its ``__dlpack__`` has no ``max_version`` (a pre-1.0 producer)."""

    def __init__(self, memory, versioned=True, legacy=False, flags=0, major=None):
        self.memory, self.versioned, self.legacy, self.flags, self.major = memory, versioned, legacy, flags, major
        self.asked = []

    def __dlpack_device__(self):
        return (D.KDLCUDA, 0)

    def __dlpack__(self, stream=None, max_version=None, **kw):
        if self.legacy and max_version is not None:
            raise TypeError("__dlpack__() got an unexpected keyword argument 'max_version'")
        self.asked.append(max_version)
        use_v = self.versioned and max_version is not None and max_version[0] >= 1
        cap = D.to_dlpack(self.memory, D.KDLCUDA, 0, versioned=use_v)
        if use_v and (self.flags or self.major is not None):
            m = ctypes.cast(D._capsule_pointer_of(cap, D._VERSIONED_NAME),
                            ctypes.POINTER(D._DLManagedTensorVersioned)).contents
            m.flags = self.flags
            if self.major is not None:
                m.version.major = self.major
        return cap


def test_a_versioned_capsule_is_asked_for_and_read():
    mem = _Memory((3, 4), np.float32)
    prod = _Producer(mem)
    ptr, shape, strides, dtype = D.read_dlpack(prod, stream=1)
    assert prod.asked == [D.DLPACK_VERSION] == [(1, 0)]
    assert (ptr, shape, strides, dtype) == (mem._ptr, (3, 4), (16, 4), np.dtype(np.float32))


def test_a_legacy_producer_is_still_read():
    mem = _Memory((5,), np.int16)
    prod = _Producer(mem, versioned=False, legacy=True)
    assert D.read_dlpack(prod, stream=1) == (mem._ptr, (5,), (2,), np.dtype(np.int16))
    assert prod.asked == [None]


def test_the_producers_deleter_runs_once_the_tensor_is_read():
    mem = _Memory((2,), np.float64)
    alive = weakref.ref(mem)
    D.read_dlpack(_Producer(mem), stream=1)
    del mem
    gc.collect()
    assert alive() is None  # the exporter's holder (which kept the memory) was released by the deleter


def test_a_read_only_tensor_is_refused_for_a_kernel():
    with pytest.raises(TypeError, match=r"_Producer's DLPack tensor is read-only: a kernel may write"):
        D.read_dlpack(_Producer(_Memory((4,), np.int32), flags=D._FLAG_READ_ONLY), stream=1)


def test_an_unknown_major_version_is_refused():
    with pytest.raises(TypeError, match=r"a DLPack 2\.0 tensor cannot be read \(cudalite reads DLPack 1\.x\)"):
        D.read_dlpack(_Producer(_Memory((4,), np.int32), major=2), stream=1)


@pytest.mark.parametrize("name, code", [("float8_e4m3fn", 10), ("float8_e5m2", 12), ("float8_e8m0fnu", 14)])
def test_dlpack_1_1_fp8_codes_both_ways(name, code):
    dtype = np.dtype(getattr(ml_dtypes, name))
    assert D.dlpack_dtype(dtype) == (code, 8, 1)
    _ptr, shape, strides, got = D.read_dlpack(_Producer(_Memory((7,), dtype)), stream=1)
    assert got == dtype and shape == (7,) and strides == (1,)


def test_an_fp8_code_cudalite_has_no_type_for_is_refused():
    class Other(_Producer):
        def __dlpack__(self, stream=None, max_version=None):
            cap = super().__dlpack__(stream, max_version)
            m = ctypes.cast(D._capsule_pointer_of(cap, D._VERSIONED_NAME),
                            ctypes.POINTER(D._DLManagedTensorVersioned)).contents
            m.dl_tensor.dtype.code = 9  # kDLFloat8_e4m3b11fnuz
            return cap

    with pytest.raises(TypeError, match=r"DLPack dtype code 9 \(8 bits\) cannot be passed to a kernel"):
        D.read_dlpack(Other(_Memory((3,), np.uint8)), stream=1)
