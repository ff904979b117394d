"""CUresult -> CudaDriverError translation.

Every failing driver call (through cuda.bindings or the cffi launch path) ends here:
``raise_for(code, call)`` builds a :class:`CudaDriverError` carrying the numeric code,
the symbolic name (``cuGetErrorName``, e.g. ``CUDA_ERROR_INVALID_VALUE``), the
driver's message (``cuGetErrorString``) and the API that failed.  Without libcuda (a
GPU-less machine) the name comes from the ``CUresult`` enum of cuda.bindings and the
message says that the driver could not be asked.

Sticky errors: after a kernel faults (``CUDA_ERROR_ILLEGAL_ADDRESS``,
``CUDA_ERROR_LAUNCH_FAILED``, ...) the CUDA context is corrupted; every later call in
that process returns the same error.  :attr:`CudaDriverError.sticky` says so; the only
recovery is a new process.
"""

from __future__ import annotations

import functools
import sys
from typing import Any, NoReturn

__all__ = ["CudaDriverError", "CudaSupportError", "ShimFallbackWarning", "error_from_code", "raise_for",
           "STICKY_ERRORS"]

# Codes after which the context cannot be used any more (CUDA driver API docs).
STICKY_ERRORS = frozenset(
    {
        700,  # CUDA_ERROR_ILLEGAL_ADDRESS
        702,  # CUDA_ERROR_LAUNCH_TIMEOUT
        714,  # CUDA_ERROR_HARDWARE_STACK_ERROR
        715,  # CUDA_ERROR_ILLEGAL_INSTRUCTION
        716,  # CUDA_ERROR_MISALIGNED_ADDRESS
        717,  # CUDA_ERROR_INVALID_ADDRESS_SPACE
        718,  # CUDA_ERROR_INVALID_PC
        719,  # CUDA_ERROR_LAUNCH_FAILED
    }
)


class ShimFallbackWarning(UserWarning):
    """The install has no compiled launch shim: it was built at run time (once, with
    its cost), or cannot be built and launches take the slower ``cuda.bindings`` path
    (docs/driver.md, "Launch backends")."""


class CudaDriverError(RuntimeError):
    """A CUDA driver API call failed.

    Attributes: ``code`` (int CUresult), ``name`` (``CUDA_ERROR_...``), ``message``
    (the driver's description; ``msg`` is the same) and ``call`` (the API function,
    e.g. ``cuMemAlloc``).  numba's two-argument form ``CudaAPIError(code, msg)``
    (user code raising it, e.g. from a mock of a driver function) is accepted too
    and renders as numba's ``[code] msg``.

    Parameters
    ----------
    code : int
        The ``CUresult`` value.
    name : str
        The symbolic name, ``CUDA_ERROR_...``; in the two-argument form, the message.
    message : str, optional
        The driver's description of the error.
    call : str, optional
        The driver API function that failed, e.g. ``"cuMemAlloc"``.
    """

    def __init__(self, code: Any, name: Any, message: Any = None, call: Any = None) -> None:
        self.code = int(code)
        if message is None and call is None:  # numba's CudaAPIError(code, msg)
            self.name = _enum_name(self.code)
            self.message = self.msg = name
            self.call = None
            super().__init__(f"[{self.code}] {name}")
            return
        self.name = name
        self.message = self.msg = message
        self.call = call
        text = f"{call} failed: {name} ({self.code}): {message}"
        if self.sticky:
            text += " [sticky error: the CUDA context is unusable; restart the process]"
        super().__init__(text)

    @property
    def sticky(self) -> bool:
        """True when the error corrupted the context (every later call fails too)."""
        return self.code in STICKY_ERRORS

    def __reduce__(self) -> Any:
        # the cuda.core-compatible subclass is made at run time: it pickles as this class
        cls = CudaDriverError if type(self).__dict__.get("_also_cuda_core") else type(self)
        if self.call is None:
            return (cls, (self.code, self.message))
        return (cls, (self.code, self.name, self.message, self.call))


class CudaSupportError(CudaDriverError):
    """CUDA cannot be used at all in this process: libcuda is missing, ``cuInit``
    failed, or there is no device (numba's ``CudaSupportError``).

    Parameters
    ----------
    code : int
        The ``CUresult`` value.
    name : str
        The symbolic name, ``CUDA_ERROR_...``.
    message : str, optional
        The driver's description (or cudalite's explanation).
    call : str, optional
        The driver API function that failed, e.g. ``"cuInit"``.
    """

# cuInit results that mean "no usable CUDA here" rather than a failed call
NO_SUPPORT_CODES = frozenset({3, 35, 100, 999})  # NOT_INITIALIZED, INSUFFICIENT_DRIVER, NO_DEVICE, UNKNOWN


def _enum_name(code):
    try:
        from cuda.bindings.driver import CUresult

        return CUresult(code).name
    except Exception:  # unknown value or no cuda.bindings
        return f"CUDA_ERROR_UNKNOWN_CODE_{int(code)}"


def _ask_driver(code):
    """(name, message) from cuGetErrorName/cuGetErrorString, or None without libcuda."""
    try:
        from cuda.bindings import driver as cu

        res = cu.CUresult(code)
        err, name = cu.cuGetErrorName(res)
        if int(err) != 0:
            return None
        err, msg = cu.cuGetErrorString(res)
        if int(err) != 0:
            msg = b"(no description)"
        return name.decode(), msg.decode()
    except Exception:  # no libcuda, unknown code, ...
        return None


def error_from_code(code: Any, call: Any, *, query_driver: bool = True) -> CudaDriverError:
    """Build (do not raise) the error for CUresult ``code`` returned by ``call``."""
    code = int(code)
    found = _ask_driver(code) if query_driver else None
    if found is None:
        name = _enum_name(code)
        message = "the CUDA driver could not describe this error (libcuda unavailable)"
    else:
        name, message = found
    return _error_class()(code, name, message, call)


def _error_class():
    """:class:`CudaDriverError`, or -- once the program has imported cuda.core -- its
    subclass that is also cuda.core's ``CUDAError``, what numba-cuda 0.30 raises for a
    failed launch (``except CUDAError`` in a ported program then catches cudalite's)."""
    core = sys.modules.get("cuda.core._utils.cuda_utils")
    base = getattr(core, "CUDAError", None)
    if not (isinstance(base, type) and issubclass(base, Exception)):
        return CudaDriverError
    return _also(base)


@functools.lru_cache(maxsize=4)
def _also(base):
    return type("CudaDriverError", (CudaDriverError, base), {"__module__": CudaDriverError.__module__,
                                                            "__doc__": CudaDriverError.__doc__,
                                                            "_also_cuda_core": True})


def raise_for(code: Any, call: Any) -> NoReturn:
    """Raise :class:`CudaDriverError` for a nonzero CUresult ``code``."""
    raise error_from_code(code, call) from None
