"""``@cuda.jit``: kernel and device-function dispatchers (numba.cuda semantics).

:func:`jit` returns a :class:`CUDADispatcher` (a kernel; launched with
``kernel[griddim, blockdim, stream, sharedmem](*args)``) or, with
``device=True``, a :class:`DeviceDispatcher` (callable from kernels and other
device functions: the core compiler sees its ``__cudalite_pyfunc__``).

Kernels compile lazily, once per tuple of argument type keys (see ``_args``), or
eagerly for the signatures given to the decorator (then only those signatures
are launched, numba's behaviour; arguments convert to them).  Compilation is
serialized per dispatcher (two threads launching a new specialization compile it
once).  The launch path is generated code (``_fastpath``); the slow path here
handles first calls, NumPy host arrays (copied in and back, with a
:class:`NumbaPerformanceWarning`), debug-mode exception checks and big dynamic
shared memory.
"""

from __future__ import annotations

import functools
import threading
import warnings

from cudalite.driver import CudaDriverError

from ._args import NumbaPerformanceWarning, compatible, key_to_type
from ._compile import CompiledKernel, JitOptions, compile_code, current_cc
from ._dispatcher_inspect import InspectMixin
from ._fastpath import launcher_param_names, make_factory, slow_factory
from ._warmup import start_warmup
from ._faults import jit_runtime, kernel_fault
from ._launchconfig import parse_config

__all__ = ["jit", "CUDADispatcher", "DeviceDispatcher", "ForAll"]

_MISSING_CONFIG = (
    "Kernel launch configuration was not specified. Use the syntax:\n\n"
    "kernel_function[blockspergrid, threadsperblock](arg0, arg1, ..., argn)\n\n"
    "See the numba.cuda documentation (kernel invocation) for help.")
_BIG_SHARED = 48 * 1024
_MAX_CONFIGS = 256


def _signature_args(sig):
    from cudalite.core.types import parse_signature

    _ret, args = parse_signature(sig)
    return tuple(args)


def _driver_unavailable(exc) -> bool:
    return isinstance(exc, (CudaDriverError, ImportError, OSError))


