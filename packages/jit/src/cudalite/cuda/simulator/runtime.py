"""Host runtime objects of the simulator: one simulated device, streams (launches
run synchronously, so every stream is always idle), events, contexts and the
exceptions numba.cuda programs catch."""

from __future__ import annotations

import contextlib
import time
from typing import NamedTuple

from ._state import SIM
from .namespaces import Namespace
from .unsupported import not_simulated

__all__ = [
    "CudaSupportError", "KernelRuntimeError", "CudaDriverError", "SimulatedDevice", "Stream", "Event", "stream",
    "default_stream", "legacy_default_stream", "per_thread_default_stream", "external_stream", "event",
    "synchronize", "get_current_device", "select_device", "list_devices", "gpus", "close", "detect",
    "is_available", "current_context", "profile_start", "profile_stop", "profiling", "defer_cleanup",
    "is_float16_supported", "is_bfloat16_supported", "is_fp8_supported", "is_supported_version", "runtime",
    "errors", "event_elapsed_time",
]


class CudaSupportError(ImportError):
    """numba's CudaSupportError (never raised by the simulator)."""


class CudaDriverError(RuntimeError):
    """numba's CudaDriverError (never raised by the simulator)."""


class KernelRuntimeError(RuntimeError):
    """numba's KernelRuntimeError (the simulator re-raises a thread's own exception)."""


class SimulatedDevice:
    """The simulator's one device."""

    id = 0
    name = "SIMULATOR"
    compute_capability = (8, 0)
    uuid = "GPU-00000000-0000-0000-0000-000000000000"
    MAX_THREADS_PER_BLOCK = 1024
    MAX_BLOCK_DIM_X = 1024
    MAX_BLOCK_DIM_Y = 1024
    MAX_BLOCK_DIM_Z = 64
    MAX_GRID_DIM_X = 2 ** 31 - 1
    MAX_GRID_DIM_Y = 65535
    MAX_GRID_DIM_Z = 65535
    MAX_SHARED_MEMORY_PER_BLOCK = 49152
    WARP_SIZE = 32
    MULTIPROCESSOR_COUNT = 1
    TOTAL_CONSTANT_MEMORY = 65536

    def reset(self):
        pass

    def get_primary_context(self):
        return current_context()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return "<Managed Device 0 (simulated)>"


_DEVICE = SimulatedDevice()


class Stream:
    """A simulated stream: work runs at once, so it is always complete."""

    def __init__(self, handle=0):
        self.handle = handle

    def synchronize(self):
        pass

    def query(self):
        return True

    @contextlib.contextmanager
    def auto_synchronize(self):
        yield self

    def add_callback(self, callback, arg=None):
        """Call ``callback(stream, status, arg)`` now (the stream's work is done): status 0
        (CUDA_SUCCESS), as numba."""
        callback(self, 0, arg)

    def async_done(self):
        """An :mod:`asyncio` future, already resolved to this stream (its work is done)."""
        import asyncio

        future = asyncio.get_running_loop().create_future()
        future.set_result(self)
        return future

    def capture(self, *args, **kwargs):
        not_simulated("Stream.capture", "CUDA graphs")

    def __int__(self):
        return int(self.handle)

    def __repr__(self):
        return f"<simulated CUDA stream {self.handle}>"


class Event:
    """A simulated event: ``record`` notes the host clock (launches are synchronous in the
    simulator, so the time between two events is the simulation's CPU time, not a GPU
    time); waiting does nothing."""

    def __init__(self, timing=True):
        self.timing = timing
        self._time = None

    def record(self, stream=0):
        self._time = time.perf_counter()
        return self  # as the compiled runtime: cuda.event().record() chains

    def wait(self, stream=0):
        pass

    def synchronize(self):
        pass

    def query(self):
        return True

    def elapsed_time(self, evtend):
        return event_elapsed_time(self, evtend)


def stream():
    s = Stream()
    s.handle = id(s)  # a distinct non-zero handle per stream, as a CUstream
    return s


def default_stream():
    return Stream(0)


def legacy_default_stream():
    return Stream(1)  # CU_STREAM_LEGACY


def per_thread_default_stream():
    return Stream(2)  # CU_STREAM_PER_THREAD


def external_stream(ptr):
    return Stream(ptr)


def event(timing=True):
    return Event(timing)


def event_elapsed_time(evtstart, evtend):
    """Milliseconds between two recorded events (host clock, see :class:`Event`)."""
    for e in (evtstart, evtend):
        if not e.timing:
            raise RuntimeError("event_elapsed_time of an event created with timing=False")
        if e._time is None:
            raise RuntimeError("event_elapsed_time of an event that was never recorded")
    return (evtend._time - evtstart._time) * 1e3


def synchronize():
    pass


def get_current_device():
    return _DEVICE


def select_device(device_id):
    if int(device_id) != 0:
        raise ValueError(f"the cudalite CUDA simulator has one device (0), not {device_id}")
    SIM.device_id = 0
    return _DEVICE


def list_devices():
    return [_DEVICE]


class _Gpus:
    """``cuda.gpus``: the simulated device list."""

    def __len__(self):
        return 1

    def __getitem__(self, i):
        return list_devices()[i]

    def __iter__(self):
        return iter(list_devices())

    @property
    def current(self):
        return _DEVICE


gpus = _Gpus()


def close():
    pass


def detect():
    print("Found 1 CUDA devices\nid 0    SIMULATOR         [SUPPORTED]\n"
          "                      Compute Capability: 8.0\nSummary:\n\t1/1 devices are supported")
    return True


def is_available():
    return True


class MemoryInfo(NamedTuple):
    """``(free, total)`` bytes, as numba's ``get_memory_info()``."""

    free: int
    total: int


class _Context:
    device = _DEVICE

    def get_memory_info(self):
        return MemoryInfo(1 << 33, 1 << 33)

    def reset(self):
        pass

    def synchronize(self):
        pass


def current_context(devnum=None):
    return _Context()


def profile_start():
    pass


def profile_stop():
    pass


@contextlib.contextmanager
def profiling():
    yield


@contextlib.contextmanager
def defer_cleanup():
    yield


def is_float16_supported():
    return True


def is_bfloat16_supported():
    return False


def is_fp8_supported():
    return False


def is_supported_version():
    return True


runtime = Namespace("runtime", get_version=lambda: (12, 0), is_supported_version=is_supported_version)
errors = Namespace("errors", CudaSupportError=CudaSupportError, KernelRuntimeError=KernelRuntimeError,
                    CudaDriverError=CudaDriverError)
