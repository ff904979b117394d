"""``cuda.cudadrv.driver``: numba's driver-module names that user code and EMM
plugins use, over cudalite's implementations."""

from __future__ import annotations

from cudalite.driver import CudaDriverError, CudaSupportError, profile_start, profile_stop  # noqa: F401
from cudalite.linker import LinkerError  # noqa: F401

from .._context_api import Context, profiling  # noqa: F401
from .._emm import (  # noqa: F401
    AutoFreePointer, BaseCUDAMemoryManager, GetIpcHandleMixin, HostOnlyCUDAMemoryManager, ManagedMemory,
    MappedMemory, MemoryInfo, MemoryPointer, OwnedPointer, PinnedMemory, set_memory_manager,
)
from .._ipc import IpcHandle  # noqa: F401
from ..errors import CudaAPIError  # noqa: F401

__all__ = [
    "CudaAPIError", "CudaDriverError", "CudaSupportError", "LinkerError", "Context", "AutoFreePointer",
    "BaseCUDAMemoryManager", "GetIpcHandleMixin", "HostOnlyCUDAMemoryManager", "ManagedMemory", "MappedMemory",
    "MemoryInfo", "MemoryPointer", "OwnedPointer", "PinnedMemory", "IpcHandle", "set_memory_manager",
    "get_version", "profile_start", "profile_stop", "profiling",
]


def get_version():
    """``(major, minor)`` of the CUDA version the installed driver supports."""
    from cudalite.driver import driver_version

    return driver_version()
