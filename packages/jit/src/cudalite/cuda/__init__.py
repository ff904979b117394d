"""cudalite.cuda: the numba.cuda-compatible API.

A numba-cuda program ports by changing one import line::

    from cudalite import cuda, types      # was: from numba import cuda, types

This module is a thin facade: kernels and device functions (``jit``), device
arrays and memory, the runtime (devices, streams, events), the compile API and
the device-side API (the very objects ``cudalite.nvvm`` re-exports).
"""

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
from cudalite.core.ffi import declare_device  # noqa: F401  (foreign device functions)
from . import _cache as cache  # noqa: F401,E402  (on-disk kernel cache: enable, info, entries, clear)
