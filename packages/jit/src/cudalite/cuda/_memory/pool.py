"""``StreamOrderedMemoryManager``: an EMM plugin that allocates device memory from the
device's stream-ordered memory pool (opt-in: ``cuda.set_memory_manager(
cuda.StreamOrderedMemoryManager)``).

``memalloc`` is ``cuMemAllocAsync`` on the legacy default stream and the memory's
finalizer ``cuMemFreeAsync`` on that stream; ``initialize`` raises the default pool's
release threshold to "keep everything", so freed blocks are handed out again without a
trip to the OS -- a new ufunc output or temporary then costs a pool lookup, not
``cuMemAlloc`` + ``cuMemFree``.

Why it is not the default: numba's ``cuMemFree`` waits for all work on the device, so
memory is never reused while any kernel still uses it.  A free ordered on the legacy
default stream waits for the work already queued on the legacy stream and on every
*blocking* stream -- ``cuda.stream()``, the per-thread default stream, CuPy's and
torch's default streams -- but not for work on *non-blocking* streams (a CuPy
``Stream(non_blocking=True)``, torch side streams, ``cuda.core`` streams): memory used
there must be synchronized before its last reference dies, or a later allocation may
be handed memory a kernel is still using.  Devices without memory pools
(``MEMORY_POOLS_SUPPORTED`` = 0) get ``cuMemAlloc``.  Pool memory has no
``cuIpcGetMemHandle`` handle: :meth:`get_ipc_handle` refuses.
"""

from __future__ import annotations

from typing import Any

import cudalite.driver as _drv

from .emm import SUPPORTED_EMM_INTERFACE_VERSION, AutoFreePointer, HostOnlyCUDAMemoryManager, MemoryInfo

__all__ = ["StreamOrderedMemoryManager"]

_KEEP_ALL = (1 << 64) - 1  # the pool's release threshold: never return freed memory to the OS


class StreamOrderedMemoryManager(HostOnlyCUDAMemoryManager):
    """Device memory from the device's stream-ordered pool, allocated and freed in the
    order of the legacy default stream (see the module docstring for when that is safe).

    Install it with ``cuda.set_memory_manager(cuda.StreamOrderedMemoryManager)``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pooled = False

    def initialize(self) -> None:
        """Use the context's device's default pool, keeping freed memory for reuse (a
        device without memory pools allocates with ``cuMemAlloc``)."""
        ctx_device = getattr(self.context, "device", None)
        device = _drv.get_device(ctx_device.id) if ctx_device is not None else _drv.current_device()
        self._pooled = bool(device.attribute("MEMORY_POOLS_SUPPORTED"))
        if self._pooled:
            device.set_mempool_release_threshold(_KEEP_ALL)

    def memalloc(self, size: Any) -> AutoFreePointer:
        """``size`` bytes from the pool, ordered on the legacy default stream.

        Parameters
        ----------
        size : int
            Bytes to allocate.
        """
        mem = _drv.alloc(size, stream=0) if self._pooled else _drv.alloc(size)
        return AutoFreePointer(self.context, mem.ptr, size, owner=mem, finalizer=mem.free)

    def get_ipc_handle(self, memory: Any) -> Any:
        """Refused: stream-ordered pool memory cannot be exported with
        ``cuIpcGetMemHandle``.

        Parameters
        ----------
        memory : MemoryPointer
            Memory this manager allocated.
        """
        raise NotImplementedError("memory from StreamOrderedMemoryManager (a stream-ordered pool) has no CUDA IPC "
                                  "handle; allocate memory to share between processes with the default manager")

    def get_memory_info(self) -> Any:
        """``MemoryInfo(free, total)`` of the device, in bytes."""
        return MemoryInfo(*_drv.memory_info())

    @property
    def interface_version(self) -> Any:
        return SUPPORTED_EMM_INTERFACE_VERSION
