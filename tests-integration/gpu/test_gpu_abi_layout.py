"""One layout classifier on the GPU: a (1, 5) float32 view with strides (4, 4) -- the
stride of the size-1 extent is irrelevant, so it is C-contiguous (NumPy's rule) -- is
accepted by an eager ``void(float32[:, ::1])`` kernel whether it comes as a CUDA array
interface object, a DLPack-only exporter or a CuPy view, and the kernel sees the right
elements (checked against NumPy).  CAI and DLPack objects used to be keyed 'F' and
rejected with "No matching definition"."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import cuda

pytestmark = [pytest.mark.gpu,
              pytest.mark.nosim("foreign device arrays: CUDA array interface and DLPack need real device pointers")]

SHAPE, STRIDES = (1, 5), (4, 4)


class _CAIView:
    """Exposes ``nbytes`` of device memory at ``ptr`` as a (1, 5) array, strides (4, 4)."""

    def __init__(self, ptr, owner):
        self.owner = owner  # keeps the memory alive
        self.__cuda_array_interface__ = {"shape": SHAPE, "strides": STRIDES, "typestr": "<f4",
                                         "data": (ptr, False), "version": 3, "stream": None}


class _DLPackOnly:
    """Exports only DLPack (no ``__cuda_array_interface__``)."""

    def __init__(self, array):
        self.array = array

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__(stream=stream)


def _kernel():
    @cuda.jit("void(float32[:, ::1])")
    def bump(a):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            a[i, j] = a[i, j] * 2.0 + 100.0 * i + j

    return bump


def _expect(host):
    i, j = np.indices(SHAPE)
    return (host.reshape(SHAPE) * 2 + 100 * i + j).astype(np.float32)


def _device_view(d):
    ptr = d.device_ctypes_pointer.value
    return cuda.devicearray.DeviceNDArray(SHAPE, STRIDES, np.float32, ptr=ptr, owner=d.gpu_data)


@pytest.mark.parametrize("kind", ["cai", "dlpack", "device"])
def test_eager_C_kernel_takes_a_size_one_extent_with_any_stride(gpu, kind):
    host = np.arange(5, dtype=np.float32) + 1
    d = cuda.to_device(host)
    view = _device_view(d)
    assert view._layout == "C"
    arg = {"cai": lambda: _CAIView(d.device_ctypes_pointer.value, d),
           "dlpack": lambda: _DLPackOnly(view), "device": lambda: view}[kind]()
    bump = _kernel()
    bump[(1, 1), (8, 8)](arg)
    cuda.synchronize()
    np.testing.assert_array_equal(d.copy_to_host().reshape(SHAPE), _expect(host))
    assert len(bump.overloads) == 1


def test_eager_C_kernel_takes_a_cupy_view(gpu):
    cupy = pytest.importorskip("cupy")
    host = np.arange(5, dtype=np.float32) + 1
    base = cupy.asarray(host)
    view = cupy.lib.stride_tricks.as_strided(base, shape=SHAPE, strides=STRIDES)
    bump = _kernel()
    bump[(1, 1), (8, 8)](view)
    cuda.synchronize()
    cupy.cuda.get_current_stream().synchronize()
    np.testing.assert_array_equal(cupy.asnumpy(base).reshape(SHAPE), _expect(host))
