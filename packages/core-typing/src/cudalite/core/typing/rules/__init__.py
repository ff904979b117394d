"""Typing rules, one module per domain; each is a table of small pure functions.

Importing this package registers every built-in rule in the core registry.
"""

from . import arithmetic, builtins, casts  # noqa: F401
from . import array_views, arrays, enums, ffi, namedtuples, mathfuncs, numpyfuncs, printing, reductions  # noqa: F401
from . import atomics, groups, intrinsics, memory, vectors, warp  # noqa: F401  (device API)
from . import async_copy, cache_hints, fp16math, hints, inline_ptx, libdevice, mma, tma  # noqa: F401  (device API: numba.cuda names)
from . import operators  # noqa: F401  (the operator module)
from . import array_ctypes, array_reshape, pointer_arrays  # noqa: F401  (arr.ctypes.data; carray / farray)
from . import bf16  # noqa: F401  (device API: numba.cuda.bf16)
from . import instances  # noqa: F401  (isinstance)
from . import fp8  # noqa: F401  (device API: cuda_fp8.h's conversions, numba-cuda's cuda_fp8 names)
from . import warpspec  # noqa: F401  (device API: named barriers, elect, griddepcontrol, proxy fence; sm_90)
from . import wgmma  # noqa: F401  (device API: cuda.wgmma, cuda.setmaxnreg; sm_90a)
