"""External memory management (EMM): numba's plugin protocol for device allocations.

A plugin written for numba-cuda (RMM's ``RMMNumbaManager``, a CuPy-pool adapter, a
counting test double) subclasses :class:`HostOnlyCUDAMemoryManager` (or
:class:`BaseCUDAMemoryManager`), is installed with :func:`set_memory_manager`, and from
then on every allocation cudalite.cuda makes goes through it, as in numba:

* device memory -- ``device_array``, ``device_array_like``, ``to_device``,
  ``auto_device``, ``DeviceNDArray(...)`` without memory, the copies of host arrays
  passed to kernels (and ``In``/``Out``/``InOut``), ufunc and gufunc outputs and input
  copies, ``cuda.reduce``'s buffers, random states, TMA descriptors -- is memory its
  ``memalloc(size)`` returned: a :class:`MemoryPointer` whose finalizer (the plugin's
  free) runs when the last array over it dies;
* pinned and mapped host memory (``pinned_array``, ``mapped_array``) comes from its
  ``memhostalloc``, page-locking (``cuda.pinned``, ``cuda.mapped``) from its ``mempin``
  and managed memory (``managed_array``) from its ``memallocmanaged``
  (:class:`HostOnlyCUDAMemoryManager` implements these three with the CUDA driver).

Arrays over memory cudalite did not allocate (IPC-opened handles, DLPack and CUDA
array interface imports) are not allocations and never reach a plugin; neither do
zero-byte device arrays (a NULL pointer, as numba).  One plugin instance lives in each
device's context (``cuda.current_context().memory_manager``, assignable as in numba),
made with ``plugin(context=ctx)`` and ``initialize()``-d before its first allocation.
:func:`._context_api.memory_plugin` is the one place that decides which manager serves
an allocation.

Without a plugin, allocations take the driver's allocator directly
(:func:`cudalite.driver.alloc`, ``alloc_host``, ``alloc_managed``, ``register_host``)
and ``ctx.memory_manager`` is the built-in :class:`DefaultMemoryManager`, which
implements the same protocol over cudalite.driver.  Memory is freed when its last
reference dies (a plugin's finalizer, or the driver's free), so numba's queue of
pending deallocations is always empty; ``cuda.defer_cleanup()`` enters the plugin's
``defer_cleanup()``, which decides what deferring means for its pool.
:class:`IpcHandle`, numba's picklable CUDA IPC handle, is defined in :mod:`.ipc`.
"""

from __future__ import annotations

import contextlib
import ctypes
import weakref
from abc import ABCMeta, abstractmethod
from collections import namedtuple
from typing import TYPE_CHECKING, Any

import cudalite.driver as _drv

from .._runtime.api import driver_stream
from .._runtime.record import jit_runtime
from .ipc import IpcHandle, IpcMemHandle, handle_bytes  # noqa: F401  (numba's names, defined in .ipc)
from . import layout as L

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "MemoryInfo", "MemoryPointer", "AutoFreePointer", "MappedMemory", "PinnedMemory", "ManagedMemory",
    "OwnedPointer", "DevicePointer", "BaseCUDAMemoryManager", "HostOnlyCUDAMemoryManager", "GetIpcHandleMixin",
    "DefaultMemoryManager", "set_memory_manager", "PendingDeallocs", "IpcHandle", "handle_bytes", "host_address",
    "SUPPORTED_EMM_INTERFACE_VERSION",
]

SUPPORTED_EMM_INTERFACE_VERSION = 1

MemoryInfo = namedtuple("MemoryInfo", "free,total")
MemoryInfo.__doc__ = """Free and total memory of a device, in bytes (numba's ``MemoryInfo``).

Parameters
----------
free : int
    Free bytes.
total : int
    Total bytes.
"""


def _cai_bytes(cai) -> tuple:
    """(first byte's address, byte extent) of the array a CUDA array interface describes."""
    import numpy as np

    itemsize = np.dtype(cai["typestr"]).itemsize
    shape = tuple(cai["shape"])
    strides = cai.get("strides") or L.c_strides(shape, itemsize)
    lo, hi = L.extent(shape, tuple(strides), itemsize)
    return cai["data"][0] + lo, hi - lo


