"""``cuda.current_context()`` and the context-level helpers of numba.cuda.

A :class:`Context` stands for a device's primary context (cudalite uses primary
contexts only), one object per device for the life of the process, kept in the jit
runtime record: ``.device``, ``.handle``, ``get_memory_info()`` (``MemoryInfo(free,
total)``, cuMemGetInfo unless an EMM plugin answers), ``synchronize()``, ``reset()``,
``deallocations`` (numba's pending-deallocation queue: the device pool's freed
blocks, :mod:`cudalite.driver.pool`), ``memory_manager`` (the EMM plugin
instance, assignable), ``defer_cleanup()``, the allocation methods numba code calls on
a context (``memalloc``, ``memhostalloc``, ``mempin``, ``memallocmanaged``), IPC
(``get_ipc_handle``, ``open_ipc_handle``) and stream/event factories.

Also here: ``defer_cleanup``, ``profile_start``/``profile_stop``/``profiling``,
``is_float16_supported``/``is_bfloat16_supported``/``is_fp8_supported``, and
:func:`memory_plugin`, the one place deciding whether an allocation goes to an EMM
plugin or to the driver, and :func:`device_alloc`, the device allocation every device
array of cudalite.cuda gets its memory from.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

import cudalite.driver as _drv

from .._launch.devices import on_device
from .._memory.emm import DefaultMemoryManager, MemoryInfo, MemoryPointer, PendingDeallocs
from .api import (
    Device,
    Event,
    default_stream,
    external_stream,
    legacy_default_stream,
    per_thread_default_stream,
    stream,
)
from .record import jit_runtime

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "Context", "current_context", "device_alloc", "memory_plugin", "defer_cleanup", "profile_start", "profile_stop",
    "profiling", "is_float16_supported", "is_bfloat16_supported", "is_fp8_supported",
]


class Context:
    """The primary context of one device (numba's ``Context``); obtain it with
    :func:`current_context`, never construct it."""

    def __init__(self, device: Any) -> None:
        self.device = device
        self.deallocations = PendingDeallocs(device.id)
        self.extras: dict = {}
        plugin = jit_runtime().memory_manager or DefaultMemoryManager
        self.memory_manager = plugin(context=self)
        self.memory_manager.initialize()

    @property
    def handle(self) -> Any:
        """The cuda.bindings ``CUcontext`` (the device's primary context)."""
        return _drv.get_device(self.device.id).context

    def __repr__(self) -> str:
        return f"<CUDA context of device {self.device.id}>"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Context) and other.device == self.device

    def __hash__(self) -> int:
        return hash(("cudalite.cuda.Context", self.device.id))

    # -- memory ---------------------------------------------------------------------------
    def get_memory_info(self) -> Any:
        """``MemoryInfo(free, total)`` in bytes (the EMM plugin's answer when one is in
        use, else cuMemGetInfo of this device)."""
        if type(self.memory_manager) is DefaultMemoryManager:
            return MemoryInfo(*_drv.get_device(self.device.id).memory_info())
        return self.memory_manager.get_memory_info()

    def reset(self) -> None:
        """numba's context reset: the EMM plugin's ``reset()``, the pending
        deallocations are flushed and the device pool's cached blocks given back to the
        driver.  Memory still referenced by live arrays is *not* freed (numba frees it,
        leaving those arrays dangling)."""
        self.memory_manager.reset()
        self.deallocations.clear()
        pool = _drv.memory_pool(self.device.id, create=False)
        if pool is not None and not self.deallocations.is_disabled:
            pool.release()

    @contextlib.contextmanager
    def defer_cleanup(self) -> Iterator[Any]:
        with self.memory_manager.defer_cleanup():
            with self.deallocations.disable():
                yield

    def memalloc(self, bytesize: Any) -> Any:
        return self.memory_manager.memalloc(bytesize)

    def memallocmanaged(self, bytesize: Any, attach_global: bool = True) -> Any:
        mm = self.memory_manager
        alloc = getattr(mm, "memallocmanaged", None)
        if alloc is None:
            return DefaultMemoryManager(context=self).memallocmanaged(bytesize, attach_global)
        return alloc(bytesize, attach_global)

    def memhostalloc(self, bytesize: Any, mapped: bool = False, portable: bool = False, wc: bool = False) -> Any:
        return self.memory_manager.memhostalloc(bytesize, mapped, portable, wc)

    def mempin(self, owner: Any, pointer: Any, size: Any, mapped: bool = False) -> Any:
        return self.memory_manager.mempin(owner, pointer, size, mapped)

    def get_ipc_handle(self, memory: Any) -> Any:
        """An IPC handle for ``memory`` (a MemoryPointer), from the memory manager."""
        return self.memory_manager.get_ipc_handle(memory)

    def open_ipc_handle(self, handle: Any, size: Any) -> Any:
        """Map another process's allocation (its 64-byte IPC handle); returns a
        :class:`~cudalite.cuda.MemoryPointer` that closes the mapping when it dies."""

        ptr = _drv.ipc_open_handle(handle)
        return MemoryPointer(self, ptr, size, finalizer=_closer(ptr))

    # -- peers ----------------------------------------------------------------------------
    def can_access_peer(self, peer_device: Any) -> Any:
        """Whether kernels on this context's device can address memory of device
        ``peer_device`` once peer access is enabled (numba's method; cuDeviceCanAccessPeer).

        Parameters
        ----------
        peer_device : int
            The other device's ordinal.

        Returns
        -------
        bool
            False for this context's own device.
        """
        return _drv.can_access_peer(self.device.id, int(peer_device))

    def enable_peer_access(self, peer_context: Any, flags: int = 0) -> None:
        """Let kernels on this context's device address the memory of the device of
        ``peer_context`` (numba's method; cuCtxEnablePeerAccess, idempotent here).

        Parameters
        ----------
        peer_context : Context or int
            The peer's context (``cuda.current_context(j)``) or its device ordinal.
        flags : int, optional
            Reserved by CUDA: must be 0.

        Raises
        ------
        ValueError
            ``flags`` is not 0.
        cudalite.driver.CudaDriverError
            The devices cannot access each other (``CUDA_ERROR_PEER_ACCESS_UNSUPPORTED``).
        """
        if flags != 0:
            raise ValueError(f"flags is reserved by CUDA and must be 0, not {flags!r}")
        peer = peer_context.device.id if isinstance(peer_context, Context) else int(peer_context)
        _drv.enable_peer_access(self.device.id, peer)

    # -- execution ------------------------------------------------------------------------
    def synchronize(self) -> None:
        """Wait for all work on this device."""
        self.device.synchronize()

    def create_stream(self) -> Any:
        with on_device(self.device.id):
            return stream()

    def create_event(self, timing: bool = True) -> Any:
        with on_device(self.device.id):
            return Event(timing=timing)

    def get_default_stream(self) -> Any:
        return default_stream()

    def get_legacy_default_stream(self) -> Any:
        return legacy_default_stream()

    def get_per_thread_default_stream(self) -> Any:
        return per_thread_default_stream()

    def create_external_stream(self, ptr: Any) -> Any:
        return external_stream(ptr)


def _closer(ptr):
    def close() -> None:
        try:
            _drv.ipc_close_handle(ptr)
        except Exception:  # the context may be gone at exit
            pass

    return close


def current_context(devnum: Any = None) -> Any:
    """The :class:`Context` of the current device (or of device ``devnum``), the
    same object every time (numba's ``cuda.current_context()``).  As numba does, an
    EMM plugin's ``initialize()`` is called on each access (it must be idempotent).

    Parameters
    ----------
    devnum : int, optional
        A device ordinal; ``None`` (default) is the current device.

    Returns
    -------
    Context

    Raises
    ------
    cudalite.driver.CudaSupportError
        No CUDA driver or no device.
    """

    dev_id = _drv.current_device().id if devnum is None else int(devnum)
    rt = jit_runtime()
    ctx = rt.contexts.get(dev_id)
    if ctx is None:
        with rt.lock:
            ctx = rt.contexts.get(dev_id)
        if ctx is None:
            made = Context(Device(dev_id))
            with rt.lock:
                ctx = rt.contexts.setdefault(dev_id, made)
    mm = ctx.memory_manager
    if type(mm) is not DefaultMemoryManager:
        mm.initialize()  # numba's prepare_for_use: plugins' initialize() is idempotent
    return ctx


@contextlib.contextmanager
def defer_cleanup() -> Iterator[Any]:
    """``with cuda.defer_cleanup():`` numba's deferral of deallocations (nestable).
    cudalite frees memory when its last reference dies, which is safe during
    asynchronous work (the driver orders the free after it), so this only enters
    the EMM plugin's ``defer_cleanup()`` when a plugin is in use."""
    with current_context().defer_cleanup():
        yield


def profile_start() -> None:
    """Start profile collection (cuProfilerStart), for ``nsys --capture-range=cudaProfilerApi``."""
    _drv.profile_start()


def profile_stop() -> None:
    """Stop profile collection (cuProfilerStop)."""
    _drv.profile_stop()


@contextlib.contextmanager
def profiling() -> Iterator[Any]:
    """``with cuda.profiling():`` profile collection on inside the block."""
    profile_start()
    try:
        yield
    finally:
        profile_stop()


def is_float16_supported() -> bool:
    """True: float16 is supported on every device cudalite targets (numba's answer)."""
    return True


def is_bfloat16_supported() -> Any:
    """Whether the current device supports bfloat16 (compute capability >= 8.0)."""
    return current_context().device.supports_bfloat16


def is_fp8_supported() -> Any:
    """Whether the current device has FP8 hardware (compute capability >= 8.9), numba's
    test; cudalite's fp8 conversions run on every GPU (integer arithmetic below sm_89)."""
    return current_context().device.supports_fp8


def memory_plugin() -> Any:
    """The EMM plugin instance in use in the current context, or None when the
    built-in allocator (:class:`DefaultMemoryManager`, the driver) serves it: the one
    place that decides where an allocation goes.  Every allocation of cudalite.cuda
    asks it (through :func:`device_alloc` and the pinned/mapped/managed helpers of
    ``_memory_api``).  A plugin comes from :func:`~cudalite.cuda.set_memory_manager`
    or from assigning ``current_context().memory_manager``; it is ``initialize()``-d
    before it is returned, as numba does on each context access.

    Returns
    -------
    BaseCUDAMemoryManager or None
    """
    rt = jit_runtime()
    if rt.memory_manager is None:  # no plugin class: only an assigned ctx.memory_manager can be one
        if not rt.contexts:
            return None
        ctx = rt.contexts.get(_drv.current_device_id())
        if ctx is None or type(ctx.memory_manager) is DefaultMemoryManager:
            return None
    mm = current_context().memory_manager  # makes the context (with the plugin) and initializes it
    return None if type(mm) is DefaultMemoryManager else mm


def device_alloc(nbytes: Any) -> Any:
    """Device memory for a new device array (``cuda.device_array`` and everything
    built on it: ``to_device``, ``auto_device``, ``DeviceNDArray(...)`` without
    memory, ufunc and gufunc outputs, reduction buffers, random states): a
    :class:`cudalite.driver.DeviceMemory` from the device's pool
    (:mod:`cudalite.driver.pool`; ``CUDALITE_MEMORY_POOL=0``: ``cuMemAlloc``), or, when an EMM plugin is
    in use in the current context (:func:`memory_plugin`), what its
    ``memalloc(nbytes)`` returned.  Zero bytes never reach a plugin (a NULL
    allocation, as numba).

    Parameters
    ----------
    nbytes : int
        Bytes to allocate.

    Returns
    -------
    cudalite.driver.DeviceMemory or MemoryPointer
    """
    rt = jit_runtime()
    if nbytes == 0 or (rt.memory_manager is None and not rt.contexts):  # the default path: no plugin anywhere
        mem = _drv.alloc_pooled(nbytes) if type(nbytes) is int else None  # a cached block, in one frame
        return _drv.alloc(nbytes, pool=True) if mem is None else mem
    mm = memory_plugin()
    return _drv.alloc(nbytes, pool=True) if mm is None else mm.memalloc(nbytes)
