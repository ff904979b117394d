"""``cuda.cudadrv.devicearray``: numba's module path of the device array classes."""

from ..devicearray import DeviceNDArray, IpcArrayHandle, from_cuda_array_interface, is_device_array  # noqa: F401

__all__ = ["DeviceNDArray", "IpcArrayHandle", "from_cuda_array_interface", "is_device_array"]
