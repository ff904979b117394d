"""``cuda.cudadrv.error``: numba's driver-level exception names."""

from cudalite.core.errors import NvvmError  # noqa: F401
from cudalite.driver import CudaDriverError, CudaSupportError  # noqa: F401
from cudalite.linker import LinkerError, NvrtcError  # noqa: F401

__all__ = ["CudaDriverError", "CudaSupportError", "NvvmError", "NvrtcError", "LinkerError"]