def _address(pointer) -> int:
    """An int address from an int, a ctypes pointer/integer, a cuda.bindings
    ``CUdeviceptr`` or anything with ``__int__``/``.value``."""
    if pointer is None:
        return 0
    if isinstance(pointer, int):
        return pointer
    value = getattr(pointer, "value", None)
    if isinstance(pointer, ctypes._SimpleCData):
        return int(value or 0)
    return int(pointer)


class DevicePointer(int):
    """A device address as an int that also answers ``.value`` (the ctypes spelling
    numba-era plugins read: ``memory.handle.value``)."""

    __slots__ = ()

    @property
    def value(self) -> int:
        return int(self)


class MemoryPointer:
    """Device memory: ``MemoryPointer(context, pointer, size, owner=None,
    finalizer=None)`` as in numba.  ``pointer`` may be an int, a ctypes pointer or
    integer, or a ``CUdeviceptr``; ``finalizer`` (a function of no arguments) runs once
    when this object dies or on :meth:`free`.  ``.ptr``/``device_pointer_value`` are the
    int address (``device_pointer_value`` is None for NULL), ``.size`` the bytes.

    Parameters
    ----------
    context : Context or None
        The context the memory belongs to (``cuda.current_context()``).
    pointer : int, ctypes pointer or CUdeviceptr
        The address.
    size : int
        Size in bytes.
    owner : object, optional
        The object that owns the memory (kept alive; ``.owner``).
    finalizer : callable, optional
        Function of no arguments that frees the memory, run once.
    """

    __cuda_memory__ = True

    def __init__(self, context: Any, pointer: Any, size: Any, owner: Any = None, finalizer: Any = None) -> None:
        self.context = context
        self.ptr = _address(pointer)
        self.device_pointer = self.handle = DevicePointer(self.ptr)
        self.size = size
        self._cuda_memsize_ = size
        self.is_managed = finalizer is not None
        self.refct = 1
        self._owner = owner
        self._finalizer: Any = weakref.finalize(self, finalizer) if finalizer is not None else None

    @property
    def owner(self) -> Any:
        """The object that owns the memory (this one when no owner was given)."""
        return self if self._owner is None else self._owner

    @property
    def device_pointer_value(self) -> Any:
        """The int address, or None for NULL."""
        return self.ptr or None

    @property
    def device_ctypes_pointer(self) -> Any:
        """The address as a ``ctypes.c_void_p``."""
        return ctypes.c_void_p(self.ptr or None)

    def own(self) -> OwnedPointer:
        """A reference that keeps this memory alive (numba's ``OwnedPointer``)."""
        return OwnedPointer(self)

    def free(self) -> None:
        """Run the finalizer now (RuntimeError if it already ran)."""
        if self.is_managed:
            if not self._finalizer.alive:
                raise RuntimeError("Freeing dead memory")
            self._finalizer()

    def memset(self, byte: Any, count: Any = None, stream: Any = 0) -> None:
        """Set bytes of the memory to ``byte``.

        Parameters
        ----------
        byte : int
            The byte value.
        count : int, optional
            Bytes to set (default: all of it).
        stream : Stream or int, optional
            Stream of the operation (0, the default: synchronous).
        """

        _drv.memset(self.ptr, byte, self.size if count is None else count, stream=driver_stream(stream))

    def view(self, start: Any, stop: Any = None) -> MemoryPointer:
        """The bytes ``[start, stop)`` of this memory (keeps it alive).

        Parameters
        ----------
        start : int
            First byte offset.
        stop : int, optional
            End offset (default: the size).

        Returns
        -------
        MemoryPointer

        Raises
        ------
        RuntimeError
            If the range is negative, or non-empty on NULL memory.
        """
        size = (self.size if stop is None else stop) - start
        if size < 0:
            raise RuntimeError("size cannot be negative")
        if not self.ptr:
            if size:
                raise RuntimeError("non-empty slice into empty slice")
            return self
        return MemoryPointer(self.context, self.ptr + start, size, owner=self.owner)

    def __int__(self) -> int:
        return self.ptr

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.ptr:#x} size={self.size}>"


class AutoFreePointer(MemoryPointer):
    """A :class:`MemoryPointer` freed when its last reference goes (numba's name; in
    cudalite every MemoryPointer behaves so)."""


