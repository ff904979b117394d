"""numba.cuda's memory API: device, pinned, mapped and managed arrays; interop.

``to_device``, ``device_array``, ``device_array_like``, ``pinned_array``,
``pinned_array_like``, ``mapped_array``, ``managed_array``, the ``pinned``/``mapped``
context managers (page-locking existing NumPy arrays with cuMemHostRegister),
``as_cuda_array``, ``is_cuda_array`` and ``from_cuda_array_interface``.  Every driver
call (allocation, copies, managed memory, host registration, mapped device pointers)
goes through the public API of :mod:`cudalite.driver`.

Every allocation goes through the active memory manager, as numba's: device memory
through :func:`._context_api.device_alloc`, pinned and mapped host memory through the
EMM plugin's ``memhostalloc``, page-locking (``pinned``/``mapped``) through its
``mempin`` and managed memory through its ``memallocmanaged`` when a plugin is in use
(:func:`._context_api.memory_plugin` decides); without one, the driver directly.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import cudalite.driver as _drv
from cudalite.core.numpy_support import lazy_numpy as np  # NumPy loads on first use

from .._runtime.context import current_context, device_alloc, memory_plugin
from ..devicearray import DeviceNDArray, from_cuda_array_interface, is_device_array
from . import layout as L

if TYPE_CHECKING:  # annotations only: NumPy loads on first use
    import numpy
from .emm import IpcHandle, host_address

__all__ = [
    "to_device", "device_array", "device_array_like", "pinned_array", "pinned_array_like",
    "mapped_array", "mapped_array_like", "managed_array", "pinned", "mapped", "as_cuda_array", "is_cuda_array",
    "from_cuda_array_interface", "open_ipc_array",
]

def _strides_for(shape, dtype, strides, order):
    if strides is not None:
        return tuple(int(s) for s in strides)
    order = order.upper()
    if order == "C":
        return L.c_strides(shape, dtype.itemsize)
    if order == "F":
        return L.f_strides(shape, dtype.itemsize)
    raise ValueError(f"order must be 'C' or 'F', not {order!r}")


def _order_like(ary):
    flags = ary.flags
    return "F" if flags["F_CONTIGUOUS"] and not flags["C_CONTIGUOUS"] else "C"


def _strides_like(ary):
    """Contiguous byte strides for a new array laid out like ``ary`` (NumPy's
    ``order='K'``, as numba's ``*_array_like``): None when ``ary`` is C- or
    F-contiguous (its order is used), else the dimensions ordered by ``ary``'s stride
    magnitudes, smallest first (stable), packed without gaps.  A strided view of
    an F-ordered array gives an F-ordered new array."""
    shape, strides = tuple(ary.shape), tuple(getattr(ary, "strides", ()) or ())
    flags = ary.flags
    if len(shape) <= 1 or len(strides) != len(shape) or flags["C_CONTIGUOUS"] or flags["F_CONTIGUOUS"]:
        return None
    out, step = [0] * len(shape), np.dtype(ary.dtype).itemsize
    for axis in sorted(range(len(shape)), key=lambda k: abs(strides[k])):
        out[axis] = step
        step *= shape[axis]
    return tuple(out)


def _host_alloc(nbytes, mapped=False, portable=False, wc=False):
    """``(owner, host address, device address or None)`` of new pinned host memory:
    the EMM plugin's ``memhostalloc`` when one is in use, else cuMemHostAlloc."""
    mm = memory_plugin()
    if mm is None:
        mem = _drv.alloc_host(nbytes, portable=portable, mapped=mapped, write_combined=wc)
        return mem, mem.ptr, (_drv.host_device_pointer(mem) if mapped else None)
    mem = mm.memhostalloc(nbytes, mapped, portable, wc)
    return mem, host_address(mem), (mem.ptr if mapped else None)


def _managed_alloc(nbytes, attach_global):
    """The owner of new managed memory (``.ptr``: its address, host and device): the EMM
    plugin's ``memallocmanaged`` when one is in use (the built-in one for a plugin
    without that method), else cuMemAllocManaged."""
    if memory_plugin() is None:
        return _drv.alloc_managed(nbytes, attach_global=attach_global)  # freed (cuMemFree) with the array
    return current_context().memallocmanaged(nbytes, attach_global)


def _host_pin(owner, ptr, nbytes, mapped, portable=False):
    """Page-lock ``nbytes`` of host memory at ``ptr``: ``(release, device address or
    None)``; ``release()`` undoes it.  The EMM plugin's ``mempin`` when one is in use
    (``portable`` is not part of that protocol), else cuMemHostRegister."""
    mm = memory_plugin()
    if mm is None:
        reg = _drv.register_host(ptr, nbytes, portable=portable, mapped=mapped)
        return reg.unregister, (reg.device_ptr if mapped else None)
    mem = mm.mempin(owner, ptr, nbytes, mapped)
    return mem.free, (mem.ptr if mapped else None)


def _nbytes(shape, dtype, strides):
    lo, hi = L.extent(shape, strides, dtype.itemsize)
    if lo < 0:
        raise ValueError("negative strides are not supported for allocation")
    return hi


# -- device arrays ------------------------------------------------------------------------------
def device_array(shape: int | Sequence[int], dtype: Any = float, strides: Sequence[int] | None = None,
                 order: str = "C", stream: Any = 0) -> DeviceNDArray:
    """An uninitialized array in device memory.

    Parameters
    ----------
    shape : int or tuple of int
        The array's shape.
    dtype : dtype-like, optional
        Anything ``numpy.dtype`` takes (default: ``float``, i.e. float64).
    strides : tuple of int, optional
        Byte strides (default: contiguous in ``order``); negative strides are
        not supported.
    order : {"C", "F"}, optional
        Row-major (the default) or column-major layout, when ``strides`` is not given.
    stream : Stream or int, optional
        The array's default stream for its copies (default: the legacy default
        stream).

    Returns
    -------
    DeviceNDArray
        The new array; its memory is freed when the array is collected.

    Raises
    ------
    ValueError
        A negative dimension or stride, strides not matching the shape, or an
        ``order`` other than ``"C"``/``"F"``.
    TypeError
        A dimension that is not an int, or a ``dtype`` NumPy does not accept.
    cudalite.driver.CudaDriverError
        The allocation fails (e.g. out of memory) or no device is usable.
    """
    shape = L.normalize_shape(shape)
    dtype = np.dtype(dtype)
    strides = _strides_for(shape, dtype, strides, order)
    lo, hi = L.extent(shape, strides, dtype.itemsize)
    mem = device_alloc(hi - lo)  # the driver's allocation, or an EMM plugin's memalloc
    return DeviceNDArray(shape, strides, dtype, stream=stream, gpu_data=mem)


def new_vector(n: int, dtype: Any, stream: Any = 0, key: Any = None) -> DeviceNDArray:
    """``device_array((n,), dtype, stream=stream)`` for ``n > 0`` and a NumPy dtype, with
    the array's fields set directly (the ufunc fast path's new output: ~2 us less than
    the general constructor on the dev machine); the same array in every field
    (packages/jit/tests/test_new_vector.py).  ``key``: the interned type key of
    ``(dtype, 1, "C")`` (``layout.type_key``) when the caller keeps it."""
    itemsize = dtype.itemsize
    mem = device_alloc(n * itemsize)
    a = DeviceNDArray.__new__(DeviceNDArray)
    if type(mem) is _drv.DeviceMemory:
        ptr = a._ptr = mem.ptr
        a._device = mem.device_id
    else:  # an EMM plugin's MemoryPointer
        ptr = a._ptr = int(_drv.device_pointer(mem))
        a._device = None
    a.shape, a.strides, a.dtype, a.ndim, a.size = (n,), (itemsize,), dtype, 1, n
    a.stream, a.gpu_data, a._layout = stream, mem, "C"
    a._kernel_params, a._type_key = (ptr, n), L.type_key(dtype, 1, "C") if key is None else key
    return a


def device_array_like(ary: Any, stream: Any = 0) -> DeviceNDArray:
    """An uninitialized device array with the shape, dtype and order of ``ary``.

    Parameters
    ----------
    ary : array-like
        A NumPy array, device array or any object with ``shape`` and ``dtype``
        (and ``flags``: a C- or F-contiguous array gives that order; a
        non-contiguous view gives the layout NumPy's ``order='K'`` would, its
        dimensions ordered by stride magnitude).
    stream : Stream or int, optional
        The new array's default stream.

    Returns
    -------
    DeviceNDArray
        The new array (contiguous: ``ary``'s strides are not copied).

    Raises
    ------
    cudalite.driver.CudaDriverError
        The allocation fails (e.g. out of memory) or no device is usable.
    """
    if not hasattr(ary, "flags"):
        return device_array(ary.shape, ary.dtype, stream=stream)
    return device_array(ary.shape, ary.dtype, strides=_strides_like(ary), order=_order_like(ary), stream=stream)


def to_device(obj: Any, stream: Any = 0, copy: bool = True, to: DeviceNDArray | None = None) -> DeviceNDArray:
    """Copy a host array to the device (or into an existing device array).

    Parameters
    ----------
    obj : array-like
        A NumPy array or anything ``numpy.asarray`` takes.  A device array is
        returned as it is, and an object with ``__cuda_array_interface__`` is
        wrapped without a copy (:func:`as_cuda_array`).  A non-contiguous array is
        made contiguous first.
    stream : Stream or int, optional
        The stream of the copy, and the new array's default stream (default: the
        legacy default stream: the copy is complete when this returns).
    copy : bool, optional
        False allocates the device array without copying the data into it.
    to : DeviceNDArray, optional
        Copy ``obj`` into this array (same shape and dtype) instead of allocating;
        ``obj`` may then be a device array too.

    Returns
    -------
    DeviceNDArray
        The new device array, ``to``, ``obj`` itself (a device array), or a view
        of a CUDA array interface object.

    Raises
    ------
    ValueError
        ``to`` has another shape than ``obj``.
    TypeError
        ``to`` has another dtype than ``obj``.
    cudalite.driver.CudaDriverError
        The allocation fails (e.g. out of memory) or no device is usable.
    """
    if to is not None:
        to.copy_to_device(obj, stream=stream)
        return to
    if is_device_array(obj):
        return obj
    if not isinstance(obj, np.ndarray) and hasattr(obj, "__cuda_array_interface__"):
        return from_cuda_array_interface(obj.__cuda_array_interface__, owner=obj)
    host = np.asarray(obj)
    flags = host.flags
    if not (flags["C_CONTIGUOUS"] or flags["F_CONTIGUOUS"]):
        host = np.ascontiguousarray(host)
    dev = device_array(host.shape, host.dtype, order=_order_like(host), stream=stream)
    if copy:
        dev.copy_to_device(host, stream=stream)
    return dev


# -- host arrays --------------------------------------------------------------------------------
def _hostarray():
    """The host-array module (it defines NumPy subclasses: loaded at the first pinned,
    mapped or managed array, with NumPy)."""
    from . import hostarray  # lazy: host arrays (NumPy subclasses) load at the first pinned/mapped array

    return hostarray


def pinned_array(shape: int | Sequence[int], dtype: Any = float, strides: Sequence[int] | None = None,
                 order: str = "C") -> numpy.ndarray:
    """An uninitialized NumPy array in page-locked (pinned) host memory: its copies
    to and from the device are faster, and asynchronous on a stream.

    Parameters
    ----------
    shape : int or tuple of int
        The array's shape.
    dtype : dtype-like, optional
        Anything ``numpy.dtype`` takes (default: ``float``, i.e. float64).
    strides : tuple of int, optional
        Byte strides (default: contiguous in ``order``); negative strides are
        not supported.
    order : {"C", "F"}, optional
        Row-major (the default) or column-major layout, when ``strides`` is not given.

    Returns
    -------
    numpy.ndarray
        The array; the pinned memory is freed when it is collected.

    Raises
    ------
    ValueError
        A negative dimension or stride, strides not matching the shape, or an
        ``order`` other than ``"C"``/``"F"``.
    TypeError
        A dimension that is not an int, or a ``dtype`` NumPy does not accept.
    cudalite.driver.CudaDriverError
        The allocation (cuMemHostAlloc) fails or no device is usable.
    """
    shape = L.normalize_shape(shape)
    dtype = np.dtype(dtype)
    strides = _strides_for(shape, dtype, strides, order)
    nbytes = _nbytes(shape, dtype, strides)
    mem, ptr, _ = _host_alloc(nbytes)
    return _hostarray().host_array_over(ptr, nbytes, mem, shape, dtype, strides)


def pinned_array_like(ary: Any) -> numpy.ndarray:
    """An uninitialized pinned host array with the shape, dtype and order of ``ary``.

    Parameters
    ----------
    ary : array-like
        An array with ``shape``, ``dtype`` and ``flags`` (an F-contiguous, not
        C-contiguous array gives order "F"; otherwise "C").

    Returns
    -------
    numpy.ndarray
        See :func:`pinned_array`.

    Raises
    ------
    cudalite.driver.CudaDriverError
        The allocation fails or no device is usable.
    """
    return pinned_array(ary.shape, ary.dtype, strides=_strides_like(ary), order=_order_like(ary))


def mapped_array(shape: int | Sequence[int], dtype: Any = float, strides: Sequence[int] | None = None,
                 order: str = "C", stream: Any = 0, portable: bool = False, wc: bool = False) -> numpy.ndarray:
    """An uninitialized array in pinned host memory mapped into the device address
    space: kernels read and write it directly (zero-copy).

    Parameters
    ----------
    shape : int or tuple of int
        The array's shape.
    dtype : dtype-like, optional
        Anything ``numpy.dtype`` takes (default: ``float``, i.e. float64).
    strides : tuple of int, optional
        Byte strides (default: contiguous in ``order``); negative strides are
        not supported.
    order : {"C", "F"}, optional
        Row-major (the default) or column-major layout, when ``strides`` is not given.
    stream : Stream or int, optional
        Accepted for numba compatibility (unused).
    portable : bool, optional
        Pinned for every CUDA context, not only the current one.
    wc : bool, optional
        Write-combined memory: faster for the device to read and the host to
        write, very slow for the host to read.

    Returns
    -------
    MappedNDArray
        A NumPy array (host access) that kernels accept as a device array.

    Raises
    ------
    ValueError
        A negative dimension or stride, strides not matching the shape, or an
        ``order`` other than ``"C"``/``"F"``.
    TypeError
        A dimension that is not an int, or a ``dtype`` NumPy does not accept.
    cudalite.driver.CudaDriverError
        The allocation fails or no device is usable.
    """
    shape = L.normalize_shape(shape)
    dtype = np.dtype(dtype)
    strides = _strides_for(shape, dtype, strides, order)
    nbytes = _nbytes(shape, dtype, strides)
    mem, ptr, devptr = _host_alloc(nbytes, mapped=True, portable=portable, wc=wc)
    hostarray = _hostarray()
    MappedNDArray, host_array_over = hostarray.MappedNDArray, hostarray.host_array_over

    arr = host_array_over(ptr, nbytes, mem, shape, dtype, strides, cls=MappedNDArray)
    return arr._attach(ptr, devptr, max(nbytes, 1), mem, stream)


def mapped_array_like(ary: Any, stream: Any = 0, portable: bool = False, wc: bool = False) -> numpy.ndarray:
    """An uninitialized mapped array (see :func:`mapped_array`) with the shape, dtype
    and order of ``ary`` (an F-contiguous, not C-contiguous array gives order "F";
    otherwise "C").

    Parameters
    ----------
    ary : array-like
        The array whose shape, dtype and order to use.
    stream : Stream or int, optional
        Stream the array is associated with (default 0).
    portable : bool, optional
        Pinned for every context.
    wc : bool, optional
        Write-combined memory.

    Returns
    -------
    numpy.ndarray
        A host array whose memory the device can address.
    """
    return mapped_array(ary.shape, ary.dtype, strides=_strides_like(ary), order=_order_like(ary), stream=stream,
                        portable=portable, wc=wc)


def managed_array(shape: int | Sequence[int], dtype: Any = float, strides: Sequence[int] | None = None,
                  order: str = "C", stream: Any = 0, attach_global: bool = True) -> numpy.ndarray:
    """An uninitialized array in managed (unified) memory (cuMemAllocManaged),
    addressable from the host and from every device.

    Parameters
    ----------
    shape : int or tuple of int
        The array's shape.
    dtype : dtype-like, optional
        Anything ``numpy.dtype`` takes (default: ``float``, i.e. float64).
    strides : tuple of int, optional
        Byte strides (default: contiguous in ``order``); negative strides are
        not supported.
    order : {"C", "F"}, optional
        Row-major (the default) or column-major layout, when ``strides`` is not given.
    stream : Stream or int, optional
        Accepted for numba compatibility (unused).
    attach_global : bool, optional
        True (the default): accessible from any stream on any device
        (``CU_MEM_ATTACH_GLOBAL``); False: attached to the host
        (``CU_MEM_ATTACH_HOST``).

    Returns
    -------
    ManagedNDArray
        A NumPy array (host access) that kernels accept as a device array.
        Synchronize before reading on the host what a kernel wrote.

    Raises
    ------
    ValueError
        A negative dimension or stride, strides not matching the shape, or an
        ``order`` other than ``"C"``/``"F"``.
    TypeError
        A dimension that is not an int, or a ``dtype`` NumPy does not accept.
    cudalite.driver.CudaDriverError
        The allocation fails (e.g. managed memory is not supported) or no device
        is usable.
    """
    shape = L.normalize_shape(shape)
    dtype = np.dtype(dtype)
    strides = _strides_for(shape, dtype, strides, order)
    nbytes = _nbytes(shape, dtype, strides)
    mem = _managed_alloc(nbytes, attach_global)
    ptr = mem.ptr
    hostarray = _hostarray()
    ManagedNDArray, host_array_over = hostarray.ManagedNDArray, hostarray.host_array_over

    arr = host_array_over(ptr, nbytes, mem, shape, dtype, strides, cls=ManagedNDArray)
    return arr._attach(ptr, ptr, max(nbytes, 1), mem, stream)


def _host_span(ary):
    lo, hi = L.extent(ary.shape, ary.strides, ary.dtype.itemsize)
    return ary.__array_interface__["data"][0] + lo, hi - lo, lo


@contextlib.contextmanager
def pinned(*arylist: Any) -> Iterator[None]:
    """Page-lock the memory of existing NumPy arrays for the duration of a ``with``
    block (cuMemHostRegister), so that their copies are faster and asynchronous.

    Parameters
    ----------
    *arylist : numpy.ndarray
        The arrays (empty ones are skipped).

    Yields
    ------
    None

    Raises
    ------
    cudalite.driver.CudaDriverError
        Registering fails (e.g. the memory is already registered) or no device is
        usable; the arrays registered so far are unregistered.
    """
    registered = []
    try:
        for ary in arylist:
            ptr, nbytes, _ = _host_span(ary)
            if nbytes:
                registered.append(_host_pin(ary, ptr, nbytes, mapped=False)[0])
        yield
    finally:
        _unregister(registered)


@contextlib.contextmanager
def mapped(*arylist: Any, stream: Any = 0, portable: bool = False, wc: bool = False) -> Iterator[Any]:
    """Page-lock existing NumPy arrays and map them into the device address space
    for the duration of a ``with`` block; kernels access the host memory directly.

    Parameters
    ----------
    *arylist : numpy.ndarray
        The arrays.
    stream : Stream or int, optional
        The default stream of the yielded device arrays.
    portable : bool, optional
        Registered for every CUDA context, not only the current one.
    wc : bool, optional
        Accepted for numba compatibility (unused: registered memory is not
        write-combined).

    Yields
    ------
    DeviceNDArray or list of DeviceNDArray
        A device array over each host array (one array, or a list for several),
        valid until the block ends.

    Raises
    ------
    cudalite.driver.CudaDriverError
        Registering fails or no device is usable; the arrays registered so far
        are unregistered.
    """
    registered, devarys = [], []
    try:
        for ary in arylist:
            ptr, nbytes, lo = _host_span(ary)
            devptr = 0
            if nbytes:
                release, devptr = _host_pin(ary, ptr, nbytes, mapped=True, portable=portable)
                registered.append(release)
            devarys.append(DeviceNDArray(ary.shape, ary.strides, ary.dtype, stream, ptr=devptr - lo if nbytes else 0,
                                         owner=ary))
        yield devarys[0] if len(devarys) == 1 else devarys
    finally:
        _unregister(registered)


def _unregister(registered):
    """Undo every registration (``release()`` functions, in order), then raise the
    first error, if any."""
    first = None
    for release in registered:
        try:
            release()
        except Exception as exc:
            first = first or exc
    if first is not None:
        raise first


# -- interop -------------------------------------------------------------------------------------
def is_cuda_array(obj: object) -> bool:
    """Whether ``obj`` exposes ``__cuda_array_interface__`` (CuPy arrays, torch CUDA
    tensors, device arrays, ...).

    Parameters
    ----------
    obj : object
        Any object.

    Returns
    -------
    bool
        True when ``obj`` has the attribute (its value is not checked).
    """
    return hasattr(obj, "__cuda_array_interface__")


def as_cuda_array(obj: Any, sync: bool = True) -> DeviceNDArray:
    """A zero-copy device array over any object exposing ``__cuda_array_interface__``.

    Parameters
    ----------
    obj : object
        A CUDA array interface producer (CuPy array, torch CUDA tensor, ...); the
        result keeps it alive.
    sync : bool, optional
        Synchronize the producer's stream (interface v3 ``stream``) now, unless
        ``CUDALITE_CUDA_ARRAY_INTERFACE_SYNC=0``.  That stream becomes the
        array's default stream either way.

    Returns
    -------
    DeviceNDArray
        A view of ``obj``'s memory.

    Raises
    ------
    TypeError
        ``obj`` has no ``__cuda_array_interface__``.
    ValueError
        An unsupported interface version, or the invalid stream 0.
    NotImplementedError
        A masked array.
    """
    if not is_cuda_array(obj):
        raise TypeError("*obj* doesn't implement the cuda array interface.")
    return from_cuda_array_interface(obj.__cuda_array_interface__, owner=obj, sync=sync)


@contextlib.contextmanager
def open_ipc_array(handle: Any, shape: int | Sequence[int], dtype: Any, strides: Sequence[int] | None = None,
                   offset: int = 0) -> Iterator[DeviceNDArray]:
    """``with cuda.open_ipc_array(handle, shape, dtype) as arr:`` a device array over
    the memory of another process's CUDA IPC ``handle`` (64 bytes or a sequence of
    64 ints) at byte ``offset``; the mapping is closed when the block ends.
    ``strides``: default C-contiguous.  A process cannot open its own handles.

    Parameters
    ----------
    handle : bytes-like or sequence of int
        The 64-byte IPC handle.
    shape : int or tuple of int
        Shape of the array.
    dtype : numpy dtype-like
        Element type.
    strides : tuple of int, optional
        Byte strides (default C-contiguous).
    offset : int, optional
        Byte offset of the array in the shared allocation (default 0).

    Yields
    ------
    DeviceNDArray

    Raises
    ------
    CudaDriverError
        If the driver cannot open the handle (e.g. in the process that exported it).
    """
    dtype = np.dtype(dtype)
    shape = L.normalize_shape(shape)
    size = 1
    for n in shape:
        size *= n
    ipch = IpcHandle(None, handle, size * dtype.itemsize, offset=offset)
    arr = DeviceNDArray(shape, strides, dtype, gpu_data=ipch.open(current_context()))
    try:
        yield arr
    finally:
        ipch.close()
