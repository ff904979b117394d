"""Device memory, pinned host memory, memset and copies.

``alloc(nbytes)`` uses cuMemAlloc; ``alloc(nbytes, stream=s)`` uses the stream-ordered allocator (cuMemAllocAsync
from the device's default memory pool) and frees with cuMemFreeAsync on the same stream.  Memory is freed by
``.free()``, or by a ``weakref.finalize`` when the object dies, or at interpreter exit; a free that finds the context
gone is ignored.  ``alloc_host(nbytes)`` returns page-locked host memory that exposes ``__array_interface__``
(``numpy.asarray(h)``) and, on Python >= 3.12, the buffer protocol.  ``alloc_managed(nbytes)`` returns unified
memory (cuMemAllocManaged): a :class:`DeviceMemory` that the host can also read and write through NumPy views.

Copies take device pointers as :class:`DeviceMemory` or ints, and host memory as NumPy arrays, any contiguous
buffer-protocol object, :class:`HostMemory` or int addresses (then ``nbytes`` is required).  Async copies from
pageable host memory are staged by the driver; keep the host object alive until the stream is synchronized.  A
``stream`` argument (a :class:`~cudalite.driver.Stream` or raw handle) makes an operation asynchronous on it.
"""

from __future__ import annotations

import weakref
from typing import Any, cast

from ._cu import call, cu
from ._state import get_driver, peek_driver
from .pool import MAX_BLOCK, DevicePool, memory_pool
from .stream import as_custream

__all__ = [
    "DeviceMemory", "HostMemory", "ManagedMemory", "alloc", "alloc_host", "alloc_managed",
    "copy_host_to_device", "copy_device_to_host", "copy_device_to_device", "device_pointer",
]


_CU_MEM_ATTACH_GLOBAL = 1
_CU_MEM_ATTACH_HOST = 2


def _nbytes(nbytes, what):
    """``nbytes`` as a non-negative int (checked before the driver is touched)."""
    if isinstance(nbytes, bool) or not hasattr(nbytes, "__index__"):
        raise TypeError(f"{what}: nbytes must be an int, not {type(nbytes).__name__}")
    n = nbytes.__index__()
    if n < 0:
        raise ValueError(f"{what}: negative size {n}")
    return n


def _host_view(obj, dtype, shape):
    """A NumPy view of host-addressable memory ``obj`` (which it keeps alive)."""
    import numpy as np

    arr = np.asarray(obj).view(dtype)
    return arr if shape is None else arr.reshape(shape)


def _release(kind, args, device_id, keepalive=None) -> None:
    d = peek_driver()
    if d is None:  # the contexts are already released: their memory went with them
        return
    try:
        d.push(device_id)
        try:
            getattr(cu(), kind)(*args)
        finally:
            d.pop()
    except Exception:  # context destroyed or sticky error: nothing left to free
        pass


