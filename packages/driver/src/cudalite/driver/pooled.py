"""``alloc_pooled``: a cached pool block in one Python frame, for the allocations made per
call (a ufunc's new output: ``benchmarks/vectorize.py``).

``alloc(nbytes, pool=True)`` goes through four frames (``alloc``, ``get_driver``, the
thread's device, :meth:`~cudalite.driver.pool.DevicePool.take`) and builds the block's
:class:`~cudalite.driver.DeviceMemory` in a fifth.  :func:`alloc_pooled` does the same
for the steady state -- the driver initialized, this thread's device known, its pool
made, nothing to flush and a cached block of the size -- inline, and returns None
whenever any of that does not hold, so the caller takes ``alloc`` (which flushes,
allocates, initializes).  The block is the one ``take`` would hand out, under the pool's
lock, with the same accounting; its death gives it back the same way.
"""

from __future__ import annotations

from typing import Any

from . import _state
from .memory import DeviceMemory
from .pool import BLOCK_ROUNDING, MAX_BLOCK, PENDING_BLOCKS, PENDING_BYTES

__all__ = ["alloc_pooled"]

_MASK = BLOCK_ROUNDING - 1  # a power of two: sizes round up with a mask (as take())
_new = object.__new__


def alloc_pooled(nbytes: int) -> Any:
    """A cached block of the current device's pool, as ``alloc(nbytes, pool=True)``
    would return it, or None when ``alloc`` must do it (see the module docstring).

    Parameters
    ----------
    nbytes : int
        The bytes needed (an int: no conversion or sign check here).

    Returns
    -------
    DeviceMemory or None
        The block (its death gives it back to the pool), or None: call ``alloc``.
    """
    d = _state._DRIVER
    if d is None or not 0 < nbytes <= MAX_BLOCK or not d.config.memory_pool:
        return None
    dev = getattr(d._tls, "device", None)
    pool = d._pools.get(dev) if dev is not None else None
    if pool is None or len(pool._pending) >= PENDING_BLOCKS or pool._pending_bytes >= PENDING_BYTES:
        return None  # not yet known here, or a flush is due: alloc() does it
    size = (nbytes + _MASK) & ~_MASK
    with pool._lock:  # take()'s hit path
        blocks = pool._cached.get(size)
        if not blocks:
            return None
        pool._cached_bytes -= size
        pool._outstanding += 1
        ptr = blocks.pop()
    mem = _new(DeviceMemory)
    mem.ptr, mem.size, mem.device_id, mem.stream, mem._finalizer = ptr, nbytes, dev, None, None
    mem._give = [(pool.give_back, size)]  # as DeviceMemory._pooled: list.pop() makes one free win
    return mem
