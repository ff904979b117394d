"""CUDA IPC for device arrays (numba's API): share an array with another process.

``d.get_ipc_handle()`` (:func:`array_ipc_handle`) returns a picklable
:class:`IpcArrayHandle`; the receiving process calls ``h.open()`` (or ``with h as
arr:``) to get a device array over the same memory and ``h.close()`` when done.
:func:`open_ipc_array` opens raw handle bytes with a shape and dtype.  The handle is
made by the context's memory manager (``get_ipc_handle``), so EMM plugins take part
as in numba.  The CUDA driver does not let a process open its own handles.

Difference from numba: a handle made on another device is opened directly (the
driver enables peer access lazily); numba's host-staged copy for devices without
peer access is not implemented.
"""

from __future__ import annotations

import contextlib

from cudalite.core.numpy_support import lazy_numpy as np

from . import _array_layout as L

__all__ = ["IpcHandle", "IpcArrayHandle", "open_ipc_array", "array_ipc_handle", "handle_bytes"]


def handle_bytes(handle) -> bytes:
    """The 64 bytes of an IPC handle given as bytes, a sequence of ints, a ctypes
    byte array or a cuda.bindings ``CUipcMemHandle`` (what plugins pass)."""
    get_ptr = getattr(handle, "getPtr", None)
    if get_ptr is not None:
        import ctypes

        return ctypes.string_at(get_ptr(), 64)
    reserved = getattr(handle, "reserved", None)  # older cuda-bindings CUipcMemHandle
    if reserved is not None:
        handle = reserved
    return bytes(bytearray(bytes(handle) if not isinstance(handle, (list, tuple)) else [b & 0xFF for b in handle]))


class IpcHandle:
    """A CUDA IPC memory handle: ``IpcHandle(base, handle, size, source_info=None,
    offset=0)`` as numba's.  ``handle`` is the 64-byte ``CUipcMemHandle``; ``base``
    keeps the exported memory alive in the exporting process (None once pickled);
    ``offset`` is the position of the shared memory in its allocation."""

    def __init__(self, base, handle, size, source_info=None, offset=0):
        self.base = base
        self.handle = handle_bytes(handle)
        self.size = size
        self.source_info = source_info
        self.offset = offset
        self._opened = None

    def open(self, context=None):
        """Map the memory into this process; returns a MemoryPointer at ``offset``."""
        if self.base is not None:
            raise ValueError("opening IpcHandle from original process")
        if self._opened is not None:
            raise ValueError("IpcHandle is already opened")
        if context is None:
            from ._context_api import current_context

            context = current_context()
        self._opened = context.open_ipc_handle(self.handle, self.offset + self.size)
        return self._opened.view(self.offset)

    open_direct = open

    def open_array(self, context, shape, dtype, strides=None):
        """:meth:`open`, seen as a device array of ``shape``/``dtype`` (``strides``:
        default C-contiguous)."""
        from .devicearray import DeviceNDArray

        return DeviceNDArray(shape, strides, np.dtype(dtype), gpu_data=self.open(context))

    def close(self):
        """Unmap the memory (arrays opened over it become invalid)."""
        if self._opened is None:
            raise ValueError("IpcHandle not opened")
        self._opened.free()
        self._opened = None

    def __reduce__(self):
        return (_rebuild_ipc_handle, (self.handle, self.size, self.source_info, self.offset))

    def __repr__(self):
        return f"<IpcHandle size={self.size} offset={self.offset}>"


def _rebuild_ipc_handle(handle, size, source_info, offset):
    return IpcHandle(None, handle, size, source_info, offset=offset)


class IpcArrayHandle:
    """A picklable IPC handle of a device array: ``open()`` / ``close()``, or ``with
    handle as array:`` in the receiving process."""

    def __init__(self, ipc_handle, array_desc):
        self._ipc_handle = ipc_handle
        self._array_desc = array_desc

    def open(self):
        """A device array over the exported memory (this process must not be the
        exporting one)."""
        from .devicearray import DeviceNDArray

        d = self._array_desc
        return DeviceNDArray(d["shape"], d["strides"], d["dtype"], gpu_data=self._ipc_handle.open())

    def close(self):
        self._ipc_handle.close()

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc):
        self.close()


def array_ipc_handle(ary):
    """``DeviceNDArray.get_ipc_handle()``: an :class:`IpcArrayHandle` for the memory
    the array spans (made by the current context's memory manager)."""
    from ._context_api import current_context
    from ._emm import MemoryPointer

    ctx = current_context()
    lo, hi = L.extent(ary.shape, ary.strides, ary.dtype.itemsize)
    start = ary._ptr + lo
    mem = ary.gpu_data
    if not (isinstance(mem, MemoryPointer) and mem.ptr == start and mem.size == hi - lo):
        mem = MemoryPointer(ctx, start, hi - lo, owner=ary.gpu_data)
    handle = ctx.get_ipc_handle(mem)
    return IpcArrayHandle(handle, {"shape": ary.shape, "strides": ary.strides, "dtype": ary.dtype})


@contextlib.contextmanager
def open_ipc_array(handle, shape, dtype, strides=None, offset=0):
    """``with cuda.open_ipc_array(handle, shape, dtype) as arr:`` a device array over
    the memory of another process's IPC ``handle`` (64 bytes or a sequence of 64
    ints) at byte ``offset``; closed when the block ends.  ``strides``: default
    C-contiguous."""
    dtype = np.dtype(dtype)
    shape = L.normalize_shape(shape)
    size = int(np.prod(shape)) * dtype.itemsize
    ipch = IpcHandle(None, handle, size, offset=offset)
    from ._context_api import current_context

    arr = ipch.open_array(current_context(), shape, dtype, strides)
    try:
        yield arr
    finally:
        ipch.close()
