"""The device-side API stubs: ``cuda.threadIdx``, ``cuda.syncthreads``,
``cuda.shared.array``, ``cuda.atomic.add``, ``cuda.fp16.hadd`` ...

These are plain Python objects with no behaviour.  The frontend freezes an
attribute chain such as ``cuda.threadIdx.x`` into a compile-time constant
holding the stub; the typing rules (``typing/rules/intrinsics.py``,
``atomics.py``, ``warp.py``) and the nvvm lowerings are registered for the stub
objects themselves.  Calling a stub from ordinary Python raises a clear error.
"""

from __future__ import annotations

from .libdevice_table import FUNCTIONS as _LIBDEVICE_FUNCTIONS

__all__ = [
    "DeviceFunction", "DeviceValue", "threadIdx", "blockIdx", "blockDim", "gridDim", "laneid",
    "warpsize", "grid", "gridsize", "syncthreads", "syncthreads_count", "syncthreads_and",
    "syncthreads_or", "syncwarp", "threadfence", "threadfence_block", "threadfence_system",
    "shared", "local", "const", "atomic", "fp16", "shfl_sync", "shfl_up_sync", "shfl_down_sync",
    "shfl_xor_sync", "all_sync", "any_sync", "eq_sync", "ballot_sync", "match_any_sync",
    "match_all_sync", "activemask", "lanemask_lt", "popc", "brev", "clz", "ffs", "fma", "cbrt",
    "selp", "cg", "libdevice", "nanosleep", "literal_unroll", "ldca", "ldcg", "ldcs", "ldlu", "ldcv",
    "stcg", "stcs", "stwb", "stwt", "DEVICE_API_NAMES",
]


class DeviceFunction:
    """A function that exists only in device code (``cuda.syncthreads``)."""

    def __init__(self, qualname: str):
        self.__name__ = qualname.rsplit(".", 1)[-1]
        self.__qualname__ = qualname
        self.__module__ = "cudalite.cuda"

    def __repr__(self):
        return f"<cudalite device function {self.__qualname__}>"

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            f"{self.__qualname__}() can only be used in device code (inside a kernel or device "
            "function compiled by cudalite), not called from Python"
        )


class DeviceValue:
    """A value that exists only in device code (``cuda.threadIdx.x``, ``cuda.warpsize``)."""

    def __init__(self, qualname: str):
        self.__name__ = qualname.rsplit(".", 1)[-1]
        self.__qualname__ = qualname
        self.__module__ = "cudalite.cuda"

    def __repr__(self):
        return f"<cudalite device value {self.__qualname__}>"

    def _unavailable(self, *_):
        raise RuntimeError(f"{self.__qualname__} only has a value in device code (inside a kernel "
                           "or device function compiled by cudalite)")

    __int__ = __index__ = __float__ = _unavailable


class _Namespace:
    """A namespace of stubs (``cuda.shared``, ``cuda.atomic``, ``cuda.threadIdx``)."""

    def __init__(self, qualname: str, members: dict):
        self.__qualname__ = qualname
        self.__name__ = qualname.rsplit(".", 1)[-1]
        self.__module__ = "cudalite.cuda"
        for name, value in members.items():
            setattr(self, name, value)

    def __repr__(self):
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
cg = _namespace("cg", ("this_grid",))

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

# -- libdevice (``cuda.libdevice.sinf`` ... calls ``__nv_sinf``) ------------------------------------
libdevice = _namespace("libdevice", tuple(_LIBDEVICE_FUNCTIONS))

# -- scheduling and loop hints ----------------------------------------------------------------------
nanosleep = _fn("nanosleep")
literal_unroll = _fn("literal_unroll")

# -- loads and stores with a cache operator (``ld.global.cg`` ...) ---------------------------------
CACHE_LOADS = ("ldca", "ldcg", "ldcs", "ldlu", "ldcv")
CACHE_STORES = ("stcg", "stcs", "stwb", "stwt")
ldca, ldcg, ldcs, ldlu, ldcv = (_fn(n) for n in CACHE_LOADS)
stcg, stcs, stwb, stwt = (_fn(n) for n in CACHE_STORES)

DEVICE_API_NAMES = tuple(n for n in __all__ if n not in ("DeviceFunction", "DeviceValue",
                                                          "DEVICE_API_NAMES"))
