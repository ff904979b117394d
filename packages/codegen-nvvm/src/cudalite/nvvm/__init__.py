"""cudalite.nvvm: the GPU-less compiler (typed IR -> NVVM IR -> PTX / LTO-IR).

``from cudalite import nvvm as cuda`` serves UDF modules for build systems: it
re-exports the compile functions, the type names and the device-side API.
"""

from cudalite import types  # noqa: F401
from cudalite.core.errors import (  # noqa: F401
    CompilerError, CudaliteError, NvvmError, SignatureError, TypingError, UnsupportedError,
)

from . import lower as _lower  # noqa: F401  (registers lowerings)
from .api import compile, compile_ptx, compile_stages
from .pipeline import STAGES, Artifact

__all__ = [
    "compile", "compile_ptx", "compile_stages", "STAGES", "Artifact", "types",
    "CompilerError", "CudaliteError", "NvvmError", "SignatureError", "TypingError", "UnsupportedError",
]
