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
from cudalite.nvvm import compile, compile_ptx  # noqa: F401
from cudalite.core.ffi import declare_device  # noqa: F401  (foreign device functions)