class DeviceMemory:
    """An owned device allocation: ``.ptr``, ``.size``, ``.device_id``; not constructed directly: see :func:`alloc`."""

    __slots__ = ("ptr", "size", "device_id", "stream", "_finalizer", "_give", "__weakref__")
    _finalizer: Any
    _give: Any  # a pool's block: [(give_back, block size)], [] once given back; None: not pooled

    def __init__(self, ptr: Any, size: Any, device_id: Any, stream: Any = None) -> None:
        self.ptr = int(ptr)
        self.size = size
        self.device_id = device_id
        self.stream = stream
        self._give = None
        if self.ptr == 0:
            self._finalizer = None
        elif stream is None:
            self._finalizer = weakref.finalize(self, _release, "cuMemFree", (ptr,), device_id)
        else:
            self._finalizer = weakref.finalize(self, _release, "cuMemFreeAsync", (ptr, as_custream(stream)),
                                               device_id, stream)

    @classmethod
    def _pooled(cls, ptr: int, size: int, device_id: int, give_back: Any, block: int) -> DeviceMemory:
        """A block of a device pool (:mod:`.pool`): its death (or ``free()``) gives the
        block back with ``give_back(ptr, block)`` -- through ``__del__``, ~1 us less
        than a ``weakref.finalize`` per array (benchmarks/vectorize.py's new outputs)."""
        self = cls.__new__(cls)
        self.ptr, self.size, self.device_id, self.stream, self._finalizer = ptr, size, device_id, None, None
        self._give = [(give_back, block)]  # list.pop(): one free wins, whatever the threads
        return self

    def free(self) -> None:
        """Free now (idempotent). Stream-ordered memory is freed on its stream; a pool's
        block goes back to its pool (reused once the device has synchronized)."""
        give = self._give
        if give is not None:
            try:
                give_back, block = give.pop()
            except IndexError:  # given back already
                return
            give_back(self.ptr, block)
        elif self._finalizer is not None:
            self._finalizer()

    def __del__(self) -> None:  # ~1 us less than a weakref.finalize per pooled array
        give = getattr(self, "_give", None)
        if give:  # a pool's block not yet given back: free() inlined (new-output ufunc calls)
            try:
                give_back, block = give.pop()
            except IndexError:  # given back already, by another thread
                return
            give_back(self.ptr, block)

    @property
    def freed(self) -> bool:
        return self._give == [] or (self._finalizer is not None and not self._finalizer.alive)

    def __int__(self) -> int:
        return self.ptr

    # numba's MemoryPointer names for the address (``int(m.device_pointer)``...)
    @property
    def device_pointer(self) -> int:
        return self.ptr

    @property
    def device_pointer_value(self) -> Any:
        return self.ptr or None

    @property
    def device_ctypes_pointer(self) -> Any:
        import ctypes

        return ctypes.c_void_p(self.ptr or None)

    def __repr__(self) -> str:
        return f"<cudalite.driver.DeviceMemory {self.ptr:#x} size={self.size} device={self.device_id}>"


def alloc(nbytes: Any, stream: Any = None, pool: bool = False) -> DeviceMemory:
    """Allocate ``nbytes`` on the current device (a :class:`DeviceMemory`); stream-ordered when
    ``stream`` is given; a block of the device's pool (:mod:`cudalite.driver.pool`: reused
    memory, freed memory reused only after the device synchronized) with ``pool=True``
    for at most 16 MiB unless ``CUDALITE_MEMORY_POOL=0``.  ``nbytes == 0`` gives a null pointer; a negative
    size is a ValueError.

    Parameters
    ----------
    nbytes : int
    stream : Stream or int, optional
    pool : bool, optional
        Take the memory from the device's pool (ignored with ``stream``).
    """
    nbytes = int(nbytes)
    if nbytes < 0:
        raise ValueError(f"alloc: negative size {nbytes}")
    d = get_driver()
    if pool and stream is None and 0 < nbytes <= MAX_BLOCK and d.config.memory_pool:
        # the thread's device from its record: a cached block needs no current context, and
        # the pool allocates a new one in the device's context (pushed) -- no driver call here
        dev = d.current_id()
        blocks = d._pools.get(dev) or cast(DevicePool, memory_pool(dev))  # made when missing: never None
        ptr, block = blocks.take(nbytes)
        return DeviceMemory._pooled(ptr, nbytes, dev, blocks.give_back, block)
    dev = d.current()
    if nbytes == 0:
        return DeviceMemory(0, 0, dev)
    if stream is None:
        ptr = call("cuMemAlloc", nbytes)
    else:
        ptr = call("cuMemAllocAsync", nbytes, as_custream(stream))
    return DeviceMemory(ptr, nbytes, dev, stream)


class HostMemory:
    """Page-locked host memory from cuMemHostAlloc: ``.ptr``, ``.size``, ``numpy.asarray(h)`` (uint8 view),
    ``h.as_array(dtype, shape)``, freed on death.  Not constructed directly: made by :func:`alloc_host`."""

    __slots__ = ("ptr", "size", "device_id", "_finalizer", "__weakref__")

    def __init__(self, ptr: Any, size: Any, device_id: Any) -> None:
        self.ptr = int(ptr)
        self.size = size
        self.device_id = device_id
        self._finalizer = weakref.finalize(self, _release, "cuMemFreeHost", (self.ptr,), device_id)

    @property
    def __array_interface__(self) -> Any:
        if not self._finalizer.alive:
            raise ValueError("HostMemory was freed")
        return {"shape": (self.size,), "typestr": "|u1", "data": (self.ptr, False), "version": 3}

    def as_array(self, dtype: str = "u1", shape: Any = None) -> Any:
        """A NumPy view (keeps this object alive) with ``dtype`` (default uint8) and ``shape`` (default: 1-d)."""
        return _host_view(self, dtype, shape)

    def __buffer__(self, flags: Any) -> Any:  # PEP 688 (Python >= 3.12)
        import numpy as np

        return np.asarray(self).data

    def memoryview(self) -> Any:
        """A writable ``memoryview`` of the bytes (any Python version)."""
        import numpy as np

        return np.asarray(self).data

    def free(self) -> None:
        """Free the memory now (idempotent)."""
        self._finalizer()

    def __len__(self) -> int:
        return self.size

    def __repr__(self) -> str:
        return f"<cudalite.driver.HostMemory {self.ptr:#x} size={self.size}>"