class MappedMemory(AutoFreePointer):
    """Pinned host memory mapped into the device address space.

    Parameters
    ----------
    context : Context or None
        The context the memory belongs to (``cuda.current_context()``).
    pointer : int, ctypes pointer or CUdeviceptr
        The address.
    size : int
        Size in bytes.
    owner : object, optional
        The object that owns the memory (kept alive; ``.owner``).
    finalizer : callable, optional
        Function of no arguments that frees the memory, run once.
    host_pointer : int, optional
        The host address (default: ``pointer``).
    """

    def __init__(self, context: Any, pointer: Any, size: Any, owner: Any = None, finalizer: Any = None, *,
                 host_pointer: Any = None) -> None:
        super().__init__(context, pointer, size, owner=owner, finalizer=finalizer)
        self.host_pointer = self.ptr if host_pointer is None else host_pointer


class PinnedMemory(MemoryPointer):
    """Page-locked host memory (``.ptr`` is the host address)."""

    @property
    def host_pointer(self) -> Any:
        """The host address (``.ptr``), as numba's ``PinnedMemory.host_pointer``."""
        return self.ptr


def host_address(mem: Any) -> int:
    """The int host address of pinned or mapped memory an EMM plugin returned
    (``host_pointer``, else ``ptr``)."""
    hp = getattr(mem, "host_pointer", None)
    return _address(hp if hp is not None else mem.ptr)


class ManagedMemory(AutoFreePointer):
    """Unified (managed) memory."""


class OwnedPointer:
    """A reference to a :class:`MemoryPointer` that keeps it alive (numba's
    ``mem.own()``); attributes are read from the memory."""

    def __init__(self, memptr: Any, view: Any = None) -> None:
        self._mem = memptr
        self._view = memptr if view is None else view

    def __getattr__(self, name: Any) -> Any:
        return getattr(self._view, name)

    def __int__(self) -> int:
        return int(self._view.ptr)


class PendingDeallocs:
    """numba's ``context.deallocations``.  A context's (``device_id`` given) is its device
    pool's queue of freed blocks (:mod:`cudalite.driver.pool`): ``len()`` counts them,
    :meth:`clear` flushes it (synchronizes the device, then the blocks are reused), and
    :meth:`disable` (numba's ``defer_cleanup``) holds flushes, nesting as numba's
    (``is_disabled``).  An EMM plugin's own (no device) never has anything pending."""

    def __init__(self, device_id: Any = None) -> None:
        self._device_id = device_id
        self._disable_count = 0
        self.memory_capacity = 0

    def _pool(self) -> Any:
        return None if self._device_id is None else _drv.memory_pool(self._device_id, create=False)

    def clear(self) -> None:
        """Flush the pending deallocations: synchronize the device, then its freed blocks
        are reused (none while :meth:`disable` holds)."""
        pool = self._pool()
        if pool is not None and not self.is_disabled:
            pool.flush()

    @contextlib.contextmanager
    def disable(self) -> Iterator[Any]:
        pool = self._pool()
        self._disable_count += 1
        if pool is not None:
            pool.deferred += 1
        try:
            yield
        finally:
            self._disable_count -= 1
            if pool is not None:
                pool.deferred -= 1

    @property
    def is_disabled(self) -> bool:
        return self._disable_count > 0

    def __len__(self) -> int:
        pool = self._pool()
        return 0 if pool is None else pool.pending


