"""The one lazily created driver singleton: cuInit, primary contexts, current device.

:func:`get_driver` creates the :class:`Driver` on first use under a lock (this is the
only module-level mutable state of cudalite.driver).  The driver retains each device's
primary context once, tracks a per-thread current device (``threading.local``), makes
the right context current with ``cuCtxSetCurrent`` when needed, and releases the
primary contexts at interpreter exit.  It also owns the lazily opened cffi/ctypes
handles of libcuda and the compiled launch shim used by the fast launch path.
"""

from __future__ import annotations

import atexit
import os
import threading

from . import config as _config
from ._cu import call, cu
from .errors import NO_SUPPORT_CODES, CudaDriverError, CudaSupportError

__all__ = ["Driver", "get_driver", "peek_driver"]

_LAUNCH_CDEF = """
int cuLaunchKernel(uintptr_t f, unsigned int gx, unsigned int gy, unsigned int gz,
                   unsigned int bx, unsigned int by, unsigned int bz,
                   unsigned int smem, uintptr_t stream, uintptr_t params, uintptr_t extra);
int cuLaunchKernelEx(uintptr_t config, uintptr_t f, uintptr_t params, uintptr_t extra);
"""


# The oldest driver cudalite runs on: CUDA 13.0 (an R580 driver).  The CUDA 13 wheels it
# compiles with (libNVVM, nvJitLink) make cubins and PTX an older driver cannot load.
MIN_DRIVER_VERSION = 13000


def check_driver_version(version: int) -> None:
    """Raise :class:`CudaSupportError` (``CUDA_ERROR_INSUFFICIENT_DRIVER``) when the
    driver's CUDA version (``cuDriverGetVersion``: 1000 * major + 10 * minor) is
    older than :data:`MIN_DRIVER_VERSION`."""
    if version >= MIN_DRIVER_VERSION:
        return
    have = f"{version // 1000}.{version % 1000 // 10}"
    need = f"{MIN_DRIVER_VERSION // 1000}.{MIN_DRIVER_VERSION % 1000 // 10}"
    raise CudaSupportError(
        35, "CUDA_ERROR_INSUFFICIENT_DRIVER",
        f"the NVIDIA driver supports CUDA {have} ({version}); cudalite needs CUDA {need} or newer, "
        f"an R580 or newer driver (nvidia-smi shows the driver and its CUDA version): the CUDA 13 "
        f"libraries it compiles with make code an older driver cannot load",
        "cuDriverGetVersion")


class Driver:
    """Process-wide driver state. Obtain it with :func:`get_driver`, never construct."""

    def __init__(self, cfg=None):
        self.config = cfg or _config.load_config()
        try:
            call("cuInit", 0)
        except CudaDriverError as exc:
            if exc.code in NO_SUPPORT_CODES:
                raise CudaSupportError(exc.code, exc.name, exc.message, exc.call) from None
            raise
        except Exception as exc:  # libcuda not found (GPU-less machine)
            raise CudaSupportError(3, "CUDA_ERROR_NOT_INITIALIZED", f"libcuda could not be loaded: {exc}",
                                   "cuInit") from None
        check_driver_version(call("cuDriverGetVersion"))
        self.device_count = call("cuDeviceGetCount")
        self.alive = True
        self._lock = threading.RLock()
        self._tls = threading.local()
        self._handles = {}  # device id -> CUdevice
        self._contexts = {}  # device id -> CUcontext (primary, retained once)
        self._native = {}  # backend name -> library handle
        self._pools = {}  # device id -> DevicePool (made on first use: cudalite.driver.pool.memory_pool)
        self.captures = 0  # stream captures begun through cudalite.driver.graph and not ended
        atexit.register(self.shutdown)

    # -- devices and contexts -------------------------------------------------
    def device_handle(self, i):
        """The CUdevice of ordinal ``i`` (validated)."""
        h = self._handles.get(i)
        if h is None:
            if not isinstance(i, int) or not 0 <= i < self.device_count:
                raise CudaDriverError(101, "CUDA_ERROR_INVALID_DEVICE",
                                      f"no device {i!r} ({self.device_count} present)", "cuDeviceGet")
            h = self._handles[i] = call("cuDeviceGet", i)
        return h

    def context(self, i):
        """The primary context of device ``i``, retained on first use."""
        ctx = self._contexts.get(i)
        if ctx is None:
            with self._lock:
                ctx = self._contexts.get(i)
                if ctx is None:
                    ctx = self._contexts[i] = call("cuDevicePrimaryCtxRetain", self.device_handle(i))
        return ctx

    def set_current(self, i):
        """Make device ``i`` current for the calling thread (cuCtxSetCurrent)."""
        ctx = self.context(i)
        call("cuCtxSetCurrent", ctx)
        self._tls.device = i
        return i

    def current(self):
        """The calling thread's device id; makes its primary context current if
        another (or no) context is current in this thread.  A thread that never chose
        a device adopts the device whose *primary* context another library made current
        in it (torch.cuda.set_device, CuPy's Device.use), else gets device 0."""
        i = getattr(self._tls, "device", None)
        if i is None:
            return self.set_current(self._adopted_device())
        cur = call("cuCtxGetCurrent")
        if int(cur) != int(self._contexts[i]):
            call("cuCtxSetCurrent", self._contexts[i])
        return i

    def _adopted_device(self):
        """The device of the primary context current in this thread (set by another
        library), or 0 when none (or another kind of context) is current."""
        try:
            cur = int(call("cuCtxGetCurrent") or 0)
            if not cur:
                return 0
            dev = int(call("cuCtxGetDevice"))
        except CudaDriverError:
            return 0
        if 0 <= dev < self.device_count and int(self.context(dev)) == cur:
            return dev
        return 0

    def current_id(self):
        """The calling thread's device id from the per-thread record alone (no driver
        call once the thread has one; the first call is :meth:`current`)."""
        i = getattr(self._tls, "device", None)
        return self.current() if i is None else i

    def push(self, i):
        """Push device ``i``'s primary context (for finalizers running on any thread)."""
        call("cuCtxPushCurrent", self.context(i))

    def pop(self):
        call("cuCtxPopCurrent")

    # -- native libcuda for the launch path -----------------------------------
    def native(self, backend):
        """The libcuda handle for launch backend ``cffi`` or ``ctypes``, or for ``shim``
        ``(Shim, cuLaunchKernel address, cuLaunchKernelEx address, cuGraphLaunch address)`` or None
        when the shim cannot be built here, or for ``stream_callback`` the C trampoline
        of stream callbacks (opened/built once per process)."""
        try:
            return self._native[backend]
        except KeyError:
            pass
        with self._lock:
            if backend not in self._native:
                self._native[backend] = _open_native(backend, self.config)
            return self._native[backend]

    def shutdown(self):
        """Release the primary contexts (atexit). Errors are ignored: the driver may
        already be tearing down."""
        if not self.alive:
            return
        self.alive = False
        driver = cu()
        for i, _ctx in list(self._contexts.items()):
            try:
                driver.cuDevicePrimaryCtxRelease(self._handles[i])
            except Exception:
                pass
        self._contexts.clear()


