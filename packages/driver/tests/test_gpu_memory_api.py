"""GPU tests (``@pytest.mark.gpu``) of managed memory, host registration, mapped
device pointers, pointer attributes and context synchronization, with the
hand-written ``add_one`` kernel (``float32 *p, int n``: ``p[i] += 1``)."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import cudalite.driver as drv
from cudalite.driver import CudaDriverError

pytestmark = pytest.mark.gpu
N = 4096


@pytest.fixture
def add_one(module):
    fn = module.get_function("add_one")

    def run(ptr, n=N, stream=None):
        drv.launch(fn, (n + 255) // 256, 256, [(ptr, "Q"), (n, "i")], stream=stream)

    return run


def test_managed_memory_from_host_and_device(add_one):
    m = drv.alloc_managed(4 * N)
    assert isinstance(m, drv.ManagedMemory) and isinstance(m, drv.DeviceMemory)
    assert m.ptr and m.size == 4 * N and m.attach_global and m.device_id == drv.current_device().id
    host = m.as_array(np.float32)
    host[:] = np.arange(N)  # written by the host
    add_one(m.ptr)  # updated by the device
    drv.synchronize()
    np.testing.assert_array_equal(host, np.arange(N) + 1)
    out = np.empty(N, np.float32)
    drv.copy_device_to_host(out, m)  # also an ordinary device allocation
    np.testing.assert_array_equal(out, host)
    assert np.asarray(m).shape == (4 * N,)
    fin = m._finalizer
    del m, host
    gc.collect()
    assert not fin.alive  # cuMemFree when the last view died
    empty = drv.alloc_managed(0)
    assert empty.ptr and empty.size == 0 and np.asarray(empty).shape == (0,)
    h = drv.alloc_managed(16, attach_global=False)
    h.as_array(np.int32)[:] = 5
    assert h.as_array(np.int32).sum() == 20 and not h.attach_global
    h.free()
    assert h.freed
    with pytest.raises(ValueError, match="freed"):
        np.asarray(h)


def test_register_host_round_trip():
    a = np.arange(1 << 16, dtype=np.float32)
    d = drv.alloc(a.nbytes)
    s = drv.Stream()
    with drv.register_host(a) as reg:
        assert reg.registered and not reg.mapped and reg.device_ptr is None
        assert reg.ptr == a.ctypes.data and reg.size == a.nbytes and reg.device_id == drv.current_device().id
        attrs = drv.pointer_attributes(a)
        assert attrs.memory_type == "host" and attrs.device_ordinal == reg.device_id and not attrs.is_managed
        drv.copy_host_to_device(d, a, stream=s)  # a true async copy from page-locked memory
        s.synchronize()
        with pytest.raises(CudaDriverError) as info:
            drv.register_host(a)
        assert info.value.name == "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED" and info.value.call == "cuMemHostRegister"
    assert not reg.registered
    reg.unregister()  # idempotent
    out = np.empty_like(a)
    drv.copy_device_to_host(out, d)
    np.testing.assert_array_equal(out, a)
    # a registration that dies is undone: the memory can be registered again
    again = drv.register_host(a.ctypes.data, a.nbytes)
    del again
    gc.collect()
    drv.register_host(a).unregister()


def test_mapped_memory_device_pointers(add_one):
    h = drv.alloc_host(4 * N, mapped=True)
    arr = h.as_array(np.float32)
    arr[:] = np.arange(N)
    dptr = drv.host_device_pointer(h)
    assert dptr and drv.host_device_pointer(h.ptr + 64) == dptr + 64
    add_one(dptr)  # the device writes the host memory directly
    drv.synchronize()
    np.testing.assert_array_equal(arr, np.arange(N) + 1)
    attrs = drv.pointer_attributes(h)
    assert attrs.memory_type == "host" and attrs.device_pointer == dptr and attrs.host_pointer == h.ptr
    assert not attrs.is_managed and attrs.range_start in (h.ptr, dptr) and attrs.range_size >= 4 * N

    a = np.zeros(N, np.float32)
    with drv.register_host(a, mapped=True) as reg:
        assert reg.mapped and reg.device_ptr
        assert drv.host_device_pointer(reg) == drv.host_device_pointer(a) == reg.device_ptr
        add_one(reg.device_ptr)
        add_one(reg.device_ptr)
        drv.synchronize()
    assert (a == 2).all()

    with pytest.raises(CudaDriverError) as info:
        drv.host_device_pointer(np.zeros(N, np.float32))  # pageable: not mapped
    assert info.value.name == "CUDA_ERROR_INVALID_VALUE" and info.value.call == "cuMemHostGetDevicePointer"


def test_pointer_attributes_of_device_managed_and_unknown():
    dev = drv.current_device().id
    d = drv.alloc(1024)
    at = drv.pointer_attributes(d.ptr + 16)
    assert at.known and at.memory_type == "device" and not at.is_managed and at.device_ordinal == dev
    assert at.device_pointer == d.ptr + 16 and at.host_pointer is None
    assert at.range_start == d.ptr and at.range_size >= 1024
    assert drv.pointer_attributes(d) == drv.pointer_attributes(d.ptr)
    m = drv.alloc_managed(256)
    am = drv.pointer_attributes(m)
    assert am.is_managed and am.memory_type == "device" and am.device_ordinal == dev and am.device_pointer == m.ptr
    unknown = drv.pointer_attributes(0x10)  # the null page: no CUDA memory there
    assert not unknown.known and unknown == drv.PointerAttributes(None)


def test_context_synchronize_waits_for_every_stream(add_one):
    d = drv.alloc(4 * N)
    drv.memset(d, 0)
    streams = [drv.Stream(), drv.Stream(nonblocking=False)]
    for s in streams:
        for _ in range(5):
            add_one(d.ptr, stream=s)
        drv.synchronize()  # cuCtxSynchronize: no stream sync needed before the next
    assert all(s.query() for s in streams)
    add_one(d.ptr, stream=streams[0])
    drv.get_device(drv.current_device().id).synchronize()
    assert streams[0].query()
    out = np.empty(N, np.float32)
    drv.copy_device_to_host(out, d)
    assert (out == 11).all()
