"""numba.cuda's memory API: device, pinned, mapped and managed arrays; interop.

``to_device``, ``device_array``, ``device_array_like``, ``pinned_array``,
``pinned_array_like``, ``mapped_array``, ``managed_array``, the ``pinned``/``mapped``
context managers (page-locking existing NumPy arrays with cuMemHostRegister),
``as_cuda_array``, ``is_cuda_array`` and ``from_cuda_array_interface``.  Every driver
call (allocation, copies, managed memory, host registration, mapped device pointers)
goes through the public API of :mod:`cudalite.driver`.
"""

from __future__ import annotations

import contextlib

from cudalite.core.numpy_support import lazy_numpy as np  # NumPy loads on first use

import cudalite.driver as _drv

from . import _array_layout as L
from .devicearray import DeviceNDArray, from_cuda_array_interface, is_device_array

__all__ = [
    "to_device", "device_array", "device_array_like", "pinned_array", "pinned_array_like",
    "mapped_array", "managed_array", "pinned", "mapped", "as_cuda_array", "is_cuda_array",
    "from_cuda_array_interface",
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


def _nbytes(shape, dtype, strides):
    lo, hi = L.extent(shape, strides, dtype.itemsize)
    if lo < 0:
        raise ValueError("negative strides are not supported for allocation")
    return hi


# -- device arrays ------------------------------------------------------------------------------
def device_array(shape, dtype=float, strides=None, order="C", stream=0):
    """An uninitialized :class:`DeviceNDArray`."""
    shape = L.normalize_shape(shape)
    dtype = np.dtype(dtype)
    return DeviceNDArray(shape, _strides_for(shape, dtype, strides, order), dtype, stream=stream)


def device_array_like(ary, stream=0):
    """An uninitialized device array with the shape, dtype and order of ``ary``."""
    order = _order_like(ary) if hasattr(ary, "flags") else "C"
    return device_array(ary.shape, ary.dtype, order=order, stream=stream)


def to_device(obj, stream=0, copy=True, to=None):
    """Copy a NumPy array (or anything ``numpy.asarray`` takes) to the device.

    Device arrays are returned as they are; objects with ``__cuda_array_interface__``
    are wrapped without a copy.  With ``to=``, copy into that device array."""
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
def pinned_array(shape, dtype=float, strides=None, order="C"):
    """A NumPy array in page-locked host memory (fast, asynchronous copies)."""
    shape = L.normalize_shape(shape)
    dtype = np.dtype(dtype)
    strides = _strides_for(shape, dtype, strides, order)
    nbytes = _nbytes(shape, dtype, strides)
    mem = _drv.alloc_host(nbytes)
    from ._hostarray import host_array_over  # defines an ndarray subclass: needs NumPy

    return host_array_over(mem.ptr, nbytes, mem, shape, dtype, strides)


def pinned_array_like(ary):
    return pinned_array(ary.shape, ary.dtype, order=_order_like(ary))


def mapped_array(shape, dtype=float, strides=None, order="C", stream=0, portable=False, wc=False):
    """A :class:`MappedNDArray`: pinned host memory the device reads and writes directly."""
    shape = L.normalize_shape(shape)
    dtype = np.dtype(dtype)
    strides = _strides_for(shape, dtype, strides, order)
    nbytes = _nbytes(shape, dtype, strides)
    mem = _drv.alloc_host(nbytes, portable=portable, mapped=True, write_combined=wc)
    devptr = _drv.host_device_pointer(mem)
    from ._hostarray import MappedNDArray, host_array_over

    arr = host_array_over(mem.ptr, nbytes, mem, shape, dtype, strides, cls=MappedNDArray)
    return arr._attach(mem.ptr, devptr, max(nbytes, 1), mem)


def managed_array(shape, dtype=float, strides=None, order="C", stream=0, attach_global=True):
    """A :class:`ManagedNDArray` in unified memory (cuMemAllocManaged), addressable
    from the host and every device."""
    shape = L.normalize_shape(shape)
    dtype = np.dtype(dtype)
    strides = _strides_for(shape, dtype, strides, order)
    nbytes = _nbytes(shape, dtype, strides)
    mem = _drv.alloc_managed(nbytes, attach_global=attach_global)  # freed (cuMemFree) with the array
    ptr = mem.ptr
    from ._hostarray import ManagedNDArray, host_array_over

    arr = host_array_over(ptr, nbytes, mem, shape, dtype, strides, cls=ManagedNDArray)
    return arr._attach(ptr, ptr, max(nbytes, 1), mem)


def _host_span(ary):
    lo, hi = L.extent(ary.shape, ary.strides, ary.dtype.itemsize)
    return ary.__array_interface__["data"][0] + lo, hi - lo, lo


@contextlib.contextmanager
def pinned(*arylist):
    """Page-lock the memory of NumPy arrays for the duration of the ``with`` block."""
    registered = []
    try:
        for ary in arylist:
            ptr, nbytes, _ = _host_span(ary)
            if nbytes:
                registered.append(_drv.register_host(ptr, nbytes))
        yield
    finally:
        _unregister(registered)


@contextlib.contextmanager
def mapped(*arylist, stream=0, portable=False, wc=False):
    """Page-lock and map NumPy arrays into the device address space; yields device
    arrays over them (one array, or a list for several)."""
    registered, devarys = [], []
    try:
        for ary in arylist:
            ptr, nbytes, lo = _host_span(ary)
            devptr = 0
            if nbytes:
                reg = _drv.register_host(ptr, nbytes, portable=portable, mapped=True)
                registered.append(reg)
                devptr = reg.device_ptr
            devarys.append(DeviceNDArray(ary.shape, ary.strides, ary.dtype, stream, ptr=devptr - lo if nbytes else 0,
                                         owner=ary))
        yield devarys[0] if len(devarys) == 1 else devarys
    finally:
        _unregister(registered)


def _unregister(registered):
    """Undo every registration (in order), then raise the first error, if any."""
    first = None
    for reg in registered:
        try:
            reg.unregister()
        except Exception as exc:
            first = first or exc
    if first is not None:
        raise first


# -- interop -------------------------------------------------------------------------------------
def is_cuda_array(obj):
    """True when ``obj`` exposes ``__cuda_array_interface__``."""
    return hasattr(obj, "__cuda_array_interface__")


def as_cuda_array(obj, sync=True):
    """A zero-copy :class:`DeviceNDArray` over any object exposing
    ``__cuda_array_interface__`` (kept alive by the result)."""
    if not is_cuda_array(obj):
        raise TypeError("*obj* doesn't implement the cuda array interface.")
    return from_cuda_array_interface(obj.__cuda_array_interface__, owner=obj, sync=sync)
