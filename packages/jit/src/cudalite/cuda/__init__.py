"""cudalite.cuda: the numba.cuda-compatible API.

A numba-cuda program ports by changing one import line::

    from cudalite import cuda, types      # was: from numba import cuda, types

This module is a thin facade: kernels and device functions (``jit``), device
arrays and memory, the runtime (devices, streams, events), the compile API and
the device-side API (the very objects ``cudalite.nvvm`` re-exports).  As in
numba.cuda, ``cuda.types`` is the types module and every public type name is also
here (``from cudalite.cuda import float32, void``).  A numba.cuda name cudalite
does not provide raises an AttributeError that says what to use instead.
"""

from cudalite.types import *  # noqa: F401,F403  (numba.cuda re-exports every type name; later imports win)
from cudalite import types  # noqa: F401,E402

from cudalite.core.device_api import (  # noqa: F401  (the device-side API)
    activemask, all_sync, any_sync, atomic, ballot_sync, blockDim, blockIdx, brev, cbrt, cg, clz, const,
    eq_sync, ffs, fma, fp16, grid, gridDim, gridsize, laneid, lanemask_lt, local, match_all_sync,
    match_any_sync, popc, selp, shared, shfl_down_sync, shfl_sync, shfl_up_sync, shfl_xor_sync,
    syncthreads, syncthreads_and, syncthreads_count, syncthreads_or, syncwarp, threadfence,
    threadfence_block, threadfence_system, threadIdx, warpsize,
)
from cudalite.core.device_api import (  # noqa: F401  (numba.cuda's libdevice, hints, cache-hint loads/stores)
    ldca, ldcg, ldcs, ldcv, ldlu, libdevice, literal_unroll, nanosleep, stcg, stcs, stwb, stwt,
)
from cudalite.core.device_api import (  # noqa: F401  (vector types: numba-cuda's names, CUDA C aliases)
    int8x1, int8x2, int8x3, int8x4, int16x1, int16x2, int16x3, int16x4, int32x1, int32x2, int32x3, int32x4,
    int64x1, int64x2, int64x3, int64x4, uint8x1, uint8x2, uint8x3, uint8x4, uint16x1, uint16x2, uint16x3,
    uint16x4, uint32x1, uint32x2, uint32x3, uint32x4, uint64x1, uint64x2, uint64x3, uint64x4, float32x1,
    float32x2, float32x3, float32x4, float64x1, float64x2, float64x3, float64x4, char1, char2, char3, char4,
    short1, short2, short3, short4, int1, int2, int3, int4, long1, long2, long3, long4, longlong1, longlong2,
    longlong3, longlong4, uchar1, uchar2, uchar3, uchar4, ushort1, ushort2, ushort3, ushort4, uint1, uint2,
    uint3, uint4, ulong1, ulong2, ulong3, ulong4, ulonglong1, ulonglong2, ulonglong3, ulonglong4, float1,
    float2, float3, float4, double1, double2, double3, double4,
)
from ._compile_all import compile_all  # noqa: F401
from ._compile import (  # noqa: F401  (the compile API; accepts dispatchers too)
    compile_for_current_device, compile_ptx_for_current_device, jit_compile as compile,
    jit_compile_ptx as compile_ptx,
)
from ._dispatcher import jit  # noqa: F401  (kernels and device functions)
from ._args import CudalitePerformanceWarning, NumbaPerformanceWarning  # noqa: F401
from ._faults import KernelFaultError  # noqa: F401
from . import devicearray  # noqa: F401  (numba's cuda.devicearray module)
from ._memory_api import (  # noqa: F401  (device, pinned, mapped, managed arrays; interop)
    as_cuda_array, device_array, device_array_like, from_cuda_array_interface, is_cuda_array, managed_array,
    mapped, mapped_array, pinned, pinned_array, pinned_array_like, to_device,
)
from ._runtime import (  # noqa: F401  (devices, streams, events)
    Event, Stream, close, default_stream, detect, event, event_elapsed_time, external_stream,
    get_current_device, gpus, is_available, legacy_default_stream, list_devices, per_thread_default_stream,
    select_device, stream, synchronize,
)
from .devicearray import DeviceNDArray  # noqa: F401
from ._reduce import Reduce, reduce  # noqa: F401  (cuda.reduce: reductions from a binary function)
from ._vectorize import vectorize  # noqa: F401  (CUDA ufuncs)
from ._gufunc import guvectorize  # noqa: F401  (CUDA generalized ufuncs)
from cudalite.core.ffi import declare_device  # noqa: F401  (foreign device functions)
from . import _cache as cache  # noqa: F401,E402  (on-disk kernel cache: enable, info, entries, clear)

# -- the numba.cuda compatibility names (issue 11: host side) ------------------------------------
from cudalite.driver import CudaSupportError  # noqa: F401,E402
from . import errors, runtime  # noqa: F401,E402
from .errors import KernelRuntimeError  # noqa: F401,E402
from ._arghints import In, InOut, Out  # noqa: F401,E402  (transfer hints for kernel arguments)
from ._context_api import (  # noqa: F401,E402
    current_context, defer_cleanup, is_bfloat16_supported, is_float16_supported, is_fp8_supported,
    profile_start, profile_stop, profiling,
)
from ._emm import (  # noqa: F401,E402  (external memory management plugins, IPC handles)
    BaseCUDAMemoryManager, GetIpcHandleMixin, HostOnlyCUDAMemoryManager, IpcHandle, MappedMemory, MemoryInfo,
    MemoryPointer, PinnedMemory, set_memory_manager,
)
from ._memory_api import mapped_array_like, open_ipc_array  # noqa: F401,E402
from ._compat_names import cuda_error  # noqa: F401,E402
from .runtime import is_supported_version  # noqa: F401,E402

implementation = "cudalite"


def __getattr__(name):
    """Names loaded on first use (the linkable-code classes of cudalite.linker,
    ``cudadrv``), else an AttributeError with advice for absent numba.cuda names."""
    from ._compat_names import lazy_attribute, missing_name

    value = lazy_attribute(name)
    if value is None:
        raise missing_name(__name__, name)
    globals()[name] = value
    return value
