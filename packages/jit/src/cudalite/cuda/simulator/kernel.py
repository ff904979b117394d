"""``cuda.jit`` in the simulator: kernels (:class:`SimKernel`, launched with
``kernel[grid, block, stream, sharedmem](*args)``) and device functions
(:class:`SimDeviceFunction`, plain Python calls).  Signatures and compile options
are accepted and ignored.  A kernel or device function declared with an option that
needs code generation (``link=``, ``cluster_dims=``) can be defined, so that a module
that declares one imports, but launching or calling it raises NotImplementedError."""

from __future__ import annotations

import types as _pytypes

from cudalite.cuda._launch.config import normalize_dim, parse_config

from ._state import in_kernel
from .analysis import analyze
from .context import Dim3
from .host import unwrap_argument
from .launch import MAX_COOPERATIVE_THREADS, run_grid
from .unsupported import not_simulated

__all__ = ["jit", "SimKernel", "SimDeviceFunction", "normalize_dim3"]


def normalize_dim3(value, what: str) -> Dim3:
    """An int or a 1-3 tuple of positive ints as a :class:`Dim3`, validated by the
    compiled runtime's own rules (:func:`cudalite.cuda._launch.config.normalize_dim`)."""
    return Dim3(*normalize_dim(value, what))


class SimDeviceFunction:
    """A ``@cuda.jit(device=True)`` function: calling it calls the Python function."""

    def __init__(self, py_func, unsupported=None):
        self.py_func = py_func
        self._unsupported = unsupported
        self.__name__ = py_func.__name__
        self.__qualname__ = getattr(py_func, "__qualname__", py_func.__name__)
        self.__doc__ = py_func.__doc__
        self.__wrapped__ = py_func

    def __call__(self, *args, **kwargs):
        if self._unsupported is not None:
            not_simulated(*self._unsupported)
        return self.py_func(*args, **kwargs)

    def __repr__(self):
        return f"<simulated device function {self.__qualname__}>"


class _Configured:
    """A kernel and its launch configuration (a :class:`cudalite.driver.LaunchConfig`,
    checked by :mod:`cudalite.cuda._launch.config` exactly as a compiled launch is)."""

    def __init__(self, kernel, config):
        self.kernel = kernel
        self.config, self.stream = parse_config(config)
        self.griddim = Dim3(*self.config.grid)
        self.blockdim = Dim3(*self.config.block)
        self.sharedmem = self.config.shared_mem

    def __call__(self, *args):
        self.kernel._launch(self.griddim, self.blockdim, self.sharedmem, args)


class SimKernel:
    """A simulated kernel."""

    def __init__(self, py_func, signatures=(), options=None, unsupported=None):
        self.py_func = py_func
        self._unsupported = unsupported  # (option, feature): launching raises NotImplementedError
        self.__name__ = py_func.__name__
        self.__qualname__ = getattr(py_func, "__qualname__", py_func.__name__)
        self.__doc__ = py_func.__doc__
        self.__wrapped__ = py_func
        self.signatures = list(signatures)
        self.targetoptions = dict(options or {})
        self._traits = None
        self.extensions = list(self.targetoptions.pop("extensions", None) or ())  # numba-cuda's prepare_args hooks

    def __getitem__(self, config):
        return _Configured(self, config if isinstance(config, tuple) else (config,))

    def __call__(self, *args, **kwargs):
        if in_kernel():  # a kernel called from a kernel runs as a device function (as compiled)
            return self.py_func(*args, **kwargs)
        raise ValueError(f"kernel '{self.__name__}' needs a launch configuration: kernel[griddim, blockdim](...)")

    def configure(self, griddim, blockdim, stream=0, sharedmem=0):
        """numba's older spelling of ``kernel[griddim, blockdim, stream, sharedmem]``."""
        return self[griddim, blockdim, stream, sharedmem]

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """A launcher of ``ntasks`` threads (``tpb`` per block; 128 when 0)."""
        tpb = int(tpb) or 128
        ntasks = int(ntasks)
        return _Configured(self, (max(1, -(-ntasks // tpb)), tpb, stream, sharedmem))

    def specialize(self, *args):
        return self

    def max_cooperative_grid_blocks(self, blockdim):
        nthreads = normalize_dim3(blockdim, "blockdim")
        return max(1, MAX_COOPERATIVE_THREADS // (nthreads.x * nthreads.y * nthreads.z))

    @property
    def definitions(self):
        return {}

    def _launch(self, griddim, blockdim, sharedmem, args):
        if self._unsupported is not None:
            not_simulated(*self._unsupported)
        if self._traits is None:
            self._traits = analyze(self.py_func)
        retr = []
        if self.extensions:  # as a launch on the GPU: the last extension first, its value passed
            args = tuple(_extended(self.extensions, a, retr) for a in args)
        run_grid(self.__name__, self.py_func, tuple(unwrap_argument(a) for a in args), griddim, blockdim,
                 sharedmem, self._traits.grid_sync, sequential=not self._traits.concurrent)
        for work in retr:
            work()

    def __repr__(self):
        return f"<simulated CUDA kernel {self.__qualname__}>"


def _extended(extensions, value, retr):
    ty = None
    for ext in reversed(extensions):
        ty, value = ext.prepare_args(ty, value, stream=0, retr=retr)
    return value


_IGNORED = ("debug", "opt", "fastmath", "lineinfo", "cache", "max_registers", "inline", "lto", "launch_bounds",
            "forceinline", "boundscheck", "abi", "abi_info", "restype")


def jit(func_or_sig=None, device=False, link=(), cluster_dims=None, **options):
    """numba's ``cuda.jit`` for the simulator (see the module docstring)."""
    unsupported = None
    if link:
        unsupported = ("cuda.jit(link=...)", "linking CUDA C/C++, PTX, cubin or LTO-IR code")
    elif cluster_dims is not None:
        unsupported = ("cuda.jit(cluster_dims=...)", "thread-block clusters")
    if options.get("device") is not None:
        device = options.pop("device")

    def wrap(func):
        if isinstance(func, (SimKernel, SimDeviceFunction)):
            func = func.py_func
        if device:
            return SimDeviceFunction(func, unsupported)
        return SimKernel(func, signatures, options, unsupported)

    if isinstance(func_or_sig, _pytypes.FunctionType) or (
            callable(func_or_sig) and hasattr(func_or_sig, "__code__")):
        signatures = ()
        return wrap(func_or_sig)
    signatures = () if func_or_sig is None else (
        list(func_or_sig) if isinstance(func_or_sig, (list, tuple)) else [func_or_sig])
    return wrap
