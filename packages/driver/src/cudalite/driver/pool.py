"""The device-memory pool: cached blocks with numba's deferred-deallocation safety.

A ``cuMemAlloc`` and a ``cuMemFree`` per array cost a new-output ufunc call most of its
time (the free may synchronize the device: numba-cuda defers its frees for that reason).
``cudalite.driver.alloc(n, pool=True)`` -- what cudalite.cuda's device arrays use when no
EMM plugin is in use -- takes the memory from the device's :class:`DevicePool` instead:

* allocations of at most :data:`MAX_BLOCK` (16 MiB) bytes are pooled -- a larger one
  is a plain ``cuMemAlloc`` freed with ``cuMemFree`` when it dies, so big arrays never
  wait in the pool, away from other libraries;
* an allocation (:meth:`DevicePool.take`) rounds its size up to 512 bytes and takes a
  cached block of that size, else ``cuMemAlloc``s one (on ``CUDA_ERROR_OUT_OF_MEMORY`` it
  flushes, gives every cached block back to the driver and tries once more);
* a block whose :class:`~cudalite.driver.DeviceMemory` dies (or is ``free()``-d) is not
  freed: it joins the *pending* list, with no driver call (finalizers run in any thread,
  at any time);
* once :data:`PENDING_BLOCKS` blocks or :data:`PENDING_BYTES` bytes are pending, the next
  allocation *flushes*: one ``cuCtxSynchronize`` of the device -- every piece of work
  queued before it, on any stream, by any library, has finished, so nothing can still
  use a pending block -- after which the pending blocks are cached for reuse (by any
  stream) and those beyond :data:`CACHE_BYTES` cached bytes go back to the driver with
  ``cuMemFree``.

That is numba's deallocation semantics -- deallocations queued and flushed in batches --
with a synchronization that makes reuse safe and the memory kept for reuse instead of
given back.  A block is never reused while work queued before its free may run, on any
stream: unlike a stream-ordered pool (``cuMemAllocAsync``/``cuMemFreeAsync``), an array
dropped while another library's stream still uses it is safe.  No flush happens while
a capture begun through :func:`cudalite.driver.graph.begin_capture` is active (the
driver refuses a synchronization then): allocations take new memory.  ``flush`` and
``release`` are public: ``cuda.current_context().deallocations.clear()`` and
``reset()`` call them.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["DevicePool", "memory_pool", "PENDING_BLOCKS", "PENDING_BYTES", "CACHE_BYTES", "BLOCK_ROUNDING",
           "MAX_BLOCK"]

BLOCK_ROUNDING = 512  # bytes: block sizes are multiples of it (CuPy's pool rounds the same)
MAX_BLOCK = 16 << 20  # bytes: a larger allocation is a plain cuMemAlloc, freed when it dies
PENDING_BLOCKS = 64  # pending frees that make the next allocation flush
PENDING_BYTES = 128 << 20  # pending bytes that make the next allocation flush
CACHE_BYTES = 256 << 20  # cached bytes kept after a flush (the rest goes back to the driver)
_ROUND_MASK = BLOCK_ROUNDING - 1  # a power of two: sizes round up with a mask


def memory_pool(device_id: int | None = None, create: bool = True) -> DevicePool | None:
    """The pool of device ``device_id`` (default: the current device), made on first use.

    Parameters
    ----------
    device_id : int, optional
        The device ordinal.
    create : bool, optional
        False: None instead of initializing the driver or making a pool (a process that
        has not allocated from it has nothing pending or cached).

    Returns
    -------
    DevicePool or None
    """
    from ._state import get_driver, peek_driver

    d = get_driver() if create else peek_driver()
    if d is None:
        return None
    dev = d.current() if device_id is None else device_id
    pool = d._pools.get(dev)
    if pool is None and create:
        with d._lock:
            pool = d._pools.get(dev)
            if pool is None:
                pool = d._pools[dev] = DevicePool(dev, d)
    return pool


class DevicePool:
    """The cached device memory of one device (see the module docstring); one per
    device, made by :func:`memory_pool`.

    Parameters
    ----------
    device_id : int
        The device ordinal.
    driver : Driver
        The process's driver state (its context push/pop and capture count).
    """

    def __init__(self, device_id: int, driver: Any) -> None:
        self.device_id = device_id
        self._driver = driver
        self._lock = threading.Lock()
        self._cached: dict = {}  # block size -> [pointer, ...]: reusable now
        self._cached_bytes = 0
        self._pending: list = []  # (pointer, block size) freed since the last flush
        self._pending_bytes = 0
        self._outstanding = 0  # blocks handed out and not yet back
        self.deferred = 0  # > 0: no flush (numba's defer_cleanup())

    # -- allocation -------------------------------------------------------------------------
    def take(self, nbytes: int) -> tuple:
        """``(pointer, block size)`` of a block for ``nbytes`` (> 0) bytes, counted as
        outstanding until :meth:`give_back` (``cudalite.driver.alloc(n, pool=True)``
        wraps it in a :class:`~cudalite.driver.DeviceMemory` whose death gives it back).

        Parameters
        ----------
        nbytes : int
            The bytes needed.

        Raises
        ------
        CudaDriverError
            The device is out of memory even with the cached blocks given back, or an
            earlier kernel's error surfaced in the flush's synchronization.
        """
        size = (nbytes + _ROUND_MASK) & ~_ROUND_MASK
        if len(self._pending) >= PENDING_BLOCKS or self._pending_bytes >= PENDING_BYTES:
            self.flush()
        with self._lock:
            blocks = self._cached.get(size)
            if blocks:
                self._cached_bytes -= size
                self._outstanding += 1
                return blocks.pop(), size
        ptr = int(self._driver_alloc(size))  # a CUdeviceptr: the pool keeps plain ints
        with self._lock:
            self._outstanding += 1
        return ptr, size

    def _driver_alloc(self, size):
        from ._cu import call
        from .errors import CudaDriverError

        d = self._driver
        for attempt in (0, 1):
            d.push(self.device_id)  # the device's context, whatever is current in this thread
            try:
                return call("cuMemAlloc", size)
            except CudaDriverError as exc:
                if exc.name != "CUDA_ERROR_OUT_OF_MEMORY" or attempt:
                    raise
            finally:
                d.pop()
            self.flush()
            self.release()
        raise AssertionError("unreachable")

    def give_back(self, ptr: int, size: int) -> None:
        """A block's memory object died: it waits for the next flush (no driver call).

        Parameters
        ----------
        ptr : int
            The block's address.
        size : int
            Its size (the one :meth:`take` returned).
        """
        with self._lock:
            self._pending.append((ptr, size))
            self._pending_bytes += size
            self._outstanding -= 1

    # -- flushing -----------------------------------------------------------------------------
    def flush(self) -> bool:
        """Synchronize the device, then cache the pending blocks (those beyond
        :data:`CACHE_BYTES` go back to the driver); False (nothing done) while a
        capture is active, inside ``defer_cleanup()`` (:attr:`deferred`) or when
        nothing is pending.  A failed synchronization (an
        earlier kernel's error) raises it and keeps the blocks pending."""
        if not self._pending or self._driver.captures or self.deferred:
            return False
        with self._lock:
            pending, self._pending, self._pending_bytes = self._pending, [], 0
        try:
            self._synchronize()
        except BaseException:
            with self._lock:
                self._pending = pending + self._pending
                self._pending_bytes += sum(size for _, size in pending)
            raise
        extra = []
        with self._lock:
            cached, total = self._cached, self._cached_bytes  # (locals: a flush per 64 new outputs)
            for ptr, size in pending:
                if total + size > CACHE_BYTES:
                    extra.append(ptr)
                    continue
                blocks = cached.get(size)
                if blocks is None:
                    cached[size] = [ptr]
                else:
                    blocks.append(ptr)
                total += size
            self._cached_bytes = total
        self._free(extra)
        return True

    def release(self) -> int:
        """Give every cached block back to the driver (``cuMemFree``); the pending ones
        stay pending.  Returns the bytes released."""
        with self._lock:
            blocks = [ptr for ptrs in self._cached.values() for ptr in ptrs]
            released, self._cached, self._cached_bytes = self._cached_bytes, {}, 0
        self._free(blocks)
        return released

    def _synchronize(self):
        from ._cu import call

        d = self._driver
        d.push(self.device_id)
        try:
            call("cuCtxSynchronize")
        finally:
            d.pop()

    def _free(self, blocks):
        if not blocks:
            return
        from ._cu import call

        d = self._driver
        d.push(self.device_id)
        try:
            for ptr in blocks:
                try:
                    call("cuMemFree", ptr)
                except Exception:  # a context in a sticky error state: nothing left to free
                    pass
        finally:
            d.pop()

    # -- inspection -----------------------------------------------------------------------------
    @property
    def cached_bytes(self) -> int:
        """Bytes in blocks ready for reuse."""
        return self._cached_bytes

    @property
    def pending_bytes(self) -> int:
        """Bytes in blocks freed since the last flush."""
        return self._pending_bytes

    @property
    def pending(self) -> int:
        """Blocks freed since the last flush."""
        return len(self._pending)

    @property
    def outstanding(self) -> int:
        """Blocks handed out and still alive."""
        return self._outstanding

    def __repr__(self) -> str:
        return (f"<cudalite.driver.DevicePool device={self.device_id} cached={self._cached_bytes} "
                f"pending={self._pending_bytes} outstanding={self._outstanding}>")

