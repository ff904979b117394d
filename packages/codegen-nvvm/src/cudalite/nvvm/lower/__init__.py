"""Typed IR -> NVVM IR (LLVM 7 text), one module per domain.

Importing this package registers every built-in lowering."""

from . import _array_views, _arrays, _enums, _exceptions, _namedtuples, _ffi, _groups, _clusters, _print  # noqa: F401  (registers lowerings)
from . import _atomics, _intrinsics, _memory, _vectors, _warp  # noqa: F401  (device API)
from . import _builtins, _complexmath, _math, _numpy_math, _operators  # noqa: F401  (registers lowerings)
from . import _cache_hints, _fp16math, _hints, _inline_ptx, _libdevice, _tensorcore, _tma  # noqa: F401  (device API: numba.cuda names)
from . import _warpspec  # noqa: F401  (device API: named barriers, elect, griddepcontrol, proxy fence)
from . import _wgmma  # noqa: F401  (device API: cuda.wgmma, cuda.setmaxnreg; sm_90a)
from . import _array_ctypes, _array_reshape, _pointer_arrays  # noqa: F401  (arr.ctypes.data; carray / farray)
from . import _bf16  # noqa: F401  (device API: numba.cuda.bf16)
from . import _fp8  # noqa: F401  (device API: cuda.fp8's conversions)
from ._abi import check_c_name, emit_c_abi, emit_kernel, is_symbol_name, emit_numba_abi, mangle, param_format
from ._module import LowerOptions, ModuleBuilder
from ._registry import Lowerings, lowerings

__all__ = [
    "check_c_name", "is_symbol_name", "emit_c_abi", "emit_kernel", "emit_numba_abi", "mangle", "param_format",
    "LowerOptions", "ModuleBuilder", "Lowerings", "lowerings",
]
