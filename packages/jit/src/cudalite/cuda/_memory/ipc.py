"""CUDA IPC memory handles: numba's picklable ``IpcHandle``.

``ctx.get_ipc_handle(memory)`` (the memory manager's, :class:`.emm.GetIpcHandleMixin`)
makes one in the exporting process; pickled, it carries the 64-byte
``CUipcMemHandle``, the size, the offset of the memory in its allocation and the
exporting device's identity (PCI domain/bus/device), never the memory itself
(``base`` is None once unpickled).  In another process:

* :meth:`IpcHandle.open_direct` maps the allocation (cuIpcOpenMemHandle) on the given
  context's device: a :class:`~cudalite.cuda.MemoryPointer` at the offset;
* :meth:`IpcHandle.open_staged` maps it on the exporting device and copies it into a
  new allocation of the given context (cuMemcpyPeer: staged through the host by the
  driver where the devices cannot reach each other), then unmaps it;
* :meth:`IpcHandle.open` picks direct when the context's device is the exporting one
  or a peer of it (or the identity is unknown), staged otherwise;
* :meth:`IpcHandle.open_array` is ``open`` viewed as a device array.

A handle is opened once at a time (``close()`` before opening again).
"""

from __future__ import annotations

import ctypes
import operator
import sys

import cudalite.driver as _drv
from cudalite.core.numpy_support import lazy_numpy as np

from .._runtime.api import gpus, list_devices
from . import layout as L

__all__ = ["IpcMemHandle", "IpcHandle", "handle_bytes"]


class IpcMemHandle(bytes):
    """The 64 bytes of a ``CUipcMemHandle``; ``.reserved`` is them as plain bytes (the
    field numba's ``IpcHandle.handle.reserved`` reads to send a handle elsewhere)."""

    __slots__ = ()

    @property
    def reserved(self) -> bytes:
        return bytes(self)


def handle_bytes(handle) -> bytes:
    """The 64 bytes of an IPC handle given as bytes, a sequence of ints, a ctypes
    byte array or a cuda.bindings ``CUipcMemHandle`` (what plugins pass)."""
    get_ptr = getattr(handle, "getPtr", None)
    if get_ptr is not None:
        return ctypes.string_at(get_ptr(), 64)
    reserved = getattr(handle, "reserved", None)  # older cuda-bindings CUipcMemHandle
    if reserved is not None:
        handle = reserved
    return bytes(bytearray(bytes(handle) if not isinstance(handle, (list, tuple)) else [b & 0xFF for b in handle]))


def _device_with_identity(info) -> int:
    """The ordinal of this process's device whose identity (``get_device_identity()``)
    is ``info``; RuntimeError naming it when there is none."""
    for dev in list_devices():
        if dev.get_device_identity() == info:
            return dev.id
    raise RuntimeError(f"the IPC handle was exported from the device {info}, which this process cannot see "
                       "(check CUDA_VISIBLE_DEVICES)")


