"""cudalite.nvvm: the GPU-less compiler (typed IR -> NVVM IR -> PTX / LTO-IR).

``from cudalite import nvvm as cuda`` serves UDF modules for build systems: it
re-exports the compile functions, the type names and the device-side API.
"""

from cudalite import types  # noqa: F401
from cudalite.core.errors import (  # noqa: F401
    CompilerError, CudaliteError, NvvmError, SignatureError, TypingError, UnsupportedError,
)

from cudalite.core.device_api import (  # noqa: E402,F401  (the device-side API)
    activemask, all_sync, any_sync, atomic, ballot_sync, blockDim, blockIdx, brev, cbrt, cg, clz, const,
    eq_sync, ffs, fma, fp16, grid, gridDim, gridsize, laneid, lanemask_lt, local, match_all_sync,
    match_any_sync, popc, selp, shared, shfl_down_sync, shfl_sync, shfl_up_sync, shfl_xor_sync,
    syncthreads, syncthreads_and, syncthreads_count, syncthreads_or, syncwarp, threadfence,
    threadfence_block, threadfence_system, threadIdx, warpsize,
)
from cudalite.core.device_api import (  # noqa: E402,F401  (numba.cuda's libdevice, hints, cache-hint loads/stores)
    ldca, ldcg, ldcs, ldcv, ldlu, libdevice, literal_unroll, nanosleep, stcg, stcs, stwb, stwt,
)
from cudalite.core.device_api import DEVICE_API_NAMES as _DEVICE_API_NAMES

_LAZY = {"compile": "api", "compile_ptx": "api", "compile_stages": "api", "STAGES": "pipeline",
         "Artifact": "artifacts", "make_options": "_options", "CompileOptions": "_options"}


def __getattr__(name):
    """The compiler proper (llvmlite, the lowering tables) loads on first use, so
    importing cudalite.nvvm -- or the runtime's option checks -- stays cheap."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'cudalite.nvvm' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f"{__name__}.{module}"), name)

__all__ = [
    "compile", "compile_ptx", "compile_stages", "STAGES", "Artifact", "make_options", "CompileOptions", "types",
    "CompilerError", "CudaliteError", "NvvmError", "SignatureError", "TypingError", "UnsupportedError",
    *_DEVICE_API_NAMES,
]
