"""The device-side API stubs: ``cuda.threadIdx``, ``cuda.syncthreads``,
``cuda.shared.array``, ``cuda.atomic.add``, ``cuda.fp16.hadd`` ...

These are plain Python objects with no behaviour.  The frontend freezes an
attribute chain such as ``cuda.threadIdx.x`` into a compile-time constant
holding the stub; the typing rules (``typing/rules/intrinsics.py``,
``atomics.py``, ``warp.py``) and the nvvm lowerings are registered for the stub
objects themselves.  Calling a stub from ordinary Python raises a clear error.
"""

from __future__ import annotations

from typing import Any, NoReturn

from .libdevice_table import FUNCTIONS as _LIBDEVICE_FUNCTIONS
from .types import VECTOR_ALIASES, vector_types

__all__ = [
    "DeviceFunction", "DeviceValue", "threadIdx", "blockIdx", "blockDim", "gridDim", "laneid",
    "warpsize", "grid", "gridsize", "syncthreads", "syncthreads_count", "syncthreads_and",
    "syncthreads_or", "syncwarp", "threadfence", "threadfence_block", "threadfence_system",
    "shared", "local", "const", "atomic", "fp16", "shfl_sync", "shfl_up_sync", "shfl_down_sync",
    "shfl_xor_sync", "all_sync", "any_sync", "eq_sync", "ballot_sync", "match_any_sync",
    "match_all_sync", "activemask", "lanemask_lt", "popc", "brev", "clz", "ffs", "fma", "cbrt",
    "selp", "cg", "libdevice", "nanosleep", "literal_unroll", "ldca", "ldcg", "ldcs", "ldlu", "ldcv",
    "stcg", "stcs", "stwb", "stwt", "inline_ptx", "pipeline", "mma", "tma", "mbarrier",
    "named_barrier", "griddepcontrol", "elect_sync", "fence_proxy_async", "wgmma", "setmaxnreg",
    "VectorConstructor", "VECTOR_TYPE_NAMES",
    "DEVICE_API_NAMES",
    *vector_types, *VECTOR_ALIASES,  # vector types: numba-cuda's names, then the CUDA C aliases
]