class CUDADispatcher(InspectMixin, dict):
    """A kernel.  ``overloads`` maps argument types to compiled kernels.

    The dispatcher is (privately) a dict from launch configurations to configured
    launchers, so that ``kernel[griddim, blockdim]`` is a C-level lookup on the
    hot path; a configuration seen for the first time goes through
    ``__missing__`` (parsed and validated once)."""

    __hash__ = object.__hash__
    __eq__ = object.__eq__
    __ne__ = object.__ne__

    def __bool__(self):
        return True

    def __init__(self, py_func, sigs=None, options: JitOptions = JitOptions()):
        dict.__init__(self)
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        self.options = options
        self.overloads = {}
        self._specs = {}  # tuple of argument type keys -> CompiledKernel
        self._factories = {}  # (classes, keys) -> generated launcher factory (or None)
        self._factory = None  # the most recently used factory: new configurations get it
        self._lock = threading.RLock()
        self._rt = jit_runtime()
        start_warmup(self._rt)  # libraries and driver get ready while the program goes on
        self._names = launcher_param_names(py_func)
        self._compiler = CompiledKernel
        self._eager = sigs is not None
        self._pending = []  # eager signatures type-checked without a device, compiled on first launch
        for sig in sigs or ():
            self.compile(sig)

    # -- compilation ----------------------------------------------------------------------
    def compile(self, sig):
        """Compile (and load) the kernel for ``sig`` on the current device; returns the
        compiled kernel.  Without a usable device, type-check it now and compile on
        first launch."""
        argtypes = _signature_args(sig)
        with self._lock:
            kernel = self.overloads.get(argtypes)
            if kernel is not None:
                return kernel
            try:
                cc = current_cc()
            except Exception as e:  # no driver / no GPU: check the code now, build it later
                if not _driver_unavailable(e):
                    raise
                compile_code(self.py_func, argtypes, self.options, None, until="typed-ir")
                if argtypes not in self._pending:
                    self._pending.append(argtypes)
                return None
            kernel = self._compiler(self.py_func, argtypes, self.options, cc)
            self.overloads[argtypes] = kernel
            return kernel

    def compile_ptx_for(self, sig, cc=None):
        """GPU-less: the PTX of this kernel for ``sig`` and ``cc`` (default: the
        compiler's default target)."""
        return compile_code(self.py_func, _signature_args(sig), self.options, cc, until="ptx").artifacts["ptx"].data

    def _match_eager(self, keys):
        best, best_score = None, -1
        for argtypes in list(self.overloads) + self._pending:
            if len(argtypes) != len(keys):
                continue
            scores = [compatible(k, t) for k, t in zip(keys, argtypes)]
            if min(scores, default=1) < 0:
                continue
            score = sum(scores)
            if score > best_score:
                best, best_score = argtypes, score
        if best is None:
            shown = ", ".join(str(key_to_type(k)) for k in keys)
            raise TypeError(f"No matching definition for argument type(s) {shown} of kernel "
                            f"{self.py_func.__qualname__}; its signatures are: "
                            + "; ".join(f"({', '.join(map(str, a))})" for a in list(self.overloads) + self._pending))
        return best

    def _kernel_for(self, keys):
        kernel = self._specs.get(keys)
        if kernel is not None:
            return kernel
        with self._lock:
            kernel = self._specs.get(keys)
            if kernel is not None:
                return kernel
            argtypes = self._match_eager(keys) if self._eager else tuple(key_to_type(k) for k in keys)
            kernel = self.overloads.get(argtypes)
            if kernel is None:
                kernel = self._compiler(self.py_func, argtypes, self.options, current_cc())
                self.overloads[argtypes] = kernel
                if argtypes in self._pending:
                    self._pending.remove(argtypes)
            self._specs[keys] = kernel
            return kernel

    def specialize(self, *args):
        """A dispatcher compiled for the types of ``args`` only (no further compilation)."""
        keys, _handlers, _args = self._keys(args)
        kernel = self._kernel_for(keys)
        spec = CUDADispatcher.__new__(CUDADispatcher)
        spec.__dict__.update(self.__dict__)
        spec.overloads = {kernel.argtypes: kernel}
        spec._specs, spec._factories, spec._factory = {keys: kernel}, {}, None
        spec._lock, spec._eager, spec._pending = threading.RLock(), True, []
        return spec

    @property
    def specializations(self):
        return dict(self.overloads)

    # -- launching ------------------------------------------------------------------------
    def __missing__(self, config):
        fn = self._configure(config, self._factory)
        if len(self) >= _MAX_CONFIGS:
            self.clear()
        self[config] = fn
        return fn

    def _configure(self, config, factory):
        grid, block, sh, shm, stream = parse_config(config)
        if factory is None or shm > _BIG_SHARED:
            factory = slow_factory(self)
        return factory(grid, block, shm, sh, stream, config)

    def __repr__(self):
        return f"<CUDADispatcher {self.py_func.__qualname__}>"

    def __call__(self, *args, **kwargs):
        raise ValueError(_MISSING_CONFIG)

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """A launcher running ``ntasks`` threads in 1-D blocks (occupancy-sized when
        ``tpb`` is 0)."""
        return ForAll(self, ntasks, tpb, stream, sharedmem)

    def _keys(self, args):
        rt = self._rt
        handlers = [rt.handler(type(a), a) for a in args]
        return tuple(h.key(a) for h, a in zip(handlers, args)), handlers, args

    def _to_device(self, args, handlers, stream):
        """Copy NumPy arguments in; returns (args, handlers, [(device, host), ...])."""
        from ._memory_api import to_device

        from .config import load_config

        cfg = load_config()
        if cfg.warn_on_implicit_copy and not cfg.disable_performance_warnings:
            warnings.warn(NumbaPerformanceWarning(
                "Host array used in CUDA kernel will incur copy overhead to/from device."), stacklevel=4)
        args, handlers, copies = list(args), list(handlers), []
        for i, (h, a) in enumerate(zip(handlers, args)):
            if h.host:
                d = to_device(a, stream=stream)
                copies.append((d, a))
                args[i], handlers[i] = d, self._rt.handler(type(d), d)
        return args, handlers, copies

    def _launch_slow(self, grid, block, shm, sh, stream, args, config=None):
        if len(args) != len(self._names):
            raise TypeError(f"{self.py_func.__name__}() takes {len(self._names)} arguments ({len(args)} given)")
        rt = self._rt
        handlers = [rt.handler(type(a), a) for a in args]
        copies = None
        if any(h.host for h in handlers):
            args, handlers, copies = self._to_device(args, handlers, stream)
        keys = tuple(h.key(a) for h, a in zip(handlers, args))
        kernel = self._kernel_for(keys)
        if copies is None and shm <= _BIG_SHARED:
            classes = tuple(map(type, args))
            factory = self._factories.get((classes, keys), False)
            if factory is False:
                factory = make_factory(self, self._names, handlers, keys, kernel, rt.last)
                self._factories[(classes, keys)] = factory
            if factory is not None:  # later launches with this configuration: the fast path
                self._factory = factory
                if config is not None:
                    try:
                        self[config] = factory(grid, block, shm, sh, stream, config)
                    except TypeError:  # an unhashable configuration
                        pass
        values = []
        for h, a, spec in zip(handlers, args, kernel.abi.args):
            values.extend(h.flat(a, spec, sh))
        kernel.ensure_dynamic_shared(shm)
        try:
            kernel.launch(grid, block, shm, sh, *values)
        except CudaDriverError as e:  # a fault of an earlier kernel reported here
            raise kernel_fault(e, kernel.device_id) from None
        rt.last[kernel.device_id] = kernel
        try:
            if copies:
                for d, a in copies:
                    d.copy_to_host(a, stream=stream)
                from cudalite.driver import Stream

                Stream.external(sh).synchronize()
            kernel.check_exceptions(sh)
        except CudaDriverError as e:
            raise kernel_fault(e, kernel.device_id) from None