class BaseCUDAMemoryManager(metaclass=ABCMeta):
    """The EMM plugin interface (numba's abstract base class): made with
    ``Plugin(context=ctx)``; implements ``memalloc``, ``memhostalloc``, ``mempin``,
    ``initialize``, ``get_ipc_handle``, ``get_memory_info``, ``reset``,
    ``defer_cleanup`` and the ``interface_version`` property (1)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "context" not in kwargs:
            raise RuntimeError("Memory manager requires a context")
        self.context = kwargs.pop("context")

    @abstractmethod
    def memalloc(self, size: Any) -> Any:
        """Allocate ``size`` bytes of device memory; return a :class:`MemoryPointer`.

        Parameters
        ----------
        size : int
            Bytes to allocate.
        """

    @abstractmethod
    def memhostalloc(self, size: Any, mapped: Any, portable: Any, wc: Any) -> Any:
        """Allocate pinned host memory; return :class:`MappedMemory` or :class:`PinnedMemory`.

        Parameters
        ----------
        size : int
            Bytes to allocate.
        mapped : bool
            Also map it into the device address space.
        portable : bool
            Pinned for every context.
        wc : bool
            Write-combined.
        """

    @abstractmethod
    def mempin(self, owner: Any, pointer: Any, size: Any, mapped: Any) -> Any:
        """Pin existing host memory; return :class:`MappedMemory` or :class:`PinnedMemory`.

        Parameters
        ----------
        owner : object
            The object that owns the host memory.
        pointer : int or ctypes pointer
            Its host address.
        size : int
            Bytes to pin.
        mapped : bool
            Also map it into the device address space.
        """

    @abstractmethod
    def initialize(self) -> None:
        """Get ready for use (called before the first allocation)."""

    @abstractmethod
    def get_ipc_handle(self, memory: Any) -> Any:
        """An :class:`~cudalite.cuda.IpcHandle` for ``memory`` (a MemoryPointer).

        Parameters
        ----------
        memory : MemoryPointer
            Memory this manager allocated.
        """

    @abstractmethod
    def get_memory_info(self) -> Any:
        """``MemoryInfo(free, total)`` in bytes."""

    @abstractmethod
    def reset(self) -> None:
        """Free everything allocated in this context."""

    @abstractmethod
    def defer_cleanup(self) -> Any:
        """A context manager during which frees are deferred."""

    @property
    @abstractmethod
    def interface_version(self) -> int:
        """The EMM interface version implemented (1)."""


def _host_finalizer(mem):
    return mem.free


class HostOnlyCUDAMemoryManager(BaseCUDAMemoryManager):
    """Base class of plugins that implement device allocation only: pinned, mapped
    and managed host memory are allocated here with the CUDA driver.  Subclasses
    that override ``reset``/``defer_cleanup`` must call ``super()``'s."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.allocations: dict = {}
        self.deallocations = PendingDeallocs()

    def memhostalloc(self, size: Any, mapped: bool = False, portable: bool = False, wc: bool = False) -> Any:
        """Allocate pinned host memory with the CUDA driver.

        Parameters
        ----------
        size : int
            Bytes to allocate.
        mapped : bool, optional
            Also map it into the device address space.
        portable : bool, optional
            Pinned for every context.
        wc : bool, optional
            Write-combined.

        Returns
        -------
        MappedMemory or PinnedMemory
        """
        mem = _drv.alloc_host(size, portable=portable, mapped=mapped, write_combined=wc)
        ctx = self.context
        if mapped:
            devptr = _drv.host_device_pointer(mem)
            return MappedMemory(ctx, devptr, size, owner=mem, finalizer=_host_finalizer(mem), host_pointer=mem.ptr)
        return PinnedMemory(ctx, mem.ptr, size, owner=mem, finalizer=_host_finalizer(mem))

    def mempin(self, owner: Any, pointer: Any, size: Any, mapped: bool = False) -> Any:
        """Page-lock existing host memory with the CUDA driver (cuMemHostRegister).

        Parameters
        ----------
        owner : object
            The object that owns the host memory.
        pointer : int or ctypes pointer
            Its host address.
        size : int
            Bytes to pin.
        mapped : bool, optional
            Also map it into the device address space.

        Returns
        -------
        MappedMemory or PinnedMemory
        """
        reg = _drv.register_host(_address(pointer), size, mapped=mapped)
        fin = reg.unregister
        if mapped:
            return MappedMemory(self.context, reg.device_ptr, size, owner=owner, finalizer=fin,
                                host_pointer=_address(pointer))
        return PinnedMemory(self.context, _address(pointer), size, owner=owner, finalizer=fin)

    def memallocmanaged(self, size: Any, attach_global: Any) -> ManagedMemory:
        """Allocate managed (unified) memory with the CUDA driver.

        Parameters
        ----------
        size : int
            Bytes to allocate.
        attach_global : bool
            Accessible from any stream (``CU_MEM_ATTACH_GLOBAL``) or only the host.

        Returns
        -------
        ManagedMemory
        """
        mem = _drv.alloc_managed(size, attach_global=attach_global)
        return ManagedMemory(self.context, mem.ptr, size, owner=mem, finalizer=mem.free)

    def reset(self) -> None:
        """Forget the allocations and pending deallocations tracked here."""
        self.allocations.clear()
        self.deallocations.clear()

    @contextlib.contextmanager
    def defer_cleanup(self) -> Iterator[Any]:
        """A context manager during which deallocations are deferred."""
        with self.deallocations.disable():
            yield