def _open_shim(cfg):
    from . import _shim

    shim = _shim.load_shim(cfg.cache_dir or _config.default_cache_dir(), cfg.cc)
    if shim is None:
        return None
    try:
        return (shim, *_shim.entry_points(cfg.libcuda))
    except Exception:
        return None


def _open_native(backend, cfg):
    path = cfg.libcuda
    if backend == "stream_callback":
        from ._callback import make_callback_trampoline

        return make_callback_trampoline()
    if backend == "shim":
        return _open_shim(cfg)
    if backend == "cffi":
        import cffi

        ffi = cffi.FFI()
        ffi.cdef(_LAUNCH_CDEF)
        return ffi.dlopen(path)
    if backend == "ctypes":
        import ctypes

        lib = ctypes.CDLL(path)
        u, p = ctypes.c_uint, ctypes.c_size_t
        lib.cuLaunchKernel.argtypes = [p, u, u, u, u, u, u, u, p, p, p]
        lib.cuLaunchKernelEx.argtypes = [p, p, p, p]  # config, f, kernelParams, extra
        for fn in (lib.cuLaunchKernel, lib.cuLaunchKernelEx):
            fn.restype = ctypes.c_int
        return lib
    raise ValueError(f"no native library for launch backend {backend!r}")


_DRIVER = None
_DRIVER_LOCK = threading.Lock()
_FORKED = []  # non-empty in a child forked after the driver was initialized: CUDA is unusable there


def _after_fork_in_child():
    """CUDA cannot be used in a child forked after cuInit (the CUDA driver's rule):
    drop the parent's driver so that nothing calls into it, and make every later use
    raise numba's error instead of failing obscurely."""
    global _DRIVER, _DRIVER_LOCK
    if _DRIVER is not None:
        _DRIVER = None
        _FORKED.append(True)
    _DRIVER_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def get_driver() -> Driver:
    """The process-wide :class:`Driver`, created (cuInit) on first call.  In a child
    forked after that, raises ``CudaDriverError("CUDA initialized before forking")``."""
    global _DRIVER
    d = _DRIVER
    if d is None:
        if _FORKED:
            raise CudaDriverError(3, "CUDA initialized before forking")  # 3: CUDA_ERROR_NOT_INITIALIZED
        with _DRIVER_LOCK:
            if _DRIVER is None:
                _DRIVER = Driver()
            d = _DRIVER
    return d


def peek_driver():
    """The driver if it exists and is alive, else None (never initializes)."""
    d = _DRIVER
    return d if d is not None and d.alive else None