class ForAll:
    """``kernel.forall(ntasks, tpb, stream, sharedmem)(*args)``."""

    def __init__(self, dispatcher, ntasks, tpb=0, stream=0, sharedmem=0):
        if ntasks < 0:
            raise ValueError(f"can't create ForAll with negative task count: {ntasks}")
        self.dispatcher, self.ntasks, self.tpb, self.stream, self.sharedmem = dispatcher, ntasks, tpb, stream, sharedmem

    def __call__(self, *args):
        if self.ntasks == 0:
            return
        d = self.dispatcher
        keys, _h, _a = d._keys(args)
        kernel = d._kernel_for(keys)
        tpb = self.tpb or kernel.function.max_potential_block_size(self.sharedmem)[1]
        tpb = max(1, min(int(tpb), self.ntasks))
        blocks = (self.ntasks + tpb - 1) // tpb
        d[blocks, tpb, self.stream, self.sharedmem](*args)


class DeviceDispatcher(InspectMixin):
    """A ``device=True`` function: compiled into the kernels (and device functions)
    that call it; calling it from Python is an error."""

    def __init__(self, py_func, sigs=None, options: JitOptions = JitOptions()):
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        self.__cudalite_pyfunc__ = py_func
        self.__cudalite_links__ = tuple(options.link)  # linked into every kernel calling it
        self.options = options
        self.overloads = {}
        for sig in sigs or ():  # type-check eagerly: errors at decoration time
            argtypes = _signature_args(sig)
            res = compile_code(py_func, argtypes, options, None, device=True, until="typed-ir")
            self.overloads[argtypes] = res

    def __call__(self, *args, **kwargs):
        raise TypeError(f"{self.py_func.__qualname__} is a CUDA device function (@cuda.jit(device=True)): "
                        "call it from a kernel or another device function, not from Python")

    def compile_ptx(self, sig, cc=None, abi="numba", **kws):
        """``cuda.compile_ptx`` of this device function: ``(ptx, resty)``."""
        from cudalite.nvvm import compile_ptx

        return compile_ptx(self.py_func, sig, device=True, cc=cc, abi=abi, **kws)

    def compile(self, sig, cc=None, abi="c", output="ptx", **kws):
        """``cuda.compile`` of this device function: ``(code, resty)``."""
        from cudalite.nvvm import compile as nvvm_compile

        return nvvm_compile(self.py_func, sig, device=True, cc=cc, abi=abi, output=output, **kws)

    def __repr__(self):
        return f"<DeviceDispatcher {self.py_func.__qualname__}>"


