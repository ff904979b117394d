"""``StreamOrderedMemoryManager`` GPU-less, with a fake driver layer: which allocator it
asks, on which stream, the pool's release threshold, and its refusals."""

from __future__ import annotations

import importlib
from types import SimpleNamespace

import pytest

from cudalite import cuda

pool_mod = importlib.import_module("cudalite.cuda._memory.pool")


class FakeDevice:
    def __init__(self, pools):
        self.id, self.pools, self.thresholds = 0, pools, []

    def attribute(self, name):
        assert name == "MEMORY_POOLS_SUPPORTED"
        return self.pools

    def set_mempool_release_threshold(self, nbytes):
        self.thresholds.append(nbytes)


def _fake_driver(monkeypatch, pools):
    device, allocs = FakeDevice(pools), []

    def alloc(size, stream=None):
        allocs.append((size, stream))
        return SimpleNamespace(ptr=0x7F0000000000 + 256 * len(allocs), free=lambda: None)

    fake = SimpleNamespace(get_device=lambda i: device, current_device=lambda: device, alloc=alloc,
                           memory_info=lambda: (10, 20))
    monkeypatch.setattr(pool_mod, "_drv", fake)
    return device, allocs


def test_pooled_device_allocates_on_the_legacy_stream_and_keeps_freed_memory(monkeypatch):
    device, allocs = _fake_driver(monkeypatch, pools=1)
    mm = cuda.StreamOrderedMemoryManager(context=SimpleNamespace(device=SimpleNamespace(id=0)))
    mm.initialize()
    assert device.thresholds == [(1 << 64) - 1]
    mem = mm.memalloc(4096)
    assert allocs == [(4096, 0)]  # stream 0: the legacy default stream
    assert int(mem.device_pointer) == 0x7F0000000100 and mem.size == 4096
    assert mm.get_memory_info() == (10, 20) and mm.interface_version == 1


def test_device_without_pools_uses_cumemalloc(monkeypatch):
    device, allocs = _fake_driver(monkeypatch, pools=0)
    mm = cuda.StreamOrderedMemoryManager(context=None)
    mm.initialize()
    mm.memalloc(100)
    assert device.thresholds == [] and allocs == [(100, None)]


def test_ipc_handles_are_refused_with_the_reason(monkeypatch):
    _fake_driver(monkeypatch, pools=1)
    mm = cuda.StreamOrderedMemoryManager(context=None)
    with pytest.raises(NotImplementedError, match="stream-ordered pool.*no CUDA IPC handle"):
        mm.get_ipc_handle(None)


def test_it_is_a_host_only_plugin_with_numbas_interface():
    assert issubclass(cuda.StreamOrderedMemoryManager, cuda.HostOnlyCUDAMemoryManager)
    with pytest.raises(RuntimeError, match="requires a context"):
        cuda.StreamOrderedMemoryManager()
