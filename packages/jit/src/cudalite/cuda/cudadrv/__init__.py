"""``cuda.cudadrv``: the numba.cuda.cudadrv names user code imports.

``cudadrv.driver`` (``CudaAPIError``, the EMM protocol, ``MemoryPointer``,
``IpcHandle``, ``get_version``, ...), ``cudadrv.error`` (``CudaSupportError``,
``CudaDriverError``, ``NvvmError``), ``cudadrv.devicearray`` (``DeviceNDArray``),
``cudadrv.runtime`` and ``cudadrv.devices`` (``gpus``, ``get_context``).  ``driver.driver``
is cudalite's checked cuda.bindings API
(overridable per function, as numba's); numba's ctypes bindings are not provided:
cudalite.driver is the driver layer.
"""

from . import devicearray, devices, driver, error, runtime  # noqa: F401

__all__ = ["devicearray", "devices", "driver", "error", "runtime"]