class IpcHandle:
    """A CUDA IPC memory handle: ``IpcHandle(base, handle, size, source_info=None,
    offset=0)`` as numba's.  ``handle`` is the 64-byte ``CUipcMemHandle``; ``base``
    keeps the exported memory alive in the exporting process (None once pickled);
    ``offset`` is the position of the shared memory in its allocation.

    Parameters
    ----------
    base : object or None
        The exported memory (None in the importing process).
    handle : bytes, sequence of int or CUipcMemHandle
        The 64-byte handle.
    size : int
        Size of the shared memory in bytes.
    source_info : dict, optional
        Identity of the exporting device (``Device.get_device_identity()``).
    offset : int, optional
        Offset of the shared memory in its allocation (default 0).
    """

    def __init__(self, base, handle, size, source_info=None, offset=0):
        self.base = base
        self.handle = IpcMemHandle(handle_bytes(handle))
        self.size = size
        self.source_info = source_info
        self.offset = offset
        self._close = None  # set while open: undoes the opening

    def _check_openable(self, context):
        if self.base is not None:
            raise ValueError("opening IpcHandle from original process")
        if self._close is not None:
            raise ValueError("IpcHandle is already opened")
        if context is None:
            raise TypeError("IpcHandle.open(context): pass cuda.current_context()")

    def _source_device(self) -> int:
        if self.source_info is None:
            raise RuntimeError("IPC handle doesn't have source info")
        return _device_with_identity(self.source_info)

    def can_access_peer(self, context):
        """Whether ``context``'s device can map the memory directly: it is the exporting
        device, or a peer of it.

        Parameters
        ----------
        context : Context
            The receiving context (``cuda.current_context()``).

        Returns
        -------
        bool

        Raises
        ------
        RuntimeError
            The handle has no source identity.
        """
        if self.source_info is None:
            raise RuntimeError("IPC handle doesn't have source info")
        if self.source_info == context.device.get_device_identity():
            return True
        return context.can_access_peer(self._source_device())

    def open_direct(self, context):
        """Map the memory into this process on ``context``'s device: a MemoryPointer at
        ``offset`` (valid until :meth:`close`).

        Parameters
        ----------
        context : Context
            The receiving context (``cuda.current_context()``).

        Returns
        -------
        MemoryPointer

        Raises
        ------
        ValueError
            In the exporting process, or if the handle is already open.
        TypeError
            If ``context`` is None.
        """
        self._check_openable(context)
        mapping = context.open_ipc_handle(self.handle, self.offset + self.size)
        self._close = mapping.free
        return mapping.view(self.offset)

    def open_staged(self, context):
        """A copy of the memory in a new allocation of ``context``: mapped on the
        exporting device, copied (cuMemcpyPeer, staged through the host when the devices
        cannot reach each other) and unmapped again.  The copy is the caller's: it lives
        as long as the returned MemoryPointer, and :meth:`close` only marks the handle
        closed.

        Parameters
        ----------
        context : Context
            The receiving context (``cuda.current_context()``).

        Returns
        -------
        MemoryPointer
            The new allocation (from ``context.memalloc``).

        Raises
        ------
        RuntimeError
            The handle has no source identity, or no device of this process has it.
        ValueError
            In the exporting process, or if the handle is already open.
        """
        src = self._source_device()
        self._check_openable(context)
        copy = context.memalloc(self.size)
        if self.size:
            dst = copy.ptr if hasattr(copy, "ptr") else int(copy.device_pointer)
            with gpus[src]:  # mapped, read and unmapped on the exporting device
                base = _drv.ipc_open_handle(self.handle)
                try:
                    _drv.copy_peer(dst, context.device.id, base + self.offset, src, self.size)
                finally:
                    _drv.ipc_close_handle(base)
        self._close = _nothing
        return copy

    def open(self, context):
        """Map the memory for ``context``: :meth:`open_direct` when its device is the
        exporting one or a peer of it (or the handle has no source identity),
        :meth:`open_staged` otherwise.

        Parameters
        ----------
        context : Context
            The receiving context (``cuda.current_context()``).

        Returns
        -------
        MemoryPointer

        Raises
        ------
        ValueError
            In the exporting process, or if the handle is already open.
        TypeError
            If ``context`` is None.
        """
        self._check_openable(context)
        if self.source_info is None or self.can_access_peer(context):
            return self.open_direct(context)
        return self.open_staged(context)

    def open_array(self, context, shape, dtype, strides=None):
        """:meth:`open` seen as a device array of ``shape`` and ``dtype`` (``strides``
        in bytes; default C-contiguous) over the memory, valid until :meth:`close`.

        Parameters
        ----------
        context : Context
            The receiving context (``cuda.current_context()``).
        shape : int or tuple of int
            Shape of the array.
        dtype : numpy dtype-like
            Element type.
        strides : int or tuple of int, optional
            Byte strides (an int for one dimension, as numba's); default C-contiguous.

        Returns
        -------
        DeviceNDArray

        Raises
        ------
        ValueError
            The array would reach past the handle's ``size`` bytes (or as :meth:`open`).
        """
        dtype = np.dtype(dtype)
        shape = L.normalize_shape(shape)
        if strides is None:
            strides = L.c_strides(shape, dtype.itemsize)
        else:  # numba's default for one dimension is an int (the itemsize)
            strides = tuple(operator.index(s) for s in (strides if isinstance(strides, (tuple, list)) else (strides,)))
        if len(strides) != len(shape):
            raise ValueError(f"strides {strides} do not match shape {shape}")
        lo, hi = L.extent(shape, strides, dtype.itemsize)
        if lo < 0 or hi > self.size:
            raise ValueError(f"an array of shape {shape}, strides {strides} and dtype {dtype} spans bytes "
                             f"[{lo}, {hi}), outside the {self.size} bytes of the IPC handle")
        memory = self.open(context)
        # cudalite.cuda.devicearray is loaded whenever cudalite.cuda is (the package imports it before
        # any IPC handle can exist); read it from sys.modules: importing it here would close an import
        # cycle (devicearray -> context -> emm -> ipc)
        devicearray = sys.modules["cudalite.cuda.devicearray"]
        return devicearray.DeviceNDArray(shape, strides, dtype, gpu_data=memory)

    def close(self):
        """Unmap the memory (arrays opened over it become invalid); after
        :meth:`open_staged`, only marks the handle closed."""
        if self._close is None:
            raise ValueError("IpcHandle not opened")
        close, self._close = self._close, None
        close()

    def __reduce__(self):
        return (_rebuild_ipc_handle, (bytes(self.handle), self.size, self.source_info, self.offset))

    def __repr__(self):
        return f"<IpcHandle size={self.size} offset={self.offset}>"


def _nothing():
    pass


def _rebuild_ipc_handle(handle, size, source_info, offset):
    return IpcHandle(None, handle, size, source_info, offset=offset)