class GetIpcHandleMixin:
    """The default ``get_ipc_handle``: cuIpcGetMemHandle on the base of the
    allocation that contains the memory, with the memory's offset in it."""

    context: Any  # the memory manager's, which this class is mixed into

    def get_ipc_handle(self, memory: Any) -> Any:
        """An :class:`IpcHandle` that exports ``memory`` to another process.

        Parameters
        ----------
        memory : MemoryPointer or DeviceMemory
            The memory to export (any part of a device allocation).

        Returns
        -------
        IpcHandle
        """
        # a MemoryPointer (numba's .device_pointer), the default allocator's memory (a
        # device array's gpu_data: a cudalite.driver.DeviceMemory), or a foreign array's
        # object (the gpu_data of cuda.as_cuda_array(obj)): its CUDA array interface
        cai = getattr(memory, "__cuda_array_interface__", None)
        dp = getattr(memory, "device_pointer", None)
        if isinstance(cai, dict) and dp is None:
            ptr, size = _cai_bytes(cai)
        elif dp is not None or hasattr(memory, "size"):
            ptr = _address(dp) if dp is not None else _drv.device_pointer(memory)
            size = memory.size
        else:
            raise TypeError(f"get_ipc_handle() takes device memory (a MemoryPointer, a device array's gpu_data or "
                            f"an object with __cuda_array_interface__), not {type(memory).__name__}")
        base, _size = _drv.address_range(ptr)
        handle = _drv.ipc_get_handle(base)
        dev = self.context.device if self.context is not None else None
        source = None if dev is None else dev.get_device_identity()
        return IpcHandle(memory, handle, size, source, offset=ptr - base)


class DefaultMemoryManager(GetIpcHandleMixin, HostOnlyCUDAMemoryManager):
    """cudalite's own allocator (cuMemAlloc through cudalite.driver), behind numba's
    EMM protocol; while it is a context's manager, allocations skip it and call the
    driver directly (the same calls, without the wrapping)."""

    def initialize(self) -> None:
        pass

    def memalloc(self, size: Any) -> AutoFreePointer:
        mem = _drv.alloc(size)
        return AutoFreePointer(self.context, mem.ptr, size, owner=mem, finalizer=mem.free)

    def get_memory_info(self) -> Any:
        return MemoryInfo(*_drv.memory_info())

    @property
    def interface_version(self) -> Any:
        return SUPPORTED_EMM_INTERFACE_VERSION


def set_memory_manager(mm_plugin: Any) -> None:
    """Use the EMM plugin class ``mm_plugin`` for every allocation from now on, in
    every device's context, those made before included (numba's ``set_memory_manager``):
    device memory through its ``memalloc``, pinned and mapped host memory through
    ``memhostalloc``, page-locking through ``mempin``, managed memory through
    ``memallocmanaged`` (see docs/guide/memory.md for the list of APIs).

    Parameters
    ----------
    mm_plugin : type
        A subclass of :class:`BaseCUDAMemoryManager` (or of
        :class:`HostOnlyCUDAMemoryManager`), instantiated as ``mm_plugin(context=ctx)``.

    Raises
    ------
    RuntimeError
        The plugin's ``interface_version`` is not 1.
    """
    dummy = mm_plugin(context=None)
    iv = dummy.interface_version
    if iv != SUPPORTED_EMM_INTERFACE_VERSION:
        raise RuntimeError(f"EMM Plugin interface has version {iv} - version {SUPPORTED_EMM_INTERFACE_VERSION} "
                           "required")

    rt = jit_runtime()
    with rt.lock:
        rt.memory_manager = mm_plugin
        contexts = list(rt.contexts.values())
    for ctx in contexts:  # contexts made before: their next allocation uses the plugin
        ctx.memory_manager = mm_plugin(context=ctx)
        ctx.memory_manager.initialize()
