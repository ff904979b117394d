"""cudalite.nvvm: the GPU-less compiler (typed IR -> NVVM IR -> PTX / LTO-IR).

``from cudalite import nvvm as cuda`` serves UDF modules for build systems: it
re-exports the compile functions, the type names and the device-side API.
"""

from __future__ import annotations

from typing import Any

from cudalite import types  # noqa: F401
from cudalite.core.errors import (  # noqa: F401
    CompilerError, CudaliteError, NvvmError, SignatureError, TypingError, UnsupportedError,
)

from cudalite.core import device_api as _device_api  # noqa: E402

# The device-side API (threadIdx, shared, atomic, libdevice, vector types, ...): the
# names device_api lists in DEVICE_API_NAMES, the one list both facades re-export.
globals().update({_name: getattr(_device_api, _name) for _name in _device_api.DEVICE_API_NAMES})

_LAZY = {"compile": "api", "compile_ptx": "api", "compile_stages": "api", "STAGES": "pipeline",
         "Artifact": "artifacts", "make_options": "_options", "CompileOptions": "_options",
         "check_cluster_dims": "_options"}


def __getattr__(name: str) -> Any:
    """The compiler proper (llvmlite, the lowering tables) loads on first use, so
    importing cudalite.nvvm -- or the runtime's option checks -- stays cheap."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'cudalite.nvvm' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f"{__name__}.{module}"), name)

__version__ = "0.1.0"  # the distribution's version (pyproject.toml)
__all__ = [
    "compile", "compile_ptx", "compile_stages", "STAGES", "Artifact", "make_options", "CompileOptions", "types",
    "check_cluster_dims",
    "CompilerError", "CudaliteError", "NvvmError", "SignatureError", "TypingError", "UnsupportedError",
    *_device_api.DEVICE_API_NAMES,
]