def alloc_host(nbytes: int, *, portable: bool = False, mapped: bool = False,
               write_combined: bool = False) -> HostMemory:
    """Allocate ``nbytes`` of pinned host memory (cuMemHostAlloc): a :class:`HostMemory`, ``portable`` (pinned
    for every context), ``mapped`` (into the device address space), ``write_combined``.

    Parameters
    ----------
    nbytes : int
    portable, mapped, write_combined : bool, optional
    """
    dev = get_driver().current()
    flags = (1 if portable else 0) | (2 if mapped else 0) | (4 if write_combined else 0)
    ptr = call("cuMemHostAlloc", max(int(nbytes), 1), flags)
    return HostMemory(ptr, int(nbytes), dev)


class ManagedMemory(DeviceMemory):
    """Unified memory from cuMemAllocManaged: a :class:`DeviceMemory` (``.ptr`` is valid on every device) that is
    also host-addressable: ``numpy.asarray(m)`` (uint8 view), ``m.as_array(dtype, shape)``.  Freed with cuMemFree
    when the object dies.  Do not touch it from the host while a kernel that uses it runs, unless the device
    reports ``CONCURRENT_MANAGED_ACCESS``: synchronize first.  Not constructed directly: see :func:`alloc_managed`."""

    __slots__ = ("attach_global",)

    def __init__(self, ptr: Any, size: Any, device_id: Any, attach_global: bool = True) -> None:
        super().__init__(ptr, size, device_id)
        self.attach_global = attach_global

    @property
    def __array_interface__(self) -> Any:
        if self.freed:
            raise ValueError("ManagedMemory was freed")
        return {"shape": (self.size,), "typestr": "|u1", "data": (self.ptr, False), "version": 3}

    def as_array(self, dtype: str = "u1", shape: Any = None) -> Any:
        """A host NumPy view (keeps this object alive) with ``dtype`` (default uint8) and ``shape`` (default: 1-d)."""
        return _host_view(self, dtype, shape)

    def __repr__(self) -> str:
        return f"<cudalite.driver.ManagedMemory {self.ptr:#x} size={self.size} device={self.device_id}>"


def alloc_managed(nbytes: Any, *, attach_global: bool = True) -> ManagedMemory:
    """Allocate ``nbytes`` of unified memory on the current device (cuMemAllocManaged).

    ``attach_global=True`` (``CU_MEM_ATTACH_GLOBAL``): any stream of any device may access it; ``False``
    (``CU_MEM_ATTACH_HOST``): only the host, until attached to a stream.  ``nbytes == 0`` still allocates one byte
    (``.size`` is 0), so ``.ptr`` is a real address.  A non-int ``nbytes`` is a TypeError, a negative a ValueError.

    Parameters
    ----------
    nbytes : int
    attach_global : bool, optional
    """
    n = _nbytes(nbytes, "alloc_managed")
    dev = get_driver().current()
    ptr = call("cuMemAllocManaged", max(n, 1), _CU_MEM_ATTACH_GLOBAL if attach_global else _CU_MEM_ATTACH_HOST)
    return ManagedMemory(ptr, n, dev, bool(attach_global))


def device_pointer(obj: Any) -> int:
    """The int device address of a :class:`DeviceMemory`, an int, or an object with ``__cuda_array_interface__``.

    Parameters
    ----------
    obj : DeviceMemory, int or object
    """
    if isinstance(obj, int):
        return obj
    ptr = getattr(obj, "ptr", None)
    if isinstance(ptr, int):
        return ptr
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        return cai["data"][0]
    return int(obj)


