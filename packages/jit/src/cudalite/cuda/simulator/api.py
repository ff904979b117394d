"""The ``cudalite.cuda`` namespace under the simulator.

:func:`namespace` builds ``{name: object}`` for every name the simulator provides:
the type names (as ``cudalite.types``), the device-side API (every name of
``cudalite.core.device_api.DEVICE_API_NAMES``), the host API, and the names that
cannot be simulated (they raise NotImplementedError).  ``cudalite.cuda`` star-imports
this module when ``CUDALITE_ENABLE_CUDASIM=1``; :func:`module_getattr` serves
per-thread module attributes (``cuda.laneid``) and explains absent names.
"""

from __future__ import annotations

from typing import Any

from cudalite import types as _types

from . import atomics, host, intrinsics, kernel, mathfuncs, runtime, ufuncs, unsupported, warp
from ._state import current
from .namespaces import Namespace

_PER_THREAD = {"laneid": lambda: current().lane}


def namespace() -> dict:
    """``{name: object}`` of the simulator's ``cudalite.cuda``."""
    out = {name: getattr(_types, name) for name in _types.__all__}
    out["types"] = _types
    out.update(mathfuncs.vector_constructors())
    for module in (intrinsics, warp, mathfuncs, runtime, host, ufuncs):
        out.update({name: getattr(module, name) for name in module.__all__})
    del out["vector_constructors"]
    out["atomic"] = atomics.atomic
    out.update(unsupported.unsupported_objects())
    out.update(
        jit=kernel.jit, laneid=None, implementation="cudalite-simulator",
        devicearray=Namespace("devicearray", DeviceNDArray=host.DeviceNDArray,
                              DeviceRecord=host.DeviceRecord, auto_device=host.auto_device),
        Stream=runtime.Stream, Event=runtime.Event, DeviceNDArray=host.DeviceNDArray,
        NumbaPerformanceWarning=RuntimeWarning, CudalitePerformanceWarning=RuntimeWarning,
        KernelFaultError=runtime.KernelRuntimeError,
    )
    del out["laneid"]  # per thread: module_getattr
    return out


_NAMESPACE = namespace()
globals().update(_NAMESPACE)
__all__ = sorted(_NAMESPACE)  # noqa: PLE0605  (built above)
del _NAMESPACE


def module_getattr(name: Any) -> Any:
    """``__getattr__`` of the simulator's ``cudalite.cuda``: per-thread values, else an
    AttributeError."""
    getter = _PER_THREAD.get(name)
    if getter is not None:
        return getter()
    raise AttributeError(f"module 'cudalite.cuda' (the CUDA simulator, CUDALITE_ENABLE_CUDASIM=1) has no "
                         f"attribute {name!r}")
