"""``cuda.errors``: the exceptions a numba.cuda program may catch, in one place.

* runtime: :class:`KernelRuntimeError` (numba's, with ``tid``/``ctaid``),
  :class:`~cudalite.driver.CudaSupportError` (no driver or no device),
  :class:`~cudalite.driver.CudaDriverError` (a failed driver call; numba's
  ``CudaAPIError`` is the same class), :class:`~cudalite.cuda.KernelFaultError`;
* compiler: the located error family of :mod:`cudalite.core.errors`
  (``CompilerError``, ``TypingError``, ``UnsupportedError``, ``LoweringError``, ...);
* numba's names: ``NumbaError`` (cudalite's base error) and numba's warning classes
  (``NumbaWarning``, ``NumbaPerformanceWarning``, ``NumbaInvalidConfigWarning``,
  ``NumbaDebugInfoWarning``...; defined in :mod:`cudalite.core.errors`);
* launch: :data:`missing_launch_config_msg` and :func:`normalize_kernel_dimensions`.
"""

from __future__ import annotations

import numbers
from typing import Any

from cudalite.core.errors import (  # noqa: F401  (the compiler's located errors)
    CompilerError, CudaliteError, InternalCompilerError, LoweringError, NvvmError, SignatureError, SourceError,
    TypingError, UnsupportedError,
)
from cudalite.core.errors import (  # noqa: F401  (numba's warning classes)
    NumbaDebugInfoWarning, NumbaDeprecationWarning, NumbaExperimentalFeatureWarning, NumbaInvalidConfigWarning,
    NumbaIRAssumptionWarning, NumbaParallelSafetyWarning, NumbaPedanticWarning, NumbaPendingDeprecationWarning,
    NumbaPerformanceWarning, NumbaSystemWarning, NumbaTypeSafetyWarning, NumbaWarning,
)
from cudalite.driver import CudaDriverError, CudaSupportError  # noqa: F401

from ._runtime.faults import KernelFaultError  # noqa: F401

__all__ = [
    "KernelRuntimeError", "DeviceFunctionLaunchError", "CudaSupportError", "CudaDriverError", "CudaAPIError",
    "KernelFaultError",
    "CudaLoweringError", "CompilerError", "CudaliteError", "InternalCompilerError", "LoweringError", "NvvmError",
    "SignatureError", "SourceError", "TypingError", "UnsupportedError", "missing_launch_config_msg",
    "normalize_kernel_dimensions", "NumbaError", "NumbaWarning", "NumbaPerformanceWarning",
    "NumbaDeprecationWarning", "NumbaPendingDeprecationWarning", "NumbaParallelSafetyWarning",
    "NumbaTypeSafetyWarning", "NumbaExperimentalFeatureWarning", "NumbaInvalidConfigWarning",
    "NumbaPedanticWarning", "NumbaIRAssumptionWarning", "NumbaDebugInfoWarning", "NumbaSystemWarning",
]

class DeviceFunctionLaunchError(TypeError, RuntimeError):
    """A device function launched like a kernel (``f[blocks, threads]``): a
    ``TypeError``, and the ``RuntimeError`` numba raises."""


CudaAPIError = CudaDriverError  # numba.cuda.cudadrv.driver.CudaAPIError: ``.code`` is the CUresult
CudaLoweringError = LoweringError
NumbaError = CudaliteError  # numba's base of its errors: cudalite's


class KernelRuntimeError(RuntimeError):
    """numba's error for an exception raised in a kernel: ``msg``, ``tid`` and
    ``ctaid`` (thread and block indices), rendered as numba renders them.

    Parameters
    ----------
    msg : str
        The exception's message.
    tid : tuple of int, optional
        Index of the thread that raised it.
    ctaid : tuple of int, optional
        Index of its block.
    """

    def __init__(self, msg: Any, tid: Any = None, ctaid: Any = None) -> None:
        self.tid = tid
        self.ctaid = ctaid
        self.msg = msg
        super().__init__(f"An exception was raised in thread={tid} block={ctaid}\n\t{msg}")


missing_launch_config_msg = """
Kernel launch configuration was not specified. Use the syntax:

kernel_function[blockspergrid, threadsperblock](arg0, arg1, ..., argn)

See https://numba.readthedocs.io/en/stable/cuda/kernels.html#kernel-invocation for help.

"""


def normalize_kernel_dimensions(griddim: Any, blockdim: Any) -> Any:
    """``(griddim, blockdim)`` as 3-tuples of ints (numba's helper): each may be an
    int or a tuple/list of 1 to 3 ints."""

    def check_dim(dim, name):
        dim = list(dim) if isinstance(dim, (tuple, list)) else [dim]
        if len(dim) > 3:
            raise ValueError(f"{name} must be a sequence of 1, 2 or 3 integers, got {dim!r}")
        for v in dim:
            if not isinstance(v, numbers.Integral):
                raise TypeError(f"{name} must be a sequence of integers, got {dim!r}")
        return tuple(dim + [1] * (3 - len(dim)))

    if griddim is None or blockdim is None:
        raise ValueError(missing_launch_config_msg)
    return check_dim(griddim, "griddim"), check_dim(blockdim, "blockdim")