def _host(obj, writable, nbytes):
    """(address, nbytes, keepalive) of host memory ``obj``."""
    if isinstance(obj, int):
        if nbytes is None:
            raise ValueError("nbytes is required when host memory is given as an int address")
        return obj, nbytes, None
    if isinstance(obj, (HostMemory, ManagedMemory)):
        return obj.ptr, obj.size if nbytes is None else nbytes, obj
    import numpy as np

    if isinstance(obj, np.ndarray):
        arr = obj
        if not (arr.flags.c_contiguous or arr.flags.f_contiguous):
            raise ValueError("host array must be contiguous")
    else:
        mv = memoryview(obj)
        if not mv.contiguous:
            raise ValueError("host buffer must be contiguous")
        arr = np.frombuffer(mv.cast("B") if mv.ndim != 1 or mv.itemsize != 1 else mv, dtype=np.uint8)
    if writable and not arr.flags.writeable:
        raise ValueError("destination host buffer is read-only")
    size = arr.nbytes if nbytes is None else nbytes
    if size > arr.nbytes:
        raise ValueError(f"copy of {size} bytes exceeds the host buffer ({arr.nbytes} bytes)")
    return arr.__array_interface__["data"][0], size, arr


def _dev_size(obj, nbytes):
    if nbytes is not None:
        return nbytes
    size = getattr(obj, "size", None)
    if isinstance(obj, DeviceMemory):
        return size
    raise ValueError("nbytes is required for a raw device pointer")


def copy_host_to_device(dst: Any, src: Any, nbytes: Any = None, stream: Any = None) -> None:
    """Copy host ``src`` to device ``dst`` (async on ``stream`` when given); ``nbytes`` defaults to the size of
    ``src``.  ValueError when the copy exceeds either buffer.

    Parameters
    ----------
    dst : DeviceMemory or int
    src : numpy.ndarray, buffer, HostMemory or int
    nbytes : int, optional
    stream : Stream or int, optional
    """
    get_driver().current()
    addr, n, _keep = _host(src, False, nbytes)
    if isinstance(dst, DeviceMemory) and n > dst.size:
        raise ValueError(f"copy of {n} bytes exceeds the device allocation ({dst.size} bytes)")
    if stream is None:
        call("cuMemcpyHtoD", device_pointer(dst), addr, n)
    else:
        call("cuMemcpyHtoDAsync", device_pointer(dst), addr, n, as_custream(stream))


def copy_device_to_host(dst: Any, src: Any, nbytes: Any = None, stream: Any = None) -> Any:
    """Copy device ``src`` to host ``dst`` (async on ``stream`` when given); returns ``dst``.  ``nbytes`` defaults
    to the size of ``dst`` (of ``src`` for an int ``dst``); ValueError when the copy exceeds either buffer.

    Parameters
    ----------
    dst : numpy.ndarray, buffer, HostMemory or int
    src : DeviceMemory or int
    nbytes : int, optional
    stream : Stream or int, optional
    """
    get_driver().current()
    if nbytes is None and isinstance(src, DeviceMemory) and isinstance(dst, int):
        nbytes = src.size
    addr, n, _keep = _host(dst, True, nbytes)
    if isinstance(src, DeviceMemory) and n > src.size:
        raise ValueError(f"copy of {n} bytes exceeds the device allocation ({src.size} bytes)")
    if stream is None:
        call("cuMemcpyDtoH", addr, device_pointer(src), n)
    else:
        call("cuMemcpyDtoHAsync", addr, device_pointer(src), n, as_custream(stream))
    return dst


def copy_device_to_device(dst: Any, src: Any, nbytes: Any = None, stream: Any = None) -> None:
    """Copy ``nbytes`` (default: the size of ``src``) between device buffers.

    Parameters
    ----------
    dst, src : DeviceMemory or int
    nbytes : int, optional
    stream : Stream or int, optional
    """
    get_driver().current()
    n = _dev_size(src, nbytes)
    if stream is None:
        call("cuMemcpyDtoD", device_pointer(dst), device_pointer(src), n)
    else:
        call("cuMemcpyDtoDAsync", device_pointer(dst), device_pointer(src), n, as_custream(stream))
