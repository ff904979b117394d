"""GPU-less tests of numba's ``IpcHandle`` opening paths (``cudalite.cuda._memory.ipc``):
``open_array``, ``open_direct``, ``open_staged`` and ``open``'s choice between them,
and the pickled form.  The context is a stand-in; the driver's IPC and copy calls are
replaced by recorders, and "device memory" is a NumPy buffer read with memmove."""

import ctypes
import pickle
import types

import numpy as np
import pytest

import cudalite.driver as drv
from cudalite import cuda
from cudalite.cuda._memory import ipc as I
from cudalite.cuda import MemoryPointer

IDENT = [{"pci_domain_id": 0, "pci_bus_id": b, "pci_device_id": 0} for b in (3, 4)]


class FakeContext:
    """A context of device ``dev`` whose IPC mappings are ``memory``'s buffer."""

    def __init__(self, dev, memory, log, peers=()):
        self.device = types.SimpleNamespace(id=dev, get_device_identity=lambda: IDENT[dev])
        self.memory, self.log, self.peers = memory, log, peers

    def open_ipc_handle(self, handle, size):
        self.log.append(("open", bytes(handle), size))
        return MemoryPointer(self, self.memory.ctypes.data, size, finalizer=lambda: self.log.append(("close",)))

    def memalloc(self, size):
        self.log.append(("memalloc", size))
        return MemoryPointer(self, 0xD000, size)

    def can_access_peer(self, dev):
        return dev in self.peers


@pytest.fixture
def fakes(monkeypatch):
    log = []
    monkeypatch.setattr(I, "list_devices", lambda: [types.SimpleNamespace(id=i, get_device_identity=(
        lambda i=i: IDENT[i])) for i in (0, 1)])
    monkeypatch.setattr(I, "gpus", {0: _Current(log, 0), 1: _Current(log, 1)})
    monkeypatch.setattr(drv, "ipc_open_handle", lambda h: log.append(("drv_open", bytes(h))) or 0xA000)
    monkeypatch.setattr(drv, "ipc_close_handle", lambda p: log.append(("drv_close", p)))
    monkeypatch.setattr(drv, "copy_peer", lambda *a: log.append(("copy_peer", *a)))
    monkeypatch.setattr(drv, "copy_device_to_host",
                        lambda dst, ptr, n, stream=None: ctypes.memmove(dst.ctypes.data, ptr, n))
    return log


class _Current:
    """``with gpus[i]:`` recorded."""

    def __init__(self, log, dev):
        self.log, self.dev = log, dev

    def __enter__(self):
        self.log.append(("enter", self.dev))

    def __exit__(self, *exc):
        self.log.append(("exit", self.dev))


def test_pickled_form_drops_base_and_keeps_the_handle():
    h = cuda.IpcHandle(object(), bytes(range(64)), 80, IDENT[0], offset=16)
    r = pickle.loads(pickle.dumps(h))
    assert r.base is None and r.size == 80 and r.offset == 16 and r.source_info == IDENT[0]
    assert r.handle.reserved == h.handle.reserved == bytes(range(64))


def test_open_array_views_the_memory_at_the_offset(fakes):
    mem = np.arange(20, dtype=np.int64)
    h = pickle.loads(pickle.dumps(cuda.IpcHandle(object(), bytes(64), 10 * 8, IDENT[0], offset=5 * 8)))
    ctx = FakeContext(0, mem, fakes)
    arr = h.open_array(ctx, shape=10, dtype=np.int64)
    assert isinstance(arr, cuda.DeviceNDArray) and arr.shape == (10,) and arr.strides == (8,)
    np.testing.assert_array_equal(arr.copy_to_host(), mem[5:15])
    assert fakes == [("open", bytes(64), 15 * 8)]  # direct: the context's device exported it
    with pytest.raises(ValueError, match="IpcHandle is already opened"):
        h.open_array(ctx, shape=10, dtype=np.int64)
    h.close()
    assert fakes[-1] == ("close",)
    arr2 = h.open_array(ctx, (5, 2), np.dtype(np.int64), strides=(8, 40))  # numba's strides argument
    np.testing.assert_array_equal(arr2.copy_to_host(), mem[5:15].reshape(2, 5).T)


