"""CUDA IPC: share a device allocation with another process of the same machine.

``ipc_get_handle(ptr)`` returns the 64 opaque bytes of a ``CUipcMemHandle`` for the
allocation that contains ``ptr`` (cuIpcGetMemHandle on its base address; pair it with
:func:`address_range` to know the offset of ``ptr`` in it).  Another process turns the
bytes back into a device pointer with ``ipc_open_handle(handle)`` and releases it with
``ipc_close_handle(ptr)``.  The driver refuses to open a handle in the process that
made it (``CUDA_ERROR_INVALID_CONTEXT``).  Handles are plain bytes: picklable.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import Any

from ._cu import call, cu
from ._state import get_driver
from .memory import device_pointer

__all__ = ["IPC_HANDLE_SIZE", "address_range", "ipc_get_handle", "ipc_open_handle", "ipc_close_handle"]

IPC_HANDLE_SIZE = 64
_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 1


def address_range(ptr: Any) -> tuple[int, int]:
    """``(base, size)`` of the device allocation that contains address ``ptr``
    (cuMemGetAddressRange).

    Parameters
    ----------
    ptr : int or DeviceMemory
        A device address, or an object holding one (see :func:`device_pointer`).

    Returns
    -------
    tuple of int
        ``(base address, size in bytes)``.

    Raises
    ------
    CudaDriverError
        If ``ptr`` is not in a device allocation.
    """
    get_driver().current()
    base, size = call("cuMemGetAddressRange", cu().CUdeviceptr(device_pointer(ptr)))
    return int(base), int(size)


def ipc_get_handle(ptr: Any) -> bytes:
    """The IPC handle (64 bytes) of the allocation whose *base* address is ``ptr``.

    Parameters
    ----------
    ptr : int or DeviceMemory
        The allocation's base address, or an object holding it.

    Returns
    -------
    bytes
        The opaque ``CUipcMemHandle``, 64 bytes.

    Raises
    ------
    CudaDriverError
        If the driver cannot export the allocation.
    """
    get_driver().current()
    handle = call("cuIpcGetMemHandle", cu().CUdeviceptr(device_pointer(ptr)))
    return ctypes.string_at(handle.getPtr(), IPC_HANDLE_SIZE)


def _as_handle_bytes(handle) -> bytes:
    data = bytes(bytearray(handle))  # bytes, bytearray, a sequence of ints (numba's tuple form)
    if len(data) != IPC_HANDLE_SIZE:
        raise ValueError(f"an IPC handle has {IPC_HANDLE_SIZE} bytes, not {len(data)}")
    return data


def ipc_open_handle(handle: bytes | Sequence[int]) -> int:
    """Map the allocation of another process's IPC ``handle`` (64 bytes, or a sequence
    of 64 ints) into the current context; returns its base device address.

    Parameters
    ----------
    handle : bytes-like or sequence of int
        The 64-byte handle from :func:`ipc_get_handle` in another process.

    Returns
    -------
    int
        The base device address of the mapped allocation.

    Raises
    ------
    ValueError
        If ``handle`` does not have 64 bytes.
    CudaDriverError
        If the driver refuses (e.g. a handle of this same process).
    """
    data = _as_handle_bytes(handle)
    get_driver().current()
    h = cu().CUipcMemHandle()
    ctypes.memmove(h.getPtr(), data, IPC_HANDLE_SIZE)
    return int(call("cuIpcOpenMemHandle", h, _CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS))


def ipc_close_handle(ptr: int) -> None:
    """Unmap memory opened with :func:`ipc_open_handle` (its base address).

    Parameters
    ----------
    ptr : int or DeviceMemory
        The base address :func:`ipc_open_handle` returned.
    """
    get_driver().current()
    call("cuIpcCloseMemHandle", cu().CUdeviceptr(device_pointer(ptr)))
