"""GPU-less: the runtime's managed, mapped and pinned memory, ``synchronize`` and the
DLPack device of an array reach the CUDA driver only through the public API of
:mod:`cudalite.driver`.  Here that API is replaced by fakes over ordinary host memory
(a fake "device address" is the host address plus ``DEV``), so the runtime's address
arithmetic and its register/unregister pairing are checked without a GPU."""

from __future__ import annotations

import numpy as np
import pytest

import cudalite.driver as drv
from cudalite import cuda
from cudalite.cuda import devicearray

DEV = 0x4000_0000_0000


class FakeMemory:
    """Host bytes standing in for pinned or managed memory."""

    def __init__(self, nbytes):
        self.buf = np.zeros(max(nbytes, 1), np.uint8)
        self.ptr = self.buf.ctypes.data
        self.size = nbytes
        self.device_id = 0


class FakeRegistration:
    def __init__(self, log, ptr, nbytes, mapped, fail=False):
        self.log, self.ptr, self.size, self.fail = log, ptr, nbytes, fail
        self.device_ptr = ptr + DEV if mapped else None

    def unregister(self):
        self.log.append(("unregister", self.ptr))
        if self.fail:
            raise drv.CudaDriverError(1, "CUDA_ERROR_INVALID_VALUE", "fake", "cuMemHostUnregister")


class CallLog(list):
    """The driver calls made, in order; ``fail``: addresses whose unregistration fails."""

    def __init__(self):
        super().__init__()
        self.fail = {}


@pytest.fixture
def fake_driver(monkeypatch):
    log = CallLog()

    def alloc_managed(nbytes, *, attach_global=True):
        log.append(("alloc_managed", nbytes, attach_global))
        return FakeMemory(nbytes)

    def alloc_host(nbytes, *, portable=False, mapped=False, write_combined=False):
        log.append(("alloc_host", nbytes, portable, mapped, write_combined))
        return FakeMemory(nbytes)

    def host_device_pointer(mem):
        log.append(("host_device_pointer", mem.ptr))
        return mem.ptr + DEV

    def register_host(ptr, nbytes, *, portable=False, mapped=False):
        log.append(("register_host", ptr, nbytes, portable, mapped))
        return FakeRegistration(log, ptr, nbytes, mapped, fail=log.fail.get(ptr, False))

    for name, fake in [("alloc_managed", alloc_managed), ("alloc_host", alloc_host),
                       ("host_device_pointer", host_device_pointer), ("register_host", register_host),
                       ("synchronize", lambda: log.append(("synchronize",)))]:
        monkeypatch.setattr(drv, name, fake)
    return log


def test_no_private_driver_access_left():
    from cudalite.cuda._runtime import api as _runtime

    assert not hasattr(_runtime, "cu_call") and "cu_call" not in _runtime.__all__


def test_synchronize_is_the_drivers(fake_driver):
    cuda.synchronize()
    assert fake_driver == [("synchronize",)]


def test_managed_array(fake_driver):
    a = cuda.managed_array((3, 4), np.float32)
    assert fake_driver == [("alloc_managed", 48, True)]
    a[...] = np.arange(12).reshape(3, 4)
    host = a.__array_interface__["data"][0]
    assert a.__cuda_array_interface__["data"][0] == host  # one address for host and device
    assert devicearray.is_device_array(a) and a._kernel_params[0] == host
    np.testing.assert_array_equal(np.asarray(a[1:, ::2]), [[4, 6], [8, 10]])
    assert a[1:]._ptr == host + 16
    cuda.managed_array(8, np.int32, attach_global=False)
    assert fake_driver[-1] == ("alloc_managed", 32, False)
    cuda.managed_array(0, np.int32)
    assert fake_driver[-1] == ("alloc_managed", 0, True)


def test_mapped_array(fake_driver):
    a = cuda.mapped_array((4, 5), np.float64, portable=True, wc=True)
    host = a.__array_interface__["data"][0]
    assert fake_driver == [("alloc_host", 160, True, True, True), ("host_device_pointer", host)]
    a[...] = 1.5
    assert a.__cuda_array_interface__["data"][0] == host + DEV
    assert a[2:, 1:]._ptr == host + DEV + 2 * 40 + 8
    assert a._kernel_params[0] == host + DEV


def test_pinned_registers_and_unregisters(fake_driver):
    h1, h2, empty = np.arange(10, dtype=np.float32), np.zeros((4, 4)), np.zeros(0)
    with pytest.raises(KeyError):
        with cuda.pinned(h1, h2[:, ::2], empty):
            assert [e[0] for e in fake_driver] == ["register_host", "register_host"]  # nothing for 0 bytes
            raise KeyError("inside")  # unregistered all the same
    p1, p2 = h1.ctypes.data, h2.ctypes.data
    assert fake_driver == [("register_host", p1, 40, False, False), ("register_host", p2, 8 * 15, False, False),
                           ("unregister", p1), ("unregister", p2)]


def test_mapped_yields_device_views(fake_driver):
    h = np.arange(12, dtype=np.int32).reshape(3, 4)
    rev = h[::-1]  # negative strides: the span starts at the last row
    with cuda.mapped(h, rev, portable=True) as (dh, drev):
        assert dh.__cuda_array_interface__["data"][0] == h.ctypes.data + DEV
        assert drev._ptr == rev.__array_interface__["data"][0] + DEV
        assert drev.shape == (3, 4) and drev.strides == (-16, 4)
    assert fake_driver == [("register_host", h.ctypes.data, 48, True, True),
                           ("register_host", h.ctypes.data, 48, True, True),
                           ("unregister", h.ctypes.data), ("unregister", h.ctypes.data)]
    with cuda.mapped(np.zeros(3)) as one:
        assert isinstance(one, cuda.DeviceNDArray)


def test_unregister_errors_after_undoing_everything(fake_driver):
    a, b = np.zeros(4), np.zeros(4)
    fake_driver.fail[a.ctypes.data] = True
    with pytest.raises(drv.CudaDriverError, match="cuMemHostUnregister"):
        with cuda.pinned(a, b):
            pass
    assert fake_driver[-2:] == [("unregister", a.ctypes.data), ("unregister", b.ctypes.data)]


def test_dlpack_device_from_pointer_attributes(monkeypatch):
    seen = []

    def pointer_attributes(ptr):
        seen.append(ptr)
        return drv.PointerAttributes("device", device_ordinal=3) if ptr == 0x1000 else drv.PointerAttributes(None)

    monkeypatch.setattr(drv, "pointer_attributes", pointer_attributes)
    owner = object()  # a foreign exporter: no device_id of its own
    d = cuda.DeviceNDArray((4,), None, np.float32, ptr=0x1000, owner=owner)
    assert d.__dlpack_device__() == (2, 3) and seen == [0x1000]
    unknown = cuda.DeviceNDArray((4,), None, np.float32, ptr=0x2000, owner=owner)
    with pytest.raises(BufferError, match="does not know the address 0x2000"):
        unknown.__dlpack_device__()
