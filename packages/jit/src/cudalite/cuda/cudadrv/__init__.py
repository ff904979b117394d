"""``cuda.cudadrv``: the numba.cuda.cudadrv names user code imports.

``cudadrv.driver`` (``CudaAPIError``, the EMM protocol, ``MemoryPointer``,
``IpcHandle``, ``get_version``, ...), ``cudadrv.error`` (``CudaSupportError``,
``CudaDriverError``, ``NvvmError``), ``cudadrv.devicearray`` (``DeviceNDArray``) and
``cudadrv.runtime``.  numba's driver internals (``driver.driver``, ctypes
bindings) are not provided: cudalite.driver is the driver layer.
"""

from . import devicearray, driver, error, runtime  # noqa: F401

__all__ = ["devicearray", "driver", "error", "runtime"]
