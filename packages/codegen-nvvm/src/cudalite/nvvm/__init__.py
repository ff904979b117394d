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
from cudalite.core.device_api import (  # noqa: E402,F401  (vector types: numba-cuda's names, CUDA C aliases)
    int8x1, int8x2, int8x3, int8x4, int16x1, int16x2, int16x3, int16x4, int32x1, int32x2, int32x3, int32x4,
    int64x1, int64x2, int64x3, int64x4, uint8x1, uint8x2, uint8x3, uint8x4, uint16x1, uint16x2, uint16x3,
    uint16x4, uint32x1, uint32x2, uint32x3, uint32x4, uint64x1, uint64x2, uint64x3, uint64x4, float32x1,
    float32x2, float32x3, float32x4, float64x1, float64x2, float64x3, float64x4, char1, char2, char3, char4,
    short1, short2, short3, short4, int1, int2, int3, int4, long1, long2, long3, long4, longlong1, longlong2,
    longlong3, longlong4, uchar1, uchar2, uchar3, uchar4, ushort1, ushort2, ushort3, ushort4, uint1, uint2,
    uint3, uint4, ulong1, ulong2, ulong3, ulong4, ulonglong1, ulonglong2, ulonglong3, ulonglong4, float1,
    float2, float3, float4, double1, double2, double3, double4,
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
