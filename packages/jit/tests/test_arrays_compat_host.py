"""GPU-less host side of numba-cuda's array features: 0-d device arrays, and kernels
that capture device arrays from globals (never cached; the arrays kept alive)."""

from __future__ import annotations

import gc
import pickle
import weakref

import numpy as np
import pytest

from cudalite.core.types import parse_signature
from cudalite.cuda._compiler import cache as _cache
from cudalite.cuda._compiler.options import JitOptions
from cudalite.cuda._compiler.kernel import build_kernel
from cudalite.cuda.devicearray import DeviceNDArray

from _fake_arrays import BASE


def test_zero_d_device_array_attributes():
    a = DeviceNDArray((), None, np.float64, ptr=BASE)
    assert (a.shape, a.strides, a.size, a.ndim, a.nbytes) == ((), (), 1, 0, 8)
    assert a._type_key == (np.dtype(np.float64), 0, "C") and a._kernel_params == (BASE,)
    assert a.__cuda_array_interface__["shape"] == ()
    with pytest.raises(TypeError, match="unsized"):
        len(a)
    b = DeviceNDArray((4, 3), None, np.float32, ptr=BASE)
    whole = b[()]  # NumPy: a[()] of an n-d array is a view of all of it
    assert isinstance(whole, DeviceNDArray) and whole.shape == (4, 3) and whole._ptr == BASE


class Captured:
    """A device array look-alike: a class-level ``__cuda_array_interface__``."""

    def __init__(self, ptr):
        self._cai = {"shape": (3,), "typestr": "<f4", "data": (ptr, False), "strides": None, "version": 3}

    @property
    def __cuda_array_interface__(self):
        return self._cai


CAPTURED = Captured(BASE + 0x1000)


def reads_global(out):
    out[0] = CAPTURED[1] * 2


def test_kernel_capturing_a_device_array_cannot_be_cached(tmp_path):
    argtypes = parse_signature("void(float32[::1])")[1]
    with pytest.raises(pickle.PicklingError, match="global device arrays"):  # numba-cuda's error
        _cache.probe_kernel(reads_global, argtypes, JitOptions(cache=True), (9, 0), directory=str(tmp_path))


def _make_kernel(arr):
    def kernel(out):
        out[0] = arr[0]

    return kernel


def test_captured_device_array_lives_as_long_as_the_kernel():
    arr = Captured(BASE + 0x2000)
    ref = weakref.ref(arr)
    kernel = _make_kernel(arr)
    build = build_kernel(kernel, parse_signature("void(float32[::1])")[1], JitOptions(), (9, 0))
    assert len(build.keepalive) == 1 and build.keepalive[0] is arr
    del arr, kernel
    gc.collect()
    assert ref() is not None  # held by the build (CompiledKernel keeps build.keepalive)


@pytest.mark.parametrize("shape, order, index", [
    ((10, 12), "F", (slice(None, None, 2),) * 2),
    ((10, 12), "C", (slice(None, None, 2),) * 2),
    ((4, 5, 6), "F", (slice(None, None, 2),) * 3),
    ((4, 5, 6), "C", (slice(None), slice(None, None, 2), slice(None))),
    ((10, 12), "C", (slice(None, None, 2), slice(None, None, 3))),
])
def test_like_strides_of_a_view_follow_numpy_order_k(shape, order, index):
    from cudalite.cuda._memory.api import _strides_like

    view = np.zeros(shape, order=order)[index]
    assert _strides_like(view) == np.zeros_like(view).strides
    assert _strides_like(np.zeros(shape, order=order)) is None  # contiguous: its order is used
