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
# ruff: noqa: E402  (a facade: the device API is bound between imports, in import order)

from .config import simulator_enabled as _simulator_enabled

if _simulator_enabled():
    # CUDALITE_ENABLE_CUDASIM=1: the CPU simulator (docs/simulator.md); no compiler, no driver
    from .simulator.api import *  # noqa: F401,F403  (cudalite.cuda.simulator.api.__all__)
    from .simulator.api import module_getattr as __getattr__  # noqa: F401
else:
    from cudalite.types import *  # noqa: F401,F403  (numba.cuda re-exports every type name; later imports win)
    from cudalite import types  # noqa: F401,E402

    from cudalite.core import device_api as _device_api  # noqa: E402

    # The device-side API (threadIdx, shared, atomic, libdevice, vector types, ...): the
    # names device_api lists in DEVICE_API_NAMES, the one list both facades re-export.
    globals().update({_name: getattr(_device_api, _name) for _name in _device_api.DEVICE_API_NAMES})
    from . import bf16  # noqa: E402,F401  (cuda.bf16, as numba.cuda.bf16)
    from . import fp8  # noqa: E402,F401  (cuda.fp8: 8-bit floats, cuda_fp8.h's conversions)
    from ._dispatch.decorator import jit  # noqa: F401  (kernels and device functions)
    from ._launch.typeof import typeof  # noqa: F401,E402  (numba.typeof: the type of a Python value)
    from cudalite.core.errors import NumbaPerformanceWarning  # noqa: F401
    CudalitePerformanceWarning = NumbaPerformanceWarning  # cudalite's older name of the warning
    from ._runtime.faults import KernelFaultError  # noqa: F401
    from . import devicearray  # noqa: F401  (numba's cuda.devicearray module)
    from ._memory.api import (  # noqa: F401  (device, pinned, mapped, managed arrays; interop)
        as_cuda_array, device_array, device_array_like, from_cuda_array_interface, is_cuda_array, managed_array,
        mapped, mapped_array, pinned, pinned_array, pinned_array_like, to_device,
    )
    from ._runtime.api import (  # noqa: F401  (devices, streams, events)
        Event, Stream, close, default_stream, detect, event, event_elapsed_time, external_stream,
        get_current_device, gpus, is_available, legacy_default_stream, list_devices, per_thread_default_stream,
        select_device, stream, synchronize,
    )
    from .devicearray import DeviceNDArray  # noqa: F401
    from ._ufuncs.reduce import Reduce, reduce  # noqa: F401  (cuda.reduce: reductions from a binary function)
    from ._ufuncs.vectorize import vectorize  # noqa: F401  (CUDA ufuncs)
    from ._ufuncs.gufunc import guvectorize  # noqa: F401  (CUDA generalized ufuncs)
    from ._memory.tma import make_tensor_map  # noqa: F401  (TMA descriptors, cc >= 9.0)
    from cudalite.core.ffi import declare_device  # noqa: F401  (foreign device functions)
    from cudalite.core.pointer_arrays import carray, farray  # noqa: F401,E402  (array views over pointers)

    # -- the numba.cuda compatibility names (issue 11: host side) ------------------------------------
    from cudalite.driver import CudaSupportError  # noqa: F401,E402
    from . import errors, runtime  # noqa: F401,E402
    from .errors import KernelRuntimeError  # noqa: F401,E402
    from ._launch.hints import In, InOut, Out  # noqa: F401,E402  (transfer hints for kernel arguments)
    from ._runtime.context import (  # noqa: F401,E402
        current_context, defer_cleanup, is_bfloat16_supported, is_float16_supported, is_fp8_supported,
        profile_start, profile_stop, profiling,
    )
    from ._memory.emm import (  # noqa: F401,E402  (external memory management plugins, IPC handles)
        BaseCUDAMemoryManager, GetIpcHandleMixin, HostOnlyCUDAMemoryManager, IpcHandle, MappedMemory, MemoryInfo,
        MemoryPointer, PinnedMemory, set_memory_manager,
    )
    from ._memory.api import mapped_array_like, open_ipc_array  # noqa: F401,E402
    from ._compat_names import cuda_error  # noqa: F401,E402
    from .runtime import is_supported_version  # noqa: F401,E402

    implementation = "cudalite"

    def __getattr__(name):
        """Names loaded on first use (the linkable-code classes of cudalite.linker,
        ``cudadrv``), else an AttributeError with advice for absent numba.cuda names."""
        from ._compat_names import lazy_attribute, missing_name  # lazy: loaded on a miss

        value = lazy_attribute(name)
        if value is None:
            raise missing_name(__name__, name)
        globals()[name] = value
        return value

__version__ = "0.1.0"  # the distribution's version (pyproject.toml)
