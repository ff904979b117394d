"""Kernel faults: a sticky driver error re-raised naming the kernel that caused it.

:class:`KernelFaultError` (a :class:`~cudalite.driver.CudaDriverError`) wraps such an
error; :func:`kernel_fault` builds one from a driver error, naming the kernel launched
last on that device (``JitRuntime.last``); launches, synchronizations and copies call it.
"""

from __future__ import annotations

from typing import Any

from cudalite.driver import CudaDriverError

from .record import jit_runtime

__all__ = ["KernelFaultError", "kernel_fault"]


class KernelFaultError(CudaDriverError):
    """A kernel faulted (illegal address, trap, ...): the driver error, naming the
    kernel launched last on that device.  ``.kernel`` is the kernel's Python name.

    A :class:`~cudalite.driver.CudaDriverError` (so a ``CudaAPIError`` for numba code).

    Parameters
    ----------
    code : int
        The ``CUresult``.
    name : str
        Its symbolic name, ``CUDA_ERROR_...``.
    message : str
        The driver's description.
    call : str
        The driver function that reported it.
    kernel : str, optional
        The name of the kernel launched last on the device.
    """

    def __init__(self, code: Any, name: Any, message: Any, call: Any, kernel: Any = None) -> None:
        super().__init__(code, name, message, call)
        self.kernel = kernel
        if kernel:
            self.args = (f"kernel {kernel!r} failed: {self.args[0]}",)

    def __reduce__(self) -> Any:
        return (type(self), (self.code, self.name, self.message, self.call, self.kernel))


def kernel_fault(err: CudaDriverError, device_id: Any = None) -> CudaDriverError:
    """``err`` as a :class:`KernelFaultError` naming the last launched kernel when it
    is a kernel fault (a sticky error); other errors are returned unchanged."""
    if isinstance(err, KernelFaultError) or not getattr(err, "sticky", False):
        return err
    name = jit_runtime().last_kernel_name(device_id)
    return KernelFaultError(err.code, err.name, err.message, err.call, name)
