"""cudalite.driver: the CUDA driver layer of cudalite (devices, contexts, memory,
streams, events, modules, fast kernel launch) over ``cuda.bindings.driver``.

Importing it touches no GPU and does not import cuda.bindings: the driver is
initialized (cuInit) on first use.  It knows nothing of Python typing or codegen.
It is the only cudalite package that calls the CUDA driver.
"""

from .device import (
    Device, current_device, current_device_id, current_device_reader, device_count, get_device, memory_info,
    set_current_device, synchronize,
)
from .errors import CudaDriverError, CudaSupportError, ShimFallbackWarning
from .ipc import address_range, ipc_close_handle, ipc_get_handle, ipc_open_handle
from .profiler import driver_version, profile_start, profile_stop
from .backends import load_launch_backend
from .launch import Launcher
from .generic import launch, launch_cooperative
from .launchconfig import LaunchConfig
from ._shim import compiled_shim_path
from .cachedir import remove_shim_builds
from .memory import (
    DeviceMemory,
    HostMemory,
    ManagedMemory,
    alloc,
    alloc_host,
    alloc_managed,
    copy_device_to_device,
    copy_device_to_host,
    copy_host_to_device,
    device_pointer,
)
from .fill import memset, memset_d32
from .peer import can_access_peer, copy_peer, enable_peer_access
from .pool import DevicePool, memory_pool
from .pooled import alloc_pooled
from .module import Function, Module, load_module
from .params import ParamLayout, pack_params, param_layout
from .pointer import PointerAttributes, pointer_attributes
from .registration import HostRegistration, host_device_pointer, register_host
from ._cu import api as driver_api
from .stream import Event, Stream, add_callback, elapsed_time, stream_device

__version__ = "0.1.0"  # the distribution's version (pyproject.toml)
__all__ = [
    "CudaDriverError", "CudaSupportError", "ShimFallbackWarning", "driver_api",
    "address_range", "ipc_get_handle", "ipc_open_handle", "ipc_close_handle",
    "profile_start", "profile_stop", "driver_version",
    "Device", "device_count", "get_device", "set_current_device", "current_device", "current_device_id",
    "current_device_reader", "memory_info", "synchronize", "can_access_peer", "enable_peer_access",
    "DeviceMemory", "HostMemory", "ManagedMemory", "alloc", "alloc_host", "alloc_managed", "alloc_pooled",
    "memset", "memset_d32",
    "DevicePool", "memory_pool",
    "copy_host_to_device", "copy_device_to_host", "copy_device_to_device", "copy_peer", "device_pointer",
    "HostRegistration", "register_host", "host_device_pointer",
    "PointerAttributes", "pointer_attributes",
    "Stream", "Event", "elapsed_time", "add_callback", "stream_device",
    "Module", "Function", "load_module",
    "LaunchConfig", "Launcher", "launch", "launch_cooperative", "load_launch_backend", "compiled_shim_path",
    "remove_shim_builds",
    "ParamLayout", "param_layout", "pack_params",
]
