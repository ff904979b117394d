"""The ufunc fast path's new output (``_memory.api.new_vector``) is the array
``device_array((n,), dtype, stream=...)`` makes, field by field (GPU-less: the device
allocation is a stand-in)."""

from __future__ import annotations

import numpy as np
import pytest

import cudalite.driver as drv
from cudalite.cuda._memory import api
from cudalite.cuda.devicearray import DeviceNDArray


@pytest.fixture
def fake_alloc(monkeypatch):
    made = []

    def alloc(nbytes):
        made.append(nbytes)
        return drv.DeviceMemory(0x7000 + 0x1000 * len(made), nbytes, 0)  # no driver: never freed

    monkeypatch.setattr(api, "device_alloc", alloc)
    return made


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "uint16", "complex128", "bool", "float16"])
@pytest.mark.parametrize("n", [1, 7, 1000])
def test_new_vector_is_device_array(fake_alloc, dtype, n):
    dtype = np.dtype(dtype)
    ref = api.device_array(n, dtype, stream=5)
    new = api.new_vector(n, dtype, 5)
    assert fake_alloc == [n * dtype.itemsize] * 2
    for name in DeviceNDArray.__slots__:
        if name in ("__weakref__", "gpu_data", "_ptr", "_kernel_params"):
            continue
        assert getattr(new, name) == getattr(ref, name), name
    assert new._type_key is ref._type_key  # interned: the launch guard's `is` holds
    assert new._ptr == ref._ptr + 0x1000 and new._kernel_params == (new._ptr, n)
    assert ref._kernel_params == (ref._ptr, n) and new.gpu_data.size == n * dtype.itemsize


def test_new_vector_over_a_plugins_memory(monkeypatch):
    """An EMM plugin's allocation (a MemoryPointer-like object): its pointer, no device."""
    class Pointer:
        def __init__(self, ptr, size):
            self.ptr, self.size = ptr, size

    monkeypatch.setattr(api, "device_alloc", lambda nbytes: Pointer(0x9000, nbytes))
    ref = api.device_array(10, np.float64)
    new = api.new_vector(10, np.dtype(np.float64), 0)
    assert new._ptr == ref._ptr == 0x9000 and new._device is ref._device is None
    assert new._kernel_params == ref._kernel_params == (0x9000, 10)
