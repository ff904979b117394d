"""``cuda.cudadrv.devicearray``: numba's module path of the device array classes, and its
``from_array_like`` (an uninitialized device array shaped like a host array)."""

from ..devicearray import DeviceNDArray, IpcArrayHandle, from_cuda_array_interface, is_device_array  # noqa: F401
from .._memory.api import device_array_like

__all__ = ["DeviceNDArray", "IpcArrayHandle", "from_cuda_array_interface", "is_device_array", "from_array_like"]


def from_array_like(ary, stream=0, gpu_data=None):
    """A device array with ``ary``'s shape, strides and dtype (its memory ``gpu_data``
    when given, else newly allocated and uninitialized), as numba's."""
    if gpu_data is not None:
        return DeviceNDArray(ary.shape, ary.strides, ary.dtype, stream=stream, gpu_data=gpu_data)
    return device_array_like(ary, stream=stream)

