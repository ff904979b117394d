"""Device memory, pinned host memory, memset and copies.

``alloc(nbytes)`` uses cuMemAlloc; ``alloc(nbytes, stream=s)`` uses the stream-ordered
allocator (cuMemAllocAsync from the device's default memory pool) and frees with
cuMemFreeAsync on the same stream.  Memory is freed by ``.free()``, or by a
``weakref.finalize`` when the object dies, or at interpreter exit; a free that finds the
context gone is ignored.  ``alloc_host(nbytes)`` returns page-locked host memory that
exposes ``__array_interface__`` (``numpy.asarray(h)``) and, on Python >= 3.12, the
buffer protocol.  ``alloc_managed(nbytes)`` returns unified memory (cuMemAllocManaged):
a :class:`DeviceMemory` that the host can also read and write through NumPy views.

Copies take device pointers as :class:`DeviceMemory` or ints, and host memory as
NumPy arrays, any contiguous buffer-protocol object, :class:`HostMemory` or int
addresses (then ``nbytes`` is required).  Async copies from pageable host memory are
staged by the driver; keep the host object alive until the stream is synchronized.
"""

from __future__ import annotations

import weakref

from ._cu import call, cu
from ._state import get_driver, peek_driver
from .stream import as_custream

__all__ = [
    "DeviceMemory",
    "HostMemory",
    "ManagedMemory",
    "alloc",
    "alloc_host",
    "alloc_managed",
    "memset",
    "memset_d32",
    "copy_host_to_device",
    "copy_device_to_host",
    "copy_device_to_device",
    "device_pointer",
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


def _release(kind, args, device_id, keepalive=None):
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
    """An owned device allocation: ``.ptr`` (int), ``.size``, ``.device_id``.

    Made by :func:`alloc`; freed by :meth:`free`, when the object dies, or at exit.

    Parameters
    ----------
    ptr : int
        The device address (0 for an empty allocation, which owns nothing).
    size : int
        Its size in bytes.
    device_id : int
        The ordinal of the device whose context holds it.
    stream : Stream or int, optional
        For stream-ordered memory, the stream it is freed on (cuMemFreeAsync);
        ``None`` frees it with cuMemFree.
    """

    __slots__ = ("ptr", "size", "device_id", "stream", "_finalizer", "__weakref__")

    def __init__(self, ptr, size, device_id, stream=None):
        self.ptr = int(ptr)
        self.size = size
        self.device_id = device_id
        self.stream = stream
        if self.ptr == 0:
            self._finalizer = None
        elif stream is None:
            self._finalizer = weakref.finalize(self, _release, "cuMemFree", (ptr,), device_id)
        else:
            self._finalizer = weakref.finalize(self, _release, "cuMemFreeAsync", (ptr, as_custream(stream)),
                                               device_id, stream)

    def free(self):
        """Free now (idempotent). Stream-ordered memory is freed on its stream."""
        if self._finalizer is not None:
            self._finalizer()

    @property
    def freed(self) -> bool:
        """True once the memory has been freed."""
        return self._finalizer is not None and not self._finalizer.alive

    def __int__(self):
        return self.ptr

    # numba's MemoryPointer names for the address (``int(m.device_pointer)``...)
    @property
    def device_pointer(self) -> int:
        """The device address as an int (numba's ``MemoryPointer`` name)."""
        return self.ptr

    @property
    def device_pointer_value(self):
        """The device address, or ``None`` for a null pointer."""
        return self.ptr or None

    @property
    def device_ctypes_pointer(self):
        """The device address as a ``ctypes.c_void_p``."""
        import ctypes

        return ctypes.c_void_p(self.ptr or None)

    def __repr__(self):
        return f"<cudalite.driver.DeviceMemory {self.ptr:#x} size={self.size} device={self.device_id}>"


def alloc(nbytes, stream=None) -> DeviceMemory:
    """Allocate ``nbytes`` on the current device; stream-ordered when ``stream`` is
    given (a :class:`~cudalite.driver.Stream`, handle int, ...). ``nbytes == 0`` gives
    a null pointer.

    Parameters
    ----------
    nbytes : int
        Size of the allocation in bytes.
    stream : Stream or int, optional
        Allocate from the device's default memory pool, ordered on this stream
        (cuMemAllocAsync); ``None`` (default) uses cuMemAlloc.

    Returns
    -------
    DeviceMemory

    Raises
    ------
    ValueError
        If ``nbytes`` is negative.
    CudaDriverError
        If the driver cannot allocate (e.g. ``CUDA_ERROR_OUT_OF_MEMORY``).
    """
    nbytes = int(nbytes)
    if nbytes < 0:
        raise ValueError(f"alloc: negative size {nbytes}")
    dev = get_driver().current()
    if nbytes == 0:
        return DeviceMemory(0, 0, dev)
    if stream is None:
        ptr = call("cuMemAlloc", nbytes)
    else:
        ptr = call("cuMemAllocAsync", nbytes, as_custream(stream))
    return DeviceMemory(ptr, nbytes, dev, stream)


class HostMemory:
    """Page-locked host memory from cuMemHostAlloc: ``.ptr``, ``.size``,
    ``numpy.asarray(h)`` (uint8 view), ``h.as_array(dtype, shape)``, freed on death.

    Made by :func:`alloc_host`.

    Parameters
    ----------
    ptr : int
        The host address of the pinned block.
    size : int
        Its size in bytes.
    device_id : int
        The ordinal of the device whose context allocated it.
    """

    __slots__ = ("ptr", "size", "device_id", "_finalizer", "__weakref__")

    def __init__(self, ptr, size, device_id):
        self.ptr = int(ptr)
        self.size = size
        self.device_id = device_id
        self._finalizer = weakref.finalize(self, _release, "cuMemFreeHost", (self.ptr,), device_id)

    @property
    def __array_interface__(self):
        if not self._finalizer.alive:
            raise ValueError("HostMemory was freed")
        return {"shape": (self.size,), "typestr": "|u1", "data": (self.ptr, False), "version": 3}

    def as_array(self, dtype="u1", shape=None):
        """A NumPy view of the memory (the view keeps this object alive).

        Parameters
        ----------
        dtype : numpy dtype-like, optional
            Element type of the view (default ``uint8``).
        shape : int or tuple of int, optional
            Shape of the view; ``None`` (default) gives a 1-D view of every element.

        Returns
        -------
        numpy.ndarray
        """
        return _host_view(self, dtype, shape)

    def __buffer__(self, flags):  # PEP 688 (Python >= 3.12)
        import numpy as np

        return memoryview(np.asarray(self))

    def memoryview(self):
        """A writable ``memoryview`` of the bytes (any Python version)."""
        import numpy as np

        return memoryview(np.asarray(self))

    def free(self):
        """Free the memory now (idempotent)."""
        self._finalizer()

    def __len__(self):
        return self.size

    def __repr__(self):
        return f"<cudalite.driver.HostMemory {self.ptr:#x} size={self.size}>"


def alloc_host(nbytes, *, portable=False, mapped=False, write_combined=False) -> HostMemory:
    """Allocate ``nbytes`` of pinned host memory (cuMemHostAlloc).

    Parameters
    ----------
    nbytes : int
        Size in bytes (0 allocates one byte; ``.size`` stays 0).
    portable : bool, optional
        Pinned for every context, not only the current one (``CU_MEMHOSTALLOC_PORTABLE``).
    mapped : bool, optional
        Also mapped into the device address space (``CU_MEMHOSTALLOC_DEVICEMAP``).
    write_combined : bool, optional
        Write-combined memory: fast host writes and transfers, slow host reads.

    Returns
    -------
    HostMemory
    """
    dev = get_driver().current()
    flags = (1 if portable else 0) | (2 if mapped else 0) | (4 if write_combined else 0)
    ptr = call("cuMemHostAlloc", max(int(nbytes), 1), flags)
    return HostMemory(ptr, int(nbytes), dev)


class ManagedMemory(DeviceMemory):
    """Unified memory from cuMemAllocManaged: a :class:`DeviceMemory` (``.ptr`` is valid
    on every device) that is also host-addressable: ``numpy.asarray(m)`` (uint8 view),
    ``m.as_array(dtype, shape)``.  Freed with cuMemFree when the object dies.  Do not
    touch it from the host while a kernel that uses it runs, unless the device reports
    ``CONCURRENT_MANAGED_ACCESS``: synchronize first.

    Made by :func:`alloc_managed`.

    Parameters
    ----------
    ptr : int
        The unified address.
    size : int
        Its size in bytes.
    device_id : int
        The ordinal of the device that allocated it.
    attach_global : bool, optional
        Whether it was allocated with ``CU_MEM_ATTACH_GLOBAL`` (default) rather than
        ``CU_MEM_ATTACH_HOST``.
    """

    __slots__ = ("attach_global",)

    def __init__(self, ptr, size, device_id, attach_global=True):
        super().__init__(ptr, size, device_id)
        self.attach_global = attach_global

    @property
    def __array_interface__(self):
        if self.freed:
            raise ValueError("ManagedMemory was freed")
        return {"shape": (self.size,), "typestr": "|u1", "data": (self.ptr, False), "version": 3}

    def as_array(self, dtype="u1", shape=None):
        """A host NumPy view of the memory (the view keeps this object alive).

        Parameters
        ----------
        dtype : numpy dtype-like, optional
            Element type of the view (default ``uint8``).
        shape : int or tuple of int, optional
            Shape of the view; ``None`` (default) gives a 1-D view of every element.

        Returns
        -------
        numpy.ndarray
        """
        return _host_view(self, dtype, shape)

    def __repr__(self):
        return f"<cudalite.driver.ManagedMemory {self.ptr:#x} size={self.size} device={self.device_id}>"


def alloc_managed(nbytes, *, attach_global=True) -> ManagedMemory:
    """Allocate ``nbytes`` of unified memory on the current device (cuMemAllocManaged).

    ``attach_global=True`` (``CU_MEM_ATTACH_GLOBAL``): any stream of any device may
    access it; ``False`` (``CU_MEM_ATTACH_HOST``): only the host, until attached to a
    stream.  ``nbytes == 0`` still allocates one byte (``.size`` is 0), so ``.ptr`` is
    a real address.

    Parameters
    ----------
    nbytes : int
        Size in bytes.
    attach_global : bool, optional
        ``True`` (default) for ``CU_MEM_ATTACH_GLOBAL``, ``False`` for ``CU_MEM_ATTACH_HOST``.

    Returns
    -------
    ManagedMemory

    Raises
    ------
    TypeError
        If ``nbytes`` is not an int.
    ValueError
        If ``nbytes`` is negative.
    """
    n = _nbytes(nbytes, "alloc_managed")
    dev = get_driver().current()
    ptr = call("cuMemAllocManaged", max(n, 1), _CU_MEM_ATTACH_GLOBAL if attach_global else _CU_MEM_ATTACH_HOST)
    return ManagedMemory(ptr, n, dev, bool(attach_global))


def device_pointer(obj) -> int:
    """The int device address of a :class:`DeviceMemory`, int, or an object with
    ``__cuda_array_interface__``.

    Parameters
    ----------
    obj : DeviceMemory, int or object
        An int address, an object with an int ``ptr`` attribute, an object exporting
        ``__cuda_array_interface__``, or anything ``int()`` accepts.

    Returns
    -------
    int
        The device address.
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


def copy_host_to_device(dst, src, nbytes=None, stream=None):
    """Copy host ``src`` to device ``dst`` (async on ``stream`` when given).

    Parameters
    ----------
    dst : DeviceMemory or int
        The destination device buffer or address.
    src : numpy.ndarray, buffer, HostMemory or int
        The contiguous host source; an int address needs ``nbytes``.
    nbytes : int, optional
        Bytes to copy (default: the size of ``src``).
    stream : Stream or int, optional
        A :class:`~cudalite.driver.Stream` (or a raw stream handle) to make the operation
        asynchronous on; ``None`` (default) runs it synchronously.

    Raises
    ------
    ValueError
        If the copy exceeds either buffer, the host buffer is not contiguous, or
        ``nbytes`` is missing for an int address.
    """
    get_driver().current()
    addr, n, _keep = _host(src, False, nbytes)
    if isinstance(dst, DeviceMemory) and n > dst.size:
        raise ValueError(f"copy of {n} bytes exceeds the device allocation ({dst.size} bytes)")
    if stream is None:
        call("cuMemcpyHtoD", device_pointer(dst), addr, n)
    else:
        call("cuMemcpyHtoDAsync", device_pointer(dst), addr, n, as_custream(stream))


def copy_device_to_host(dst, src, nbytes=None, stream=None):
    """Copy device ``src`` to host ``dst`` (async on ``stream`` when given); returns ``dst``.

    Parameters
    ----------
    dst : numpy.ndarray, buffer, HostMemory or int
        The contiguous, writable host destination; an int address needs ``nbytes``
        unless ``src`` is a :class:`DeviceMemory`.
    src : DeviceMemory or int
        The device source buffer or address.
    nbytes : int, optional
        Bytes to copy (default: the size of ``dst``).
    stream : Stream or int, optional
        A :class:`~cudalite.driver.Stream` (or a raw stream handle) to make the operation
        asynchronous on; ``None`` (default) runs it synchronously.

    Returns
    -------
    object
        ``dst``.

    Raises
    ------
    ValueError
        If the copy exceeds either buffer, or ``dst`` is read-only or not contiguous.
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


def copy_device_to_device(dst, src, nbytes=None, stream=None):
    """Copy ``nbytes`` (default: the size of ``src``) between device buffers.

    Parameters
    ----------
    dst : DeviceMemory or int
        The destination device buffer or address.
    src : DeviceMemory or int
        The source device buffer or address.
    nbytes : int, optional
        Bytes to copy; required when ``src`` is a raw address.
    stream : Stream or int, optional
        A :class:`~cudalite.driver.Stream` (or a raw stream handle) to make the operation
        asynchronous on; ``None`` (default) runs it synchronously.

    Raises
    ------
    ValueError
        If ``nbytes`` is missing for a raw address.
    """
    get_driver().current()
    n = _dev_size(src, nbytes)
    if stream is None:
        call("cuMemcpyDtoD", device_pointer(dst), device_pointer(src), n)
    else:
        call("cuMemcpyDtoDAsync", device_pointer(dst), device_pointer(src), n, as_custream(stream))


def memset(dst, value, nbytes=None, stream=None):
    """Set ``nbytes`` bytes (default: the whole allocation) to the byte ``value`` (D8).

    Parameters
    ----------
    dst : DeviceMemory or int
        The device buffer or address.
    value : int
        The byte value (only its low 8 bits are used).
    nbytes : int, optional
        Bytes to set; required when ``dst`` is a raw address.
    stream : Stream or int, optional
        A :class:`~cudalite.driver.Stream` (or a raw stream handle) to make the operation
        asynchronous on; ``None`` (default) runs it synchronously.

    Raises
    ------
    ValueError
        If ``nbytes`` is missing for a raw address.
    """
    get_driver().current()
    n = _dev_size(dst, nbytes)
    if stream is None:
        call("cuMemsetD8", device_pointer(dst), value & 0xFF, n)
    else:
        call("cuMemsetD8Async", device_pointer(dst), value & 0xFF, n, as_custream(stream))


def memset_d32(dst, value, count=None, stream=None):
    """Set ``count`` 32-bit words (default: the whole allocation) to ``value`` (D32).

    Parameters
    ----------
    dst : DeviceMemory or int
        The device buffer or address (4-byte aligned).
    value : int
        The 32-bit value (only its low 32 bits are used).
    count : int, optional
        Words to set; required when ``dst`` is a raw address.
    stream : Stream or int, optional
        A :class:`~cudalite.driver.Stream` (or a raw stream handle) to make the operation
        asynchronous on; ``None`` (default) runs it synchronously.

    Raises
    ------
    ValueError
        If ``count`` is missing for a raw address.
    """
    get_driver().current()
    n = _dev_size(dst, None if count is None else count * 4) // 4
    if stream is None:
        call("cuMemsetD32", device_pointer(dst), value & 0xFFFFFFFF, n)
    else:
        call("cuMemsetD32Async", device_pointer(dst), value & 0xFFFFFFFF, n, as_custream(stream))
