"""GPU-less tests of device-to-host copies of views with negative strides.

``copy_to_host`` of such a view raises NotImplementedError with numba-cuda's message;
copies between device arrays (``out[:] = view``, ``out.copy_to_device(view)``) still
take them.  "Device memory" here is a NumPy buffer: the driver's two copy functions
are replaced by ``memmove`` over host addresses."""

import ctypes

import numpy as np
import pytest

import cudalite.driver as drv
from cudalite.cuda.devicearray import DeviceNDArray


@pytest.fixture
def host_backed(monkeypatch):
    """Device copies as memmove: a DeviceNDArray over a NumPy buffer's address reads and
    writes that buffer."""

    def d2h(dst, ptr, nbytes, stream=None):
        ctypes.memmove(dst.ctypes.data, ptr, nbytes)

    def h2d(ptr, src, nbytes, stream=None):
        src = np.ascontiguousarray(src)
        ctypes.memmove(ptr, src.ctypes.data, nbytes)

    monkeypatch.setattr(drv, "copy_device_to_host", d2h)
    monkeypatch.setattr(drv, "copy_host_to_device", h2d)


def _over(host):
    """A device array whose "device memory" is ``host``'s buffer."""
    return DeviceNDArray(host.shape, host.strides, host.dtype, ptr=host.ctypes.data, owner=host)


@pytest.mark.parametrize("index", [np.s_[::-1], np.s_[::-2], np.s_[7:2:-1]])
def test_copy_to_host_of_negative_strides_raises_numbas_error(host_backed, index):
    mem = np.arange(10, dtype=np.float64)
    view = _over(mem)[index]
    assert view.strides[0] < 0
    with pytest.raises(NotImplementedError) as info:
        view.copy_to_host()
    assert str(info.value).startswith(f"D->H copy not implemented for negative strides: {view.strides}")
    with pytest.raises(NotImplementedError, match="negative strides"):
        view.copy_to_host(np.empty(view.shape))


def test_negative_stride_in_any_dimension_raises(host_backed):
    mem = np.arange(12, dtype=np.int32).reshape(3, 4)
    with pytest.raises(NotImplementedError, match=r"negative strides: \(16, -4\)"):
        _over(mem)[:, ::-1].copy_to_host()


def test_positive_strides_still_copy(host_backed):
    mem = np.arange(12, dtype=np.int32).reshape(3, 4)
    np.testing.assert_array_equal(_over(mem)[:, ::2].copy_to_host(), mem[:, ::2])
    np.testing.assert_array_equal(_over(mem).copy_to_host(), mem)


def test_device_copies_take_negative_strides(host_backed):
    src = np.arange(10, dtype=np.float64)
    rev = _over(src)[::-1]
    dst = np.zeros(10)
    out = _over(dst)
    out[:] = rev
    np.testing.assert_array_equal(dst, src[::-1])
    dst[:] = 0
    out.copy_to_device(rev)
    np.testing.assert_array_equal(dst, src[::-1])
    np.testing.assert_array_equal(out.copy_to_host(), src[::-1])