class DeviceFunction:
    """A function that exists only in device code (``cuda.syncthreads``)."""

    def __init__(self, qualname: str) -> None:
        self.__name__ = qualname.rsplit(".", 1)[-1]
        self.__qualname__ = qualname
        self.__module__ = "cudalite.cuda"

    def __repr__(self) -> str:
        return f"<cudalite device function {self.__qualname__}>"

    def __call__(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise RuntimeError(
            f"{self.__qualname__}() can only be used in device code (inside a kernel or device "
            "function compiled by cudalite), not called from Python"
        )


class DeviceValue:
    """A value that exists only in device code (``cuda.threadIdx.x``, ``cuda.warpsize``)."""

    def __init__(self, qualname: str) -> None:
        self.__name__ = qualname.rsplit(".", 1)[-1]
        self.__qualname__ = qualname
        self.__module__ = "cudalite.cuda"

    def __repr__(self) -> str:
        return f"<cudalite device value {self.__qualname__}>"

    def _unavailable(self, *_):
        raise RuntimeError(f"{self.__qualname__} only has a value in device code (inside a kernel "
                           "or device function compiled by cudalite)")

    __int__ = __index__ = __float__ = _unavailable


class VectorConstructor(DeviceFunction):
    """A vector type's constructor (``cuda.float32x4``, alias ``cuda.float4``): called in
    device code with components and smaller vectors of the same base type adding up
    to ``vector_type.count`` (``float32x4(v2, z, w)``)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"cuda.{name}")
        self.vector_type = vector_types[name]
        self.aliases = tuple(a for a, n in VECTOR_ALIASES.items() if n == name)

    def __repr__(self) -> str:
        return f"<cudalite vector type {self.__name__}>"


class _Namespace:
    """A namespace of stubs (``cuda.shared``, ``cuda.atomic``, ``cuda.threadIdx``)."""

    def __init__(self, qualname: str, members: dict) -> None:
        self.__qualname__ = qualname
        self.__name__ = qualname.rsplit(".", 1)[-1]
        self.__module__ = "cudalite.cuda"
        for name, value in members.items():
            setattr(self, name, value)

    def __repr__(self) -> str:
        return f"<cudalite device namespace {self.__qualname__}>"


def _fn(name):
    return DeviceFunction(f"cuda.{name}")


def _dim3(name):
    return _Namespace(f"cuda.{name}", {a: DeviceValue(f"cuda.{name}.{a}") for a in "xyz"})


def _namespace(name, members, attr_names=None):
    attr_names = attr_names or {}
    return _Namespace(f"cuda.{name}", {
        m: DeviceFunction(f"cuda.{name}.{attr_names.get(m, m)}") for m in members
    })


# -- cooperative groups --------------------------------------------------------------------
cg = _namespace("cg", ("this_grid", "this_cluster"))

# -- thread indexing ---------------------------------------------------------------------
threadIdx = _dim3("threadIdx")
blockIdx = _dim3("blockIdx")
blockDim = _dim3("blockDim")
gridDim = _dim3("gridDim")
laneid = DeviceValue("cuda.laneid")
warpsize = DeviceValue("cuda.warpsize")
grid = _fn("grid")
gridsize = _fn("gridsize")

# -- synchronisation and fences -------------------------------------------------------------
syncthreads = _fn("syncthreads")
syncthreads_count = _fn("syncthreads_count")
syncthreads_and = _fn("syncthreads_and")
syncthreads_or = _fn("syncthreads_or")
syncwarp = _fn("syncwarp")
threadfence = _fn("threadfence")
threadfence_block = _fn("threadfence_block")
threadfence_system = _fn("threadfence_system")

# -- memory ------------------------------------------------------------------------------------
shared = _namespace("shared", ("array",))
local = _namespace("local", ("array",))
const = _namespace("const", ("array_like",))

# -- atomics ----------------------------------------------------------------------------------
ATOMIC_OPS = ("add", "sub", "and_", "or_", "xor", "max", "min", "nanmax", "nanmin", "exch",
              "inc", "dec", "cas", "compare_and_swap")
atomic = _namespace("atomic", ATOMIC_OPS)

# -- warp-level primitives --------------------------------------------------------------------
shfl_sync = _fn("shfl_sync")
shfl_up_sync = _fn("shfl_up_sync")
shfl_down_sync = _fn("shfl_down_sync")
shfl_xor_sync = _fn("shfl_xor_sync")
all_sync = _fn("all_sync")
any_sync = _fn("any_sync")
eq_sync = _fn("eq_sync")
ballot_sync = _fn("ballot_sync")
match_any_sync = _fn("match_any_sync")
match_all_sync = _fn("match_all_sync")
activemask = _fn("activemask")
lanemask_lt = _fn("lanemask_lt")

# -- bit and maths intrinsics -----------------------------------------------------------------
popc = _fn("popc")
brev = _fn("brev")
clz = _fn("clz")
ffs = _fn("ffs")
fma = _fn("fma")
cbrt = _fn("cbrt")
selp = _fn("selp")

# -- half precision ---------------------------------------------------------------------------
FP16_OPS = ("hadd", "hsub", "hmul", "hdiv", "hneg", "habs", "hfma", "hmax", "hmin",
            "heq", "hne", "hgt", "hge", "hlt", "hle")
# the math functions of numba.cuda.fp16 (float16 -> float16)
FP16_MATH_OPS = ("hsin", "hcos", "hlog", "hlog10", "hlog2", "hexp", "hexp10", "hexp2", "hsqrt",
                 "hrsqrt", "hceil", "hfloor", "hrint", "htrunc", "hrcp", "htanh", "htanh_approx")
fp16 = _namespace("fp16", FP16_OPS + FP16_MATH_OPS)

# -- bfloat16 (numba.cuda.bf16: cuda_bf16.h's functions without their ``__``) ----------------------
_BF16_INT_CONVERSIONS = tuple(
    f"{a}2{b}_{m}" for c in ("int", "short", "ushort", "uint", "ll", "ull")
    for a, b in ((c, "bfloat16"), ("bfloat16", c)) for m in ("rn", "rz", "rd", "ru"))
BF16_OPS = (
    "habs", "hneg", "hadd", "hsub", "hmul", "hadd_rn", "hsub_rn", "hmul_rn", "hdiv",
    "hadd_sat", "hsub_sat", "hmul_sat", "hfma", "hfma_sat", "hfma_relu",
    "heq", "hne", "hge", "hgt", "hle", "hlt", "hequ", "hneu", "hgeu", "hgtu", "hleu", "hltu",
    "hmax", "hmin", "hmax_nan", "hmin_nan", "hisinf", "hisnan",
    "bfloat162float", "float2bfloat16", "double2bfloat16",
    "float2bfloat16_rn", "float2bfloat16_rz", "float2bfloat16_rd", "float2bfloat16_ru",
    "bfloat162char_rz", "bfloat162uchar_rz", *_BF16_INT_CONVERSIONS,
    "bfloat16_as_short", "bfloat16_as_ushort", "short_as_bfloat16", "ushort_as_bfloat16",
    "htrunc", "hceil", "hfloor", "hrint", "hsqrt", "hrsqrt", "hrcp", "hlog", "hlog2", "hlog10",
    "hcos", "hsin", "hexp", "hexp2", "hexp10", "htanh", "htanh_approx",
)
bf16 = _namespace("bf16", BF16_OPS)

# -- 8-bit floats (cuda_fp8.h's ``__nv_cvt_*`` on storage bytes; numba-cuda's cuda_fp8 bindings) ----
FP8_OPS = (
    "cvt_float_to_fp8", "cvt_double_to_fp8", "cvt_bfloat16raw_to_fp8", "cvt_float2_to_fp8x2",
    "cvt_double2_to_fp8x2", "cvt_float_to_e8m0", "cvt_double_to_e8m0", "cvt_bfloat16raw_to_e8m0",
    "cvt_float2_to_e8m0x2", "cvt_double2_to_e8m0x2", "cvt_e8m0_to_bf16raw",
)
fp8 = _namespace("fp8", FP8_OPS)

# -- libdevice (``cuda.libdevice.sinf`` ... calls ``__nv_sinf``) ------------------------------------
libdevice = _namespace("libdevice", tuple(_LIBDEVICE_FUNCTIONS))

# -- scheduling and loop hints ----------------------------------------------------------------------
nanosleep = _fn("nanosleep")
literal_unroll = _fn("literal_unroll")

# -- asynchronous copies global -> shared (cp.async) and warp-level matrix multiply-accumulate ---
pipeline = _namespace("pipeline", ("memcpy_async", "commit", "wait"))
mma = _namespace("mma", ("ldmatrix", "m16n8k16_f16_f32", "m16n8k16_bf16_f32", "m16n8k8_tf32_f32",
                         "m16n8k32_s8_s32", "m16n8k32_e4m3_f32", "m16n8k32_e5m2_f32", "pack_f16x2", "pack_bf16x2",
                         "to_tf32"))
# -- bulk tensor copies (TMA) and the shared-memory barriers they complete (sm_90) ---------------
tma = _namespace("tma", ("load", "load_multicast", "store", "store_commit", "store_wait", "store_wait_read",
                         "prefetch"))
mbarrier = _namespace("mbarrier", ("init", "fence_init", "arrive", "arrive_expect_tx", "wait", "try_wait",
                                   "arrive_cluster"))
# -- warp specialisation and programmatic dependent launch (sm_90) ---------------------------------
named_barrier = _namespace("named_barrier", ("sync", "arrive"))
griddepcontrol = _namespace("griddepcontrol", ("wait", "launch_dependents"))
elect_sync = _fn("elect_sync")
fence_proxy_async = _fn("fence_proxy_async")
# -- warpgroup matrix multiply-accumulate and register reallocation (sm_90a) ----------------------
wgmma = _namespace("wgmma", ("make_desc", "zeros", "mma_async", "fence", "commit_group", "wait_group",
                             "accumulator_coords", "store", "scale_rows"))
setmaxnreg = _namespace("setmaxnreg", ("inc", "dec"))

# -- inline PTX (``cuda.inline_ptx(ptx, constraints, result_type, *operands)``) --------------------
inline_ptx = _fn("inline_ptx")

# -- loads and stores with a cache operator (``ld.global.cg`` ...) ---------------------------------
CACHE_LOADS = ("ldca", "ldcg", "ldcs", "ldlu", "ldcv")
CACHE_STORES = ("stcg", "stcs", "stwb", "stwt")
ldca, ldcg, ldcs, ldlu, ldcv = (_fn(n) for n in CACHE_LOADS)
stcg, stcs, stwb, stwt = (_fn(n) for n in CACHE_STORES)

# -- vector types: cuda.float32x4(x, y, z, w), v.x ... (aliases: the CUDA C names) ------------------
int8x1, int8x2, int8x3, int8x4 = (VectorConstructor(f"int8x{n}") for n in (1, 2, 3, 4))
int16x1, int16x2, int16x3, int16x4 = (VectorConstructor(f"int16x{n}") for n in (1, 2, 3, 4))
int32x1, int32x2, int32x3, int32x4 = (VectorConstructor(f"int32x{n}") for n in (1, 2, 3, 4))
int64x1, int64x2, int64x3, int64x4 = (VectorConstructor(f"int64x{n}") for n in (1, 2, 3, 4))
uint8x1, uint8x2, uint8x3, uint8x4 = (VectorConstructor(f"uint8x{n}") for n in (1, 2, 3, 4))
uint16x1, uint16x2, uint16x3, uint16x4 = (VectorConstructor(f"uint16x{n}") for n in (1, 2, 3, 4))
uint32x1, uint32x2, uint32x3, uint32x4 = (VectorConstructor(f"uint32x{n}") for n in (1, 2, 3, 4))
uint64x1, uint64x2, uint64x3, uint64x4 = (VectorConstructor(f"uint64x{n}") for n in (1, 2, 3, 4))
float32x1, float32x2, float32x3, float32x4 = (VectorConstructor(f"float32x{n}") for n in (1, 2, 3, 4))
float64x1, float64x2, float64x3, float64x4 = (VectorConstructor(f"float64x{n}") for n in (1, 2, 3, 4))
VECTOR_TYPE_NAMES = tuple(vector_types)  # the canonical names (each constructor's __name__)
char1, char2, char3, char4 = int8x1, int8x2, int8x3, int8x4
short1, short2, short3, short4 = int16x1, int16x2, int16x3, int16x4
int1, int2, int3, int4 = int32x1, int32x2, int32x3, int32x4
long1, long2, long3, long4 = (globals()[VECTOR_ALIASES[f"long{n}"]] for n in (1, 2, 3, 4))
longlong1, longlong2, longlong3, longlong4 = int64x1, int64x2, int64x3, int64x4
uchar1, uchar2, uchar3, uchar4 = uint8x1, uint8x2, uint8x3, uint8x4
ushort1, ushort2, ushort3, ushort4 = uint16x1, uint16x2, uint16x3, uint16x4
uint1, uint2, uint3, uint4 = uint32x1, uint32x2, uint32x3, uint32x4
ulong1, ulong2, ulong3, ulong4 = (globals()[VECTOR_ALIASES[f"ulong{n}"]] for n in (1, 2, 3, 4))
ulonglong1, ulonglong2, ulonglong3, ulonglong4 = uint64x1, uint64x2, uint64x3, uint64x4
float1, float2, float3, float4 = float32x1, float32x2, float32x3, float32x4
double1, double2, double3, double4 = float64x1, float64x2, float64x3, float64x4

DEVICE_API_NAMES = tuple(n for n in __all__ if n not in ("DeviceFunction", "DeviceValue", "VectorConstructor",
                                                          "VECTOR_TYPE_NAMES", "DEVICE_API_NAMES"))
