"""numba.cuda names that cudalite deliberately does not provide, and what to use.

:func:`lazy_attribute` and :func:`missing_name` serve the module ``__getattr__`` of
:mod:`cudalite.cuda`: the linkable-code classes and ``cudadrv`` are imported on first
access (:data:`LAZY`); any other unknown attribute raises ``AttributeError``; for a numba.cuda name listed in
:data:`ABSENT` the message says what to use instead.  Also :func:`cuda_error`
(numba's "why is CUDA unusable" query).
"""

from __future__ import annotations

import importlib
from typing import Any

import cudalite.driver as drv

__all__ = ["ABSENT", "LAZY", "lazy_attribute", "missing_name", "cuda_error"]

# names of cudalite.cuda imported on first access (``import cudalite.cuda`` stays light)
LAZY = {
    **{name: ("cudalite.linker", name) for name in (
        "LinkableCode", "PTXSource", "CUSource", "Cubin", "Fatbin", "Object", "Archive", "LTOIR")},
    "cudadrv": ("cudalite.cuda.cudadrv", None),
    # the extension API (docs/extending.md): the compiler loads when it is first named
    "extending": ("cudalite.cuda.extending", None),
    "cgutils": ("cudalite.cuda.cgutils", None),
    "models": ("cudalite.cuda.models", None),
    "simulator": ("cudalite.cuda.simulator", None),  # the CPU simulator's namespace (docs/simulator.md)
    # kernels built ahead of time (docs/aot.md): its module imports the build stages, loaded on use
    "load_kernel": ("cudalite.cuda._dispatch.aot", "load_kernel"),
    # the compile API (accepts dispatchers too): the compiler loads when it is first named
    "compile": ("cudalite.cuda._compiler.api", "jit_compile"),
    "compile_ptx": ("cudalite.cuda._compiler.api", "jit_compile_ptx"),
    "compile_for_current_device": ("cudalite.cuda._compiler.api", "compile_for_current_device"),
    "compile_ptx_for_current_device": ("cudalite.cuda._compiler.api", "compile_ptx_for_current_device"),
    "compile_all": ("cudalite.cuda._compiler.compile_all", "compile_all"),
    # the on-disk kernel cache API (enable, disable, info, entries, clear): loaded on use
    "cache": ("cudalite.cuda._compiler.cache", None),
    # numba's module names user code reaches through numba.cuda (cuda.devices.get_context(),
    # cuda.driver.device_to_host(...)): cudalite's modules of the same names
    "devices": ("cudalite.cuda.cudadrv.devices", None),
    "driver": ("cudalite.cuda.cudadrv.driver", None),
}

_SIM = ("the CUDA simulator is chosen before import: set CUDALITE_ENABLE_CUDASIM=1 (or NUMBA_ENABLE_CUDASIM=1) "
        "and import cudalite.cuda, or use cudalite.cuda.simulator directly (docs/simulator.md)")

ABSENT = {
    "simulator_init": _SIM,
    "nvvm": "numba's NVVM binding is not exposed here: the NVVM layer is cudalite.nvvm (from cudalite import nvvm)",
    "require_context": ("cuda.require_context is not needed: cudalite makes each device's primary context on "
                        "first use (cuda.current_context() returns it)"),
    "initialize": "cuda.initialize is numba-internal: cudalite initializes the driver on first use",
    "reduction": "cuda.reduction is numba's module path: use cuda.reduce / cuda.Reduce",
    "testing": "numba.cuda.testing is numba's own test harness: test cudalite kernels with pytest",
    "cudaimpl": "numba's lowering registry module is not provided: register lowerings with "
                "cudalite.cuda.extending (lower_builtin, lower_getattr, intrinsic; docs/extending.md)",
    "config_default_cc": "cuda.config_default_cc is not provided: set CUDALITE_DEFAULT_CC (docs/abi.md)",
}


def lazy_attribute(name: Any) -> Any:
    """The object behind lazily imported name ``name`` of cudalite.cuda, or None."""
    spec = LAZY.get(name)
    if spec is None:
        return None

    module = importlib.import_module(spec[0])
    return module if spec[1] is None else getattr(module, spec[1])


def missing_name(module_name: Any, name: Any) -> Any:
    """The ``AttributeError`` for ``module_name.<name>`` (with advice when known)."""
    advice = ABSENT.get(name)
    if advice is None:
        return AttributeError(f"module {module_name!r} has no attribute {name!r}")
    return AttributeError(f"module {module_name!r} has no attribute {name!r}: " + advice.format(name=name))


def cuda_error() -> str | None:
    """None when the CUDA driver initializes, else a string saying why not
    (numba's ``cuda.cuda_error()``)."""

    try:
        drv.device_count()
    except Exception as exc:
        return str(exc)
    return None
