"""GPU-less tests of the device-memory pool (:mod:`cudalite.driver.pool`) with the driver
calls recorded: rounding, a freed block reused only after a flush (a device
synchronization), flush triggers, captures and ``defer_cleanup`` holding flushes, the
cache cap, out-of-memory recovery, a failed synchronization, and threads."""

from __future__ import annotations

import gc
import threading
import types

import pytest

from cudalite.driver import CudaDriverError, DeviceMemory, driver_api, pool as P


class DevPtr:
    """What cuda.bindings' cuMemAlloc returns: an object with ``__int__``, not an int."""

    def __init__(self, value):
        self.value = value

    def __int__(self):
        return self.value


class Calls:
    """Recording stand-ins for the driver entry points the pool calls."""

    def __init__(self, monkeypatch, oom=0, sync_error=False):
        self.log, self.next, self.oom, self.sync_error = [], 0x10000, oom, sync_error
        for name in ("cuMemAlloc", "cuMemFree", "cuCtxSynchronize"):
            monkeypatch.setattr(driver_api, name, getattr(self, name), raising=False)

    def cuMemAlloc(self, size):
        if self.oom:
            self.oom -= 1
            raise CudaDriverError(2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory", "cuMemAlloc")
        self.next += 0x10000
        self.log.append(("alloc", size))
        return DevPtr(self.next)

    def cuMemFree(self, ptr):
        self.log.append(("free", ptr))

    def cuCtxSynchronize(self):
        if self.sync_error:
            raise CudaDriverError(700, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access", "cuCtxSynchronize")
        self.log.append(("sync",))

    def count(self, what):
        return sum(1 for entry in self.log if entry[0] == what)


class _Pool(P.DevicePool):
    def alloc(self, nbytes):
        """What ``cudalite.driver.alloc(nbytes, pool=True)`` makes of a block."""
        ptr, block = self.take(nbytes)
        return DeviceMemory._pooled(ptr, nbytes, self.device_id, self.give_back, block)


def _pool():
    driver = types.SimpleNamespace(captures=0, push=lambda i: None, pop=lambda: None)
    return _Pool(0, driver), driver


def test_sizes_round_to_512_and_a_freed_block_waits_for_a_flush(monkeypatch):
    calls = Calls(monkeypatch)
    pool, _ = _pool()
    a = pool.alloc(100)
    assert a.size == 100 and calls.log == [("alloc", 512)] and pool.outstanding == 1
    assert type(a.ptr) is int and int(a) == a.ptr
    ptr = a.ptr
    del a
    gc.collect()
    assert pool.pending == 1 and pool.pending_bytes == 512 and pool.outstanding == 0
    b = pool.alloc(500)  # same size class, but not reused: no synchronization since the free
    assert b.ptr != ptr and calls.count("alloc") == 2
    assert pool.flush() and calls.count("sync") == 1 and pool.cached_bytes == 512 and pool.pending == 0
    c = pool.alloc(512)
    assert c.ptr == ptr and calls.count("alloc") == 2  # reused, no driver call
    c.free()
    c.free()  # idempotent: the block is pending once
    assert pool.pending == 1


def test_enough_pending_blocks_make_the_next_allocation_flush(monkeypatch):
    calls = Calls(monkeypatch)
    monkeypatch.setattr(P, "PENDING_BLOCKS", 4)
    pool, _ = _pool()
    blocks = [pool.alloc(1000) for _ in range(4)]
    ptrs = {b.ptr for b in blocks}
    del blocks
    gc.collect()
    assert pool.pending == 4 and calls.count("sync") == 0
    again = [pool.alloc(1000) for _ in range(4)]
    assert calls.count("sync") == 1 and {b.ptr for b in again} == ptrs and calls.count("alloc") == 4


def test_pending_bytes_also_trigger_a_flush(monkeypatch):
    calls = Calls(monkeypatch)
    monkeypatch.setattr(P, "PENDING_BYTES", 4096)
    pool, _ = _pool()
    big = pool.alloc(4096)
    big.free()
    pool.alloc(1)
    assert calls.count("sync") == 1 and pool.cached_bytes == 4096


def test_no_flush_while_capturing_or_deferred(monkeypatch):
    calls = Calls(monkeypatch)
    pool, driver = _pool()
    pool.alloc(10).free()
    driver.captures = 1
    assert not pool.flush() and pool.pending == 1
    driver.captures = 0
    pool.deferred = 1
    assert not pool.flush() and pool.pending == 1
    pool.deferred = 0
    assert pool.flush() and calls.count("sync") == 1


def test_blocks_beyond_the_cache_cap_go_back_to_the_driver(monkeypatch):
    calls = Calls(monkeypatch)
    monkeypatch.setattr(P, "CACHE_BYTES", 1024)
    pool, _ = _pool()
    blocks = [pool.alloc(512) for _ in range(3)]
    last = blocks[-1].ptr
    for b in blocks:
        b.free()
    pool.flush()
    assert pool.cached_bytes == 1024 and calls.log[-1] == ("free", last)
    assert pool.release() == 1024 and calls.count("free") == 3 and pool.cached_bytes == 0


def test_out_of_memory_flushes_releases_and_retries(monkeypatch):
    calls = Calls(monkeypatch)
    pool, _ = _pool()
    old = pool.alloc(2048)
    old_ptr = old.ptr
    old.free()
    pool.flush()
    calls.oom = 1
    fresh = pool.alloc(4096)  # another size: the cached 2 KiB block goes back, then the retry
    assert fresh.size == 4096 and ("free", old_ptr) in calls.log and pool.cached_bytes == 0
    calls.oom = 2
    with pytest.raises(CudaDriverError, match="out of memory"):
        pool.alloc(8192)


def test_a_failed_synchronization_raises_and_keeps_the_blocks_pending(monkeypatch):
    calls = Calls(monkeypatch, sync_error=True)
    pool, _ = _pool()
    pool.alloc(10).free()
    with pytest.raises(CudaDriverError, match="illegal memory access"):
        pool.flush()
    assert pool.pending == 1 and pool.cached_bytes == 0  # never reused after an unconfirmed sync
    calls.sync_error = False
    assert pool.flush() and pool.cached_bytes == 512


def test_threads_never_share_a_live_block(monkeypatch):
    Calls(monkeypatch)
    monkeypatch.setattr(P, "PENDING_BLOCKS", 8)
    pool, _ = _pool()
    live, lock, errors = set(), threading.Lock(), []

    def work():
        for i in range(300):
            m = pool.alloc(64 * (1 + i % 3))
            with lock:
                if m.ptr in live:
                    errors.append(m.ptr)
                live.add(m.ptr)
            with lock:
                live.discard(m.ptr)
            m.free()

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and pool.outstanding == 0


def test_memory_pool_is_the_drivers_per_device(monkeypatch):
    from cudalite.driver import _state

    fake = types.SimpleNamespace(current=lambda: 3, _pools={}, _lock=threading.Lock(), captures=0)
    monkeypatch.setattr(_state, "get_driver", lambda: fake)
    monkeypatch.setattr(_state, "peek_driver", lambda: None)
    assert P.memory_pool(create=False) is None  # no driver yet: nothing made
    monkeypatch.setattr(_state, "peek_driver", lambda: fake)
    assert P.memory_pool(1, create=False) is None  # no pool yet
    first = P.memory_pool()
    assert first.device_id == 3 and P.memory_pool(3) is first and P.memory_pool(3, create=False) is first
    assert P.memory_pool(1).device_id == 1 and set(fake._pools) == {1, 3}


def test_alloc_pools_small_blocks_only_and_can_be_turned_off(monkeypatch):
    from cudalite.driver import alloc, memory as M

    calls = Calls(monkeypatch)
    fake = types.SimpleNamespace(captures=0, push=lambda i: None, pop=lambda: None, current=lambda: 0,
                                 current_id=lambda: 0, config=types.SimpleNamespace(memory_pool=True), _pools={},
                                 _lock=threading.Lock())
    from cudalite.driver import _state

    monkeypatch.setattr(M, "get_driver", lambda: fake)
    monkeypatch.setattr(_state, "get_driver", lambda: fake)
    small = alloc(1000, pool=True)
    assert small._give and fake._pools[0].outstanding == 1 and calls.log == [("alloc", 1024)]
    big = alloc(P.MAX_BLOCK + 1, pool=True)
    assert big._give is None and big._finalizer is not None  # a plain cuMemAlloc, freed when it dies
    plain = alloc(1000)
    assert plain._give is None
    fake.config.memory_pool = False  # CUDALITE_MEMORY_POOL=0
    assert alloc(1000, pool=True)._give is None and fake._pools[0].outstanding == 1


def test_new_blocks_are_allocated_in_the_devices_context(monkeypatch):
    calls = Calls(monkeypatch)
    stack = []
    driver = types.SimpleNamespace(captures=0, push=lambda i: stack.append(i) or calls.log.append(("push", i)),
                                   pop=lambda: calls.log.append(("pop", stack.pop())))
    pool = _Pool(2, driver)
    pool.alloc(10)
    assert calls.log == [("push", 2), ("alloc", 512), ("pop", 2)] and stack == []
    calls.oom = 1
    pool.alloc(10)  # out of memory once: pushed and popped around each attempt
    assert stack == [] and calls.log[-2:] == [("alloc", 512), ("pop", 2)]
    calls.oom = 2
    with pytest.raises(CudaDriverError):
        pool.alloc(10)
    assert stack == []  # balanced on the error path too


def test_alloc_pooled_takes_a_cached_block_as_alloc_would_and_defers_the_rest(monkeypatch):
    """``alloc_pooled``: None before the driver exists, before the thread's device is known,
    with no pool, with no cached block of the size, when a flush is due and with the pool
    off (``alloc`` then does it); otherwise the cached block ``take`` would hand out, with
    the same accounting, given back by its death."""
    from cudalite.driver import _state, alloc, alloc_pooled, memory as M

    calls = Calls(monkeypatch)
    tls = threading.local()
    fake = types.SimpleNamespace(captures=0, push=lambda i: None, pop=lambda: None, current=lambda: 0,
                                 current_id=lambda: 0, config=types.SimpleNamespace(memory_pool=True), _pools={},
                                 _lock=threading.Lock(), _tls=tls)
    monkeypatch.setattr(_state, "_DRIVER", None)
    assert alloc_pooled(1000) is None  # no driver yet
    monkeypatch.setattr(_state, "_DRIVER", fake)
    assert alloc_pooled(1000) is None  # this thread's device not known yet
    tls.device = 0
    assert alloc_pooled(1000) is None  # no pool yet
    monkeypatch.setattr(M, "get_driver", lambda: fake)
    monkeypatch.setattr(_state, "get_driver", lambda: fake)
    first = alloc(1000, pool=True)  # a new block through alloc
    ptr = first.ptr
    assert alloc_pooled(1000) is None  # nothing cached yet
    del first
    pool = fake._pools[0]
    assert pool.pending == 1 and alloc_pooled(1000) is None  # pending, not reusable before a flush
    assert pool.flush() and pool.cached_bytes == 1024
    got = alloc_pooled(1000)
    assert (got.ptr, got.size, got.device_id, got.stream) == (ptr, 1000, 0, None) and got._give
    assert pool.outstanding == 1 and pool.cached_bytes == 0 and calls.count("alloc") == 1
    assert alloc_pooled(1000) is None  # the only cached block is out
    del got
    assert pool.pending == 1 and pool.outstanding == 0
    assert pool.flush() and alloc_pooled(0) is None and alloc_pooled(P.MAX_BLOCK + 1) is None
    fake.config.memory_pool = False
    assert alloc_pooled(1000) is None
    fake.config.memory_pool = True
    monkeypatch.setattr(P, "PENDING_BLOCKS", 0)
    from cudalite.driver import pooled

    monkeypatch.setattr(pooled, "PENDING_BLOCKS", 0)  # a flush is due: alloc's business
    assert alloc_pooled(1000) is None and pool.cached_bytes == 1024