def test_open_array_refuses_an_array_larger_than_the_handle(fakes):
    h = cuda.IpcHandle(None, bytes(64), 32, IDENT[0])
    with pytest.raises(ValueError, match=r"spans bytes \[0, 40\), outside the 32 bytes of the IPC handle"):
        h.open_array(FakeContext(0, np.zeros(8), fakes), shape=5, dtype=np.float64)
    assert fakes == []  # nothing was mapped


def test_open_staged_copies_from_the_exporting_device(fakes):
    h = cuda.IpcHandle(None, bytes(range(64)), 48, IDENT[1], offset=8)
    ctx = FakeContext(0, np.zeros(1), fakes)
    mem = h.open_staged(ctx)
    assert isinstance(mem, MemoryPointer) and mem.ptr == 0xD000 and mem.size == 48
    assert fakes == [("memalloc", 48), ("enter", 1), ("drv_open", bytes(range(64))),
                     ("copy_peer", 0xD000, 0, 0xA000 + 8, 1, 48), ("drv_close", 0xA000), ("exit", 1)]
    with pytest.raises(ValueError, match="IpcHandle is already opened"):
        h.open_staged(ctx)
    h.close()
    with pytest.raises(ValueError, match="IpcHandle not opened"):
        h.close()


def test_open_chooses_direct_for_a_peer_and_staged_otherwise(fakes):
    h = cuda.IpcHandle(None, bytes(64), 8, IDENT[1])
    h.open(FakeContext(0, np.zeros(1), fakes, peers=(1,)))
    assert fakes[0][0] == "open"
    h.close()
    fakes.clear()
    h.open(FakeContext(0, np.zeros(1), fakes))
    assert [e[0] for e in fakes] == ["memalloc", "enter", "drv_open", "copy_peer", "drv_close", "exit"]
    h.close()
    fakes.clear()
    cuda.IpcHandle(None, bytes(64), 8).open(FakeContext(0, np.zeros(1), fakes))  # no identity: direct
    assert fakes[0][0] == "open"


def test_staged_needs_a_source_device(fakes):
    with pytest.raises(RuntimeError, match="doesn't have source info"):
        cuda.IpcHandle(None, bytes(64), 8).open_staged(FakeContext(0, np.zeros(1), fakes))
    unknown = {"pci_domain_id": 9, "pci_bus_id": 9, "pci_device_id": 9}
    with pytest.raises(RuntimeError, match="exported from the device .* which this process cannot see"):
        cuda.IpcHandle(None, bytes(64), 8, unknown).open_staged(FakeContext(0, np.zeros(1), fakes))
    with pytest.raises(ValueError, match="from original process"):
        cuda.IpcHandle(object(), bytes(64), 8, IDENT[0]).open_staged(FakeContext(0, np.zeros(1), fakes))


def test_get_ipc_handle_of_a_foreign_array_exports_its_bytes(monkeypatch):
    """``ctx.get_ipc_handle(cuda.as_cuda_array(obj).gpu_data)``: the gpu_data is the
    foreign object; its CUDA array interface gives the exported bytes (numba's test_ipc
    with a ForeignArray); anything else is a TypeError naming what it takes."""
    from cudalite.cuda import GetIpcHandleMixin

    monkeypatch.setattr(drv, "address_range", lambda ptr: (0x10000, 4096))
    monkeypatch.setattr(drv, "ipc_get_handle", lambda base: bytes(64))

    class Foreign:
        __cuda_array_interface__ = {"shape": (5,), "strides": None, "typestr": "<i8", "data": (0x10018, False),
                                    "version": 3}

    mgr = GetIpcHandleMixin()
    mgr.context = None
    h = mgr.get_ipc_handle(Foreign())
    assert (h.size, h.offset) == (40, 0x18)
    with pytest.raises(TypeError, match=r"get_ipc_handle\(\) takes device memory .* not object"):
        mgr.get_ipc_handle(object())
