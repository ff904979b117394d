"""``cuda.cudadrv.driver``: numba's driver-module names that user code and EMM
plugins use, over cudalite's implementations.

``driver`` is numba's driver object: ``driver.cuMemAlloc(n)`` is the checked
cuda.bindings call, and assigning ``driver.cuMemcpyHtoD = f`` routes cudalite's own
calls of that function through ``f`` until the attribute is deleted.  ``Stream``,
``Event`` and ``Device`` are the classes ``cuda.stream()``, ``cuda.event()`` and
``cuda.gpus`` hand out (patching ``Stream.synchronize`` reaches the synchronization
of imported ``__cuda_array_interface__`` arrays, as in numba)."""

from __future__ import annotations

from cudalite.driver import (  # noqa: F401
    CudaDriverError,
    CudaSupportError,
    address_range,
    driver_version,
    profile_start,
    profile_stop,
)
import cudalite.driver as _drv
from cudalite.driver import device_pointer as drv_pointer
from cudalite.driver import driver_api as driver  # noqa: F401
from cudalite.linker import LinkerError  # noqa: F401

from .._runtime.context import Context, profiling  # noqa: F401
from .._memory.emm import (  # noqa: F401
    AutoFreePointer,
    BaseCUDAMemoryManager,
    GetIpcHandleMixin,
    HostOnlyCUDAMemoryManager,
    IpcHandle,
    ManagedMemory,
    MappedMemory,
    MemoryInfo,
    MemoryPointer,
    OwnedPointer,
    PinnedMemory,
    set_memory_manager,
)
from .._runtime.api import Device, Event, Stream, driver_stream  # noqa: F401
from ..errors import CudaAPIError  # noqa: F401

__all__ = [
    "CudaAPIError", "CudaDriverError", "CudaSupportError", "LinkerError", "Context", "AutoFreePointer",
    "BaseCUDAMemoryManager", "GetIpcHandleMixin", "HostOnlyCUDAMemoryManager", "ManagedMemory", "MappedMemory",
    "MemoryInfo", "MemoryPointer", "OwnedPointer", "PinnedMemory", "IpcHandle", "set_memory_manager",
    "get_version", "profile_start", "profile_stop", "profiling", "device_extents", "device_pointer",
    "device_memory_size", "driver", "Stream", "Event", "Device", "device_to_host", "host_to_device",
    "device_to_device",
]


def _copy_stream(stream):
    return None if stream is None or (isinstance(stream, int) and stream == 0) else driver_stream(stream)


def device_to_host(dst, src, size, stream=0):
    """Copy ``size`` bytes from device ``src`` (a MemoryPointer, a device array or an int
    address) to host buffer ``dst`` (numba's ``driver.device_to_host``); asynchronous on
    ``stream`` when given."""
    _drv.copy_device_to_host(dst, device_pointer(src), size, stream=_copy_stream(stream))


def host_to_device(dst, src, size, stream=0):
    """Copy ``size`` bytes from host buffer ``src`` to device ``dst`` (numba's
    ``driver.host_to_device``)."""
    _drv.copy_host_to_device(device_pointer(dst), src, size, stream=_copy_stream(stream))


def device_to_device(dst, src, size, stream=0):
    """Copy ``size`` bytes between device buffers (numba's ``driver.device_to_device``)."""
    _drv.copy_device_to_device(device_pointer(dst), device_pointer(src), size, stream=_copy_stream(stream))


def device_pointer(obj):
    """The int device address of a MemoryPointer, a device array or an int."""
    ptr = getattr(obj, "device_pointer", None)
    if ptr is not None and not callable(ptr):
        return int(ptr)
    dev = getattr(obj, "_ptr", None)
    if isinstance(dev, int):
        return dev

    return drv_pointer(obj)


def device_extents(devmem):
    """``(start, end)`` of the device allocation that contains ``devmem`` (numba's
    helper, used by EMM plugins' ``get_ipc_handle``)."""

    base, size = address_range(device_pointer(devmem))
    return base, base + size


def device_memory_size(devmem):
    """The size in bytes of ``devmem`` (its ``size``, else its allocation's)."""
    size = getattr(devmem, "size", None)
    if isinstance(size, int) and not hasattr(devmem, "dtype"):
        return size
    start, end = device_extents(devmem)
    return end - start


def get_version():
    """``(major, minor)`` of the CUDA version the installed driver supports."""

    return driver_version()