_KNOWN = {"fastmath", "max_registers", "launch_bounds", "forceinline", "lto", "extensions"}


def _options(debug, opt, lineinfo, cache, link, inline, kws) -> JitOptions:
    unknown = set(kws) - _KNOWN
    if unknown:
        raise TypeError(f"cuda.jit() got unexpected keyword argument(s): {', '.join(sorted(unknown))}")
    if kws.get("extensions"):
        raise NotImplementedError("cuda.jit(extensions=...) is not supported by cudalite")
    max_registers = kws.get("max_registers")
    if max_registers is not None and (not isinstance(max_registers, int) or isinstance(max_registers, bool)
                                      or max_registers <= 0):
        raise ValueError(f"max_registers must be a positive int, not {max_registers!r}")
    if isinstance(link, (str, bytes)) or not isinstance(link, (list, tuple)):
        raise TypeError(f"link must be a list of paths or linkable code objects, not {link!r}")
    from cudalite.linker import LinkableCode
    import os

    for item in link:
        if not isinstance(item, (str, os.PathLike, LinkableCode)):
            raise TypeError(f"link items must be paths or cudalite.linker code objects, not {item!r}")
    if inline not in ("never", "always", True, False, None):
        raise ValueError(f"inline must be 'never' or 'always', not {inline!r}")
    fastmath = kws.get("fastmath", False)
    opts = JitOptions(debug=bool(debug), lineinfo=bool(lineinfo), opt=opt, fastmath=bool(fastmath),
                      max_registers=max_registers, launch_bounds=kws.get("launch_bounds"),
                      forceinline=bool(kws.get("forceinline", False) or inline in ("always", True)),
                      link=tuple(link), cache=bool(cache))
    from ._compile import _nvvm_options

    _nvvm_options(opts, None)  # validates opt and launch_bounds now, GPU-less
    if debug and opt:
        warnings.warn("debug=True with opt=True: optimizations may make debugging less useful", stacklevel=3)
    return opts


def jit(func_or_sig=None, device=False, inline="never", link=(), debug=None, opt=None, lineinfo=False,
        cache=False, **kws):
    """JIT-compile a Python function as a CUDA kernel (or a device function with
    ``device=True``).  ``@cuda.jit``, ``@cuda.jit("void(float32[:], float32)")``,
    ``@cuda.jit([sig1, sig2])``, ``@cuda.jit(device=True, debug=True, ...)``."""
    opts = _options(debug, opt, lineinfo, cache, link, inline, kws)
    cls = DeviceDispatcher if device else CUDADispatcher
    if callable(func_or_sig) and hasattr(func_or_sig, "__code__"):
        return cls(func_or_sig, None, opts)
    if func_or_sig is None:
        sigs = None
    elif isinstance(func_or_sig, list):
        sigs = list(func_or_sig)
    else:
        sigs = [func_or_sig]
    if sigs is not None:  # validate the signatures now
        for sig in sigs:
            _signature_args(sig)

    def decorate(func):
        if isinstance(func, (CUDADispatcher, DeviceDispatcher)):
            func = func.py_func
        if not callable(func) or not hasattr(func, "__code__"):
            raise TypeError(f"cuda.jit decorates Python functions, not {func!r}")
        return cls(func, sigs, opts)

    return decorate
