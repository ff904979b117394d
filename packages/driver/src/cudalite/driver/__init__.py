"""cudalite.driver: the CUDA driver layer of cudalite (devices, contexts, memory,
streams, events, modules, fast kernel launch) over ``cuda.bindings.driver``.

Importing it touches no GPU and does not import cuda.bindings: the driver is
initialized (cuInit) on first use.  It knows nothing of Python typing or codegen.
"""

from .device import Device, current_device, device_count, get_device, memory_info, set_current_device
from .errors import CudaDriverError
from .launch import Launcher, launch, launch_cooperative
from .memory import (
    DeviceMemory,
    HostMemory,
    alloc,
    alloc_host,
    copy_device_to_device,
    copy_device_to_host,
    copy_host_to_device,
    device_pointer,
    memset,
    memset_d32,
)
from .module import Function, Module, load_module
from .params import ParamLayout, pack_params, param_layout
from .stream import Event, Stream, elapsed_time

__all__ = [
    "CudaDriverError",
    "Device", "device_count", "get_device", "set_current_device", "current_device", "memory_info",
    "DeviceMemory", "HostMemory", "alloc", "alloc_host", "memset", "memset_d32",
    "copy_host_to_device", "copy_device_to_host", "copy_device_to_device", "device_pointer",
    "Stream", "Event", "elapsed_time",
    "Module", "Function", "load_module",
    "Launcher", "launch", "launch_cooperative",
    "ParamLayout", "param_layout", "pack_params",
]
