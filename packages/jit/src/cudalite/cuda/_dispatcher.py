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

from cudalite.core.types import Type
from cudalite.driver import CudaDriverError

from ._arghints import ArgHint, prepare_hints
from ._args import NumbaPerformanceWarning, RecordCopyBack, RecordScalarHandler, TupleHandler  # noqa: I001
from ._args import eager_rank, key_to_type, needs_host_copy
from ._compile import CompiledKernel, JitOptions, compile_code, current_cc
from ._devices import current_id, launch_target, multi_gpu, on_device
from ._jit_options import jit_options, mark_inline
from ._dispatcher_inspect import InspectMixin
from ._device_dispatcher import DeviceDispatcher
from ._fastpath import launcher_param_names, make_factory, slow_factory
from ._warmup import start_warmup
from ._faults import jit_runtime, kernel_fault
from ._launchconfig import MIN_GRID_SIZE, check_cluster_grid, parse_config, warn_low_occupancy
from ._carry import CarriedCode
from ._pickling import reduce_dispatcher
from ._stats import CompileStats

__all__ = ["jit", "CUDADispatcher", "DeviceDispatcher", "ForAll"]

_MISSING_CONFIG = (
    "Kernel launch configuration was not specified. Use the syntax:\n\n"
    "kernel_function[blockspergrid, threadsperblock](arg0, arg1, ..., argn)\n\n"
    "See the numba.cuda documentation (kernel invocation) for help.")
_BIG_SHARED = 48 * 1024
_MAX_CONFIGS = 256


def _signature(sig):
    from cudalite.core.types import parse_signature

    ret, args = parse_signature(sig)
    return ret, tuple(args)


def _signature_args(sig):
    return _signature(sig)[1]


def _config_key(config):
    """A launch configuration with its list-valued items (and a list configuration
    itself) as tuples, so that it can key the configuration table as numba's
    ``kernel[[2, 2], [16, 16]]`` does."""
    if type(config) is list:
        config = tuple(config)
    if type(config) is tuple and any(type(c) is list for c in config):
        config = tuple(tuple(c) if type(c) is list else c for c in config)
    return config


def _driver_unavailable(exc) -> bool:
    return isinstance(exc, (CudaDriverError, ImportError, OSError))


class CUDADispatcher(InspectMixin):
    """A kernel: a Python function compiled for CUDA once per argument types, and
    launched with ``kernel[griddim, blockdim, stream, sharedmem](*args)``.

    Made by :func:`jit`; not meant to be constructed directly.

    Attributes
    ----------
    py_func : function
        The decorated Python function.
    options : JitOptions
        The compile options given to :func:`jit`.
    overloads : dict
        Argument types (a tuple of ``cudalite.types``) -> compiled kernel, one per
        specialization compiled so far.

    Notes
    -----
    Launch configurations live in a private table (``_configs``: configuration ->
    configured launcher, at most 256 entries, emptied when full), so that
    ``kernel[griddim, blockdim]`` costs one dict lookup on the hot path; a
    configuration seen for the first time is parsed and validated once
    (:meth:`_configure_new`).
    """

    def __init__(self, py_func, sigs=None, options: JitOptions = JitOptions(), *, compiler=None):
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        # called (not launched) from device code, a kernel is compiled into its caller as
        # a device function of the same Python function, as in numba-cuda; its links follow
        self.__cudalite_pyfunc__ = py_func
        self.__cudalite_links__ = tuple(options.link)
        self.options = options
        self.overloads = {}
        self._configs = {}  # launch configuration -> configured launcher (bounded: _MAX_CONFIGS)
        self._specs = {}  # tuple of argument type keys -> CompiledKernel
        self._factories = {}  # (classes, keys) -> generated launcher factory (or None)
        self._factory = None  # the most recently used factory: new configurations get it
        self._lock = threading.RLock()
        self._rt = jit_runtime()
        start_warmup(self._rt)  # libraries and driver get ready while the program goes on
        self._names = launcher_param_names(py_func)
        self._compiler = CompiledKernel if compiler is None else compiler  # _carry.CarriedCode once unpickled
        self.stats = CompileStats()  # cache hits and misses per signature, as numba's dispatcher
        self._eager = sigs is not None
        self._spec_cache = {}  # argument types -> the dispatcher specialize() made for them
        self._sigs = tuple(sigs) if sigs is not None else None  # as given: pickling remakes the dispatcher
        self._pending = []  # eager signatures type-checked without a device, compiled on first launch
        for sig in sigs or ():
            self.compile(sig)

    # -- compilation ----------------------------------------------------------------------
    def compile(self, sig):
        """Compile (and load) the kernel for one signature on the current device.

        Parameters
        ----------
        sig : str or Signature or tuple
            The argument types, e.g. ``"void(float32[::1], float32)"``,
            ``types.void(types.float32[::1], types.float32)`` or a tuple of types.
            The return type, when given, must be ``void``.

        Returns
        -------
        CompiledKernel or None
            The compiled and loaded kernel (the same object when this signature was
            compiled before), also kept in :attr:`overloads`.  None when no device
            is usable (no driver, no GPU): the kernel is then only type-checked,
            and compiled on its first launch.

        Raises
        ------
        cudalite.core.errors.CompilerError
            The signature does not parse (``SignatureError``, also a ``TypeError``)
            or the function does not compile for it (``TypingError``,
            ``UnsupportedError``, ...), with the source location.
        cudalite.driver.CudaDriverError
            Loading the compiled module fails on the device.
        """
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
            self.stats.record(argtypes, kernel)
            self.overloads[argtypes] = kernel
            return kernel

    def recompile(self):
        """Compile every signature compiled so far afresh (numba's ``recompile``): globals
        and closure values are read again, and launchers made before keep the old code.
        With caching, the new code's key differs when a global did, so it is stored
        beside the old entry.  Compiled code a pickle carried is dropped."""
        with self._lock:
            self._compiler = self._compiler.fallback if isinstance(self._compiler, CarriedCode) else self._compiler
            sigs = list(self.overloads) + [a for a in self._pending if a not in self.overloads]
            self.overloads, self._specs, self._configs, self._factories, self._factory = {}, {}, {}, {}, None
            self._pending = []
            for argtypes in sigs:
                self.compile(argtypes)

    def compile_ptx_for(self, sig, cc=None):
        """The PTX of this kernel for one signature, compiled without a GPU.

        Parameters
        ----------
        sig : str or Signature or tuple
            The argument types, as for :meth:`compile`.
        cc : tuple of int, optional
            The target compute capability, e.g. ``(9, 0)``.  Default: the
            compiler's default target (``CUDALITE_DEFAULT_CC``, else ``(7, 5)``).

        Returns
        -------
        str
            The PTX text of the kernel (with the dispatcher's compile options).

        Raises
        ------
        cudalite.core.errors.CompilerError
            The signature does not parse or the function does not compile for it.
        """
        return compile_code(self.py_func, _signature_args(sig), self.options, cc, until="ptx").artifacts["ptx"].data

    def _match_eager(self, keys):
        """The eager signature the argument type keys convert to best: fewest unsafe,
        then safe conversions, then promotions (numba's kinds); two best ones are
        ambiguous (TypeError), as in numba."""
        sigs = list(self.overloads) + self._pending
        ranked = []
        for argtypes in sigs:
            rank = eager_rank(keys, argtypes, len(sigs) == 1) if len(argtypes) == len(keys) else None
            if rank is not None:
                ranked.append((rank, argtypes))
        best = min(ranked, key=lambda r: r[0])[1] if ranked else None
        ties = [a for r, a in ranked if r == min(r for r, _ in ranked)] if ranked else []
        if len(ties) > 1:
            shown = ", ".join(str(key_to_type(k)) for k in keys)
            raise TypeError(f"Ambiguous overloading for {self.py_func!r} ({shown}):\n"
                            + "\n".join(f"({', '.join(map(str, a))}) -> none" for a in ties))
        if best is None:
            shown = ", ".join(str(key_to_type(k)) for k in keys)
            raise TypeError(f"No matching definition for argument type(s) {shown} of kernel "
                            f"{self.py_func.__qualname__}; its signatures are: "
                            + "; ".join(f"({', '.join(map(str, a))})" for a in sigs))
        return best

    def _kernel_for_types(self, argtypes):
        """The compiled kernel of ``argtypes`` for the current device (compiled once)."""
        with self._lock:
            kernel = self.overloads.get(argtypes)
            if kernel is None:
                kernel = self._compiler(self.py_func, argtypes, self.options, current_cc())
                self.stats.record(argtypes, kernel)
                self.overloads[argtypes] = kernel
                if argtypes in self._pending:
                    self._pending.remove(argtypes)
            return kernel

    def _kernel_for(self, keys):
        kernel = self._specs.get(keys)
        if kernel is not None:
            return kernel
        with self._lock:
            kernel = self._specs.get(keys)
            if kernel is not None:
                return kernel
            argtypes = self._match_eager(keys) if self._eager else tuple(key_to_type(k) for k in keys)
            kernel = self._specs[keys] = self._kernel_for_types(argtypes)
            return kernel

    def specialize(self, *args):
        """A kernel compiled for the types of ``args`` only.

        Parameters
        ----------
        *args
            Example arguments (device arrays, CUDA array interface objects,
            scalars, ...): only their types matter; nothing is launched.  Or the
            argument types themselves (``float32[::1]``, ...), as numba accepts.

        Returns
        -------
        CUDADispatcher
            The dispatcher specialized for those types (made once, then the same
            object for the same types), with one overload (compiled now if needed) and its own
            launch-configuration table.  It compiles nothing further: arguments of
            other types raise ``TypeError`` at launch (or convert, as with eager
            signatures).

        Raises
        ------
        RuntimeError
            This dispatcher is already specialized (eager signatures, or made by
            ``specialize``), as numba.
        TypeError
            An argument cannot be passed to a kernel.
        cudalite.core.errors.CompilerError
            The kernel does not compile for the argument types.
        """
        if self._eager:
            raise RuntimeError(f"Dispatcher already specialized: {self.py_func.__qualname__} was compiled for "
                               "fixed signatures (given to @cuda.jit, or by specialize())")
        if args and all(isinstance(a, Type) for a in args):  # numba also takes the types themselves
            keys, kernel = None, self._kernel_for_types(tuple(args))
        else:
            keys, _handlers, _args = self._keys(args)
            kernel = self._kernel_for(keys)
        spec = self._spec_cache.get(kernel.argtypes)
        if spec is not None:
            return spec
        spec = CUDADispatcher.__new__(CUDADispatcher)
        spec.__dict__.update(self.__dict__)
        spec.overloads = {kernel.argtypes: kernel}
        spec._specs, spec._factories, spec._factory = ({keys: kernel} if keys else {}), {}, None
        spec._configs, spec._spec_cache = {}, {}  # its own launchers (the parent's fall back to its slow path)
        spec._lock, spec._eager, spec._pending = threading.RLock(), True, []
        return self._spec_cache.setdefault(kernel.argtypes, spec)

    @property
    def signatures(self):
        """list: the argument types (tuples of ``cudalite.types``) of the compiled
        specializations, and of eager signatures not compiled yet (no device)."""
        return list(self.overloads) + [a for a in self._pending if a not in self.overloads]

    def get_compile_result(self, sig):
        """The compiled kernel (:class:`CompiledKernel`) for signature ``sig`` (a
        ``Signature``, a signature string or a tuple of argument types), compiling it
        first when needed (numba's ``get_compile_result``); CudaSupportError without a device.

        Parameters
        ----------
        sig : Signature, str or tuple
        """
        argtypes = tuple(sig.args) if hasattr(sig, "args") else _signature_args(sig)
        kernel = self.overloads.get(argtypes)
        if kernel is None:
            kernel = self.compile(argtypes)
            if kernel is None:  # no device: compiled on first launch only
                from cudalite.driver import CudaSupportError

                raise CudaSupportError(100, "CUDA_ERROR_NO_DEVICE",
                                       f"{self.py_func.__qualname__}{argtypes} was type-checked; "
                                       "loading it needs a CUDA device", "get_compile_result")
        return kernel

    def configure(self, griddim, blockdim, stream=0, sharedmem=0):
        """``kernel.configure(griddim, blockdim, stream, sharedmem)`` is
        ``kernel[griddim, blockdim, stream, sharedmem]`` (numba's spelling).

        Parameters
        ----------
        griddim, blockdim : int or tuple of int
        stream : ~cudalite.cuda.Stream or int, optional
        sharedmem : int, optional
        """
        if sharedmem == 0:  # the spelling kernel[g, b] (or [g, b, s]) uses: the same cached launcher
            default = stream is None or (isinstance(stream, int) and stream == 0)
            return self[griddim, blockdim] if default else self[griddim, blockdim, stream]
        return self[griddim, blockdim, stream, sharedmem]

    @property
    def specializations(self):
        """dict: a copy of :attr:`overloads` (argument types -> compiled kernel)."""
        return dict(self.overloads)

    # -- launching ------------------------------------------------------------------------
    def __getitem__(self, config):
        """``kernel[griddim, blockdim, stream, sharedmem]``: a launcher of this kernel
        with that launch configuration; call it with the kernel's arguments.

        Parameters
        ----------
        config : tuple
            ``(griddim, blockdim)``, ``(griddim, blockdim, stream)`` or
            ``(griddim, blockdim, stream, sharedmem)``.  ``griddim`` and ``blockdim``
            are ints or sequences (tuples or lists) of 1 to 3 ints; ``stream`` is a
            stream object, a raw ``CUstream`` handle or ``0``/``None`` (the legacy
            default stream); ``sharedmem`` is the dynamic shared memory in bytes.

        Returns
        -------
        callable
            ``launcher(*args)`` launches the kernel (compiling it first for new
            argument types) and returns None.  The launch is asynchronous, except
            that NumPy array arguments are copied to the device and back (with a
            :class:`NumbaPerformanceWarning`) and the stream is then synchronized.
            The launcher raises ``TypeError`` for a wrong number of arguments or
            an argument that cannot be passed (or matches no eager signature),
            ``CompilerError`` when the kernel does not compile for the arguments'
            types, ``CudaDriverError`` when the launch fails (a
            :class:`KernelFaultError`, naming the kernel, for a device fault), and
            with ``debug=True`` or ``boundscheck=True`` (the launch then
            synchronizes) the exception the kernel raised.

        Raises
        ------
        ValueError
            The configuration has not 2 to 4 items, a dimension is not positive or
            exceeds the CUDA limits, a block has more than 1024 threads, or
            ``sharedmem`` is negative.
        TypeError
            A dimension or ``sharedmem`` is not an int, or ``stream`` is not a stream.

        Notes
        -----
        A configuration is validated once and its launcher kept (at most 256 kept
        per kernel), so repeating ``kernel[config]`` costs one dict lookup.  Lists
        are accepted as numba does and keyed as tuples.
        """
        try:
            return self._configs[config]
        except (KeyError, TypeError):  # a new configuration, or an unhashable one (lists)
            return self._configure_new(config)

    def _configure_new(self, config):
        """The slow path of ``kernel[config]``: normalise (lists -> tuples), parse and
        validate, make the launcher, and keep it in the bounded table."""
        key = _config_key(config)
        try:
            fn = self._configs.get(key)
        except TypeError:  # still unhashable (e.g. an unhashable stream object): configure each time
            return self._configure(key, self._factory)
        if fn is None:
            fn = self._configure(key, self._factory)
            self._store_config(key, fn)
        return fn

    def _release_launch_state(self):
        """Drop the configured launchers and the last arguments the generated launchers
        cache (at exit, see ``JitRuntime.release_launch_state``); launching again
        rebuilds them."""
        self._configs = {}
        for factory in list(self._factories.values()):
            forget = getattr(factory, "forget", None)
            if forget is not None:
                forget()

    def _store_config(self, key, fn):
        """Keep a configured launcher; the table is emptied when it holds _MAX_CONFIGS."""
        configs = self._configs
        if not configs:
            self._rt.launch_state.add(self)
        if key not in configs and len(configs) >= _MAX_CONFIGS:
            configs.clear()
        configs[key] = fn

    def _configure(self, config, factory):
        """A launcher of ``config`` made by ``factory`` (the slow one when None, or for
        more than 48 KiB of dynamic shared memory)."""
        grid, block, sh, shm, stream = parse_config(config)
        check_cluster_grid(grid, self.options.cluster_dims, self.py_func.__name__)
        if grid[0] * grid[1] * grid[2] < MIN_GRID_SIZE:
            warn_low_occupancy(grid)
        if factory is None or shm > _BIG_SHARED:
            factory = slow_factory(self)
        return self._launcher(factory, grid, block, shm, sh, stream, config)

    def _launcher(self, factory, grid, block, shm, sh, stream, config):
        """``factory``'s launcher of one configuration, with numba's configured-launch
        attributes ``dispatcher``, ``griddim``, ``blockdim`` (3-tuples), ``stream`` and
        ``sharedmem`` (read-only by convention)."""
        fn = factory(grid, block, shm, sh, stream, config)
        fn.dispatcher, fn.griddim, fn.blockdim, fn.stream, fn.sharedmem = self, grid, block, stream, shm
        return fn

    def __repr__(self):
        return f"<CUDADispatcher {self.py_func.__qualname__}>"

    def __reduce__(self):  # by reference when its module names it, else by value (_pickling)
        return reduce_dispatcher(self, self._sigs)

    @property
    def __cudalite_not_device__(self):
        """The error the compiler reports when device code launches this kernel (or uses
        it other than by calling it: a call compiles it as a device function)."""
        name = self.py_func.__qualname__
        return (f"{name} is a CUDA kernel (@cuda.jit without device=True): device code cannot launch a kernel "
                f"(no dynamic parallelism). Call it as {name}(args) to run it as a device function in the "
                f"calling thread (or declare it @cuda.jit(device=True)); kernels are launched from the host "
                "(kernel[blocks, threads](args))")

    def __call__(self, *args, **kwargs):
        raise ValueError(_MISSING_CONFIG)

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """A launcher running the kernel over ``ntasks`` threads in 1-D blocks.

        Parameters
        ----------
        ntasks : int
            The number of threads to run (the kernel checks its bounds, as usual).
            0 launches nothing.
        tpb : int, optional
            Threads per block.  0 (the default) picks the block size of maximal
            occupancy for the compiled kernel and ``sharedmem``
            (cuOccupancyMaxPotentialBlockSize); at most ``ntasks`` either way.
        stream : stream or int, optional
            The stream to launch on (default: the legacy default stream).
        sharedmem : int, optional
            Dynamic shared memory per block, in bytes.

        Returns
        -------
        ForAll
            Call it with the kernel's arguments: ``kernel.forall(n)(*args)``
            launches ``ceil(ntasks / tpb)`` blocks of ``tpb`` threads.

        Raises
        ------
        ValueError
            ``ntasks`` is negative.
        """
        return ForAll(self, ntasks, tpb, stream, sharedmem)

    def _keys(self, args):
        rt = self._rt
        args = tuple(a.value if isinstance(a, ArgHint) else a for a in args)  # cuda.In/Out/InOut
        handlers = [rt.handler(type(a), a) for a in args]
        return tuple(h.key(a) for h, a in zip(handlers, args)), handlers, args

    def _to_device(self, args, handlers, stream):
        """Copy NumPy arguments in; returns (args, handlers, [(device, host), ...])."""
        from ._memory_api import to_device

        from .config import load_config

        cfg = load_config()
        arrays = any((h.host and not isinstance(h, RecordScalarHandler))
                     or (isinstance(h, TupleHandler) and h.holds_host(a)) for h, a in zip(handlers, args))
        if arrays and cfg.warn_on_implicit_copy and not cfg.disable_performance_warnings:
            warnings.warn(NumbaPerformanceWarning(
                "Host array used in CUDA kernel will incur copy overhead to/from device."), stacklevel=4)
        args, handlers, copies = list(args), list(handlers), []
        for i, (h, a) in enumerate(zip(handlers, args)):
            if isinstance(h, RecordScalarHandler):  # by reference to a device copy, copied back
                args[i], back = h.to_device(a, stream, to_device)
                copies.append((args[i].array, back))
                handlers[i] = self._rt.handler(type(args[i]), args[i])
            elif h.host:
                d = to_device(a, stream=stream)
                copies.append((d, a))
                args[i], handlers[i] = d, self._rt.handler(type(d), d)
            elif isinstance(h, TupleHandler) and h.holds_host(a):  # host arrays inside a tuple
                args[i] = h.to_device(a, stream, to_device, copies)
        return args, handlers, copies

    def _launch_slow(self, grid, block, shm, sh, stream, args, config=None, caller=None):
        # ``caller``: a launcher whose guard failed.  Is a newer one kept for its configuration?
        if caller is not None and len(args) == len(self._names):
            try:
                current = self._configs.get(config)
            except TypeError:  # an unhashable configuration is never kept
                current = None
            if current is not None and current is not caller:
                # It guards its own argument kinds and comes back here (as the caller) on a miss.
                return current(*args)
        if len(args) != len(self._names):
            raise TypeError(f"{self.py_func.__name__}() takes {len(self._names)} arguments ({len(args)} given)")
        rt = self._rt
        multi = multi_gpu()
        if multi:  # run on the device of the array arguments (or the stream's): see _devices
            target = launch_target(self, [a.value if isinstance(a, ArgHint) else a for a in args], sh)
            if target != current_id():
                with on_device(target):
                    return self._launch_slow(grid, block, shm, sh, stream, args, config)
        args, after = prepare_hints(args, stream)  # cuda.In/Out/InOut
        handlers = [rt.handler(type(a), a) for a in args]
        copies = [] if after else None  # hinted launches never become a fast path
        if any(needs_host_copy(h, a) for h, a in zip(handlers, args)):
            args, handlers, copies = self._to_device(args, handlers, stream)
        keys = tuple(h.key(a) for h, a in zip(handlers, args))
        kernel = self._kernel_for(keys)
        if multi:
            kernel = kernel.on_device(current_id())  # loaded (compiled for its cc) there on first use
        if copies is None and shm <= _BIG_SHARED:
            classes = tuple(map(type, args))
            factory = self._factories.get((classes, keys, kernel.device_id), False)
            if factory is False:
                factory = make_factory(self, self._names, handlers, keys, kernel, rt.last, multi=multi)
                self._factories[(classes, keys, kernel.device_id)] = factory
                rt.launch_state.add(self)
            if factory is not None:  # later launches with this configuration: the fast path
                self._factory = factory
                if config is not None:
                    try:
                        self._store_config(config, self._launcher(factory, grid, block, shm, sh, stream, config))
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
        for h in handlers:  # e.g. a DLPack export kept until the kernel has run
            h.after_launch is None or h.after_launch(sh)
        try:
            if copies or after:
                for d, a in copies:
                    a.copy_back(d, stream) if isinstance(a, RecordCopyBack) else d.copy_to_host(a, stream=stream)
                for work in after:
                    work()
                from cudalite.driver import Stream

                Stream.external(sh).synchronize()
            kernel.check_exceptions(sh)
        except CudaDriverError as e:
            raise kernel_fault(e, kernel.device_id) from None


class ForAll:
    """``kernel.forall(ntasks, tpb, stream, sharedmem)(*args)``: see
    :meth:`CUDADispatcher.forall`.  Calling it compiles the kernel for the
    arguments' types when needed, sizes the blocks, and launches through the
    dispatcher (``kernel[blocks, tpb, stream, sharedmem](*args)``)."""

    def __init__(self, dispatcher, ntasks, tpb=0, stream=0, sharedmem=0):
        if ntasks < 0:
            raise ValueError(f"Can't create ForAll with negative task count: {ntasks}")
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


def jit(func_or_sig=None, device=False, inline="never", link=(), debug=None, opt=None, lineinfo=False,
        cache=False, **kws):
    """Compile a Python function as a CUDA kernel, or as a device function.

    Used as a decorator: ``@cuda.jit``, ``@cuda.jit("void(float32[:], float32)")``,
    ``@cuda.jit(["void(float32[:])", "void(float64[:])"])``,
    ``@cuda.jit(device=True)``, ``@cuda.jit(debug=True, opt=False)``, or called:
    ``cuda.jit(func)``.

    Parameters
    ----------
    func_or_sig : function or str or Signature or list, optional
        The function to compile (then the dispatcher is returned), or a signature,
        or a list of signatures, to compile eagerly (then a decorator is
        returned).  A kernel with signatures compiles on the first launch (or now,
        with a device) for those signatures only, and arguments convert to the
        best-matching one, as in numba; without signatures it compiles lazily once
        per tuple of argument types.  Device functions with signatures are
        type-checked now.
    device : bool, optional
        Compile a device function (callable from kernels and device functions, not
        from Python) instead of a kernel.
    inline : {"never", "always"}, bool or callable, optional
        How calls to this function from device code are inlined: ``"always"`` (or
        True) inlines the body at each call site when the caller is lowered (no
        ``call`` remains in its IR); a callable ``(call, caller_ir, callee_ir) -> bool``
        decides per call site.  ``forceinline=True`` instead marks the function
        ``alwaysinline`` for LLVM.
    link : list of str or os.PathLike or cudalite.linker.LinkableCode, optional
        Files (``.cu``, ``.ptx``, ``.ltoir``, ``.cubin``, ``.fatbin``, ``.o``,
        ``.a``) or code objects linked into every kernel that uses this function (the
        foreign functions of ``cuda.declare_device``).  LTO-IR items make the link
        an LTO link.
    debug : bool, optional
        Debug info (``-g``), and ``raise``/``assert`` in the kernel take effect:
        an exception raised on the device is re-raised in Python after the
        launch (without ``debug`` they cost nothing and do nothing, as in numba).  Turns optimization off unless ``opt``
        is given (with a warning when ``opt`` is true).
    opt : bool or int, optional
        The libNVVM optimization level: False or 0 for none, True or None (the
        default) for 3.
    lineinfo : bool, optional
        Line information in the PTX (for profilers), without full debug info.
    cache : bool, optional
        Keep compiled kernels in the on-disk kernel cache (``docs/cache.md``).
    **kws
        ``fastmath`` (bool: flush denormals to zero, approximate division and
        square root, contract to FMA), ``max_registers`` (a positive int: a limit
        per thread), ``launch_bounds`` (an int or a tuple of 1 to 3 ints: max
        threads per block, min blocks per SM, max blocks per cluster),
        ``forceinline`` (bool, as ``inline="always"``), ``lto`` (accepted for numba compatibility; LTO
        follows from ``link``), ``boundscheck`` (bool: check array indices, docs/guide/debugging.md).

    Returns
    -------
    CUDADispatcher or DeviceDispatcher or callable
        The kernel (:class:`CUDADispatcher`) or device function
        (:class:`DeviceDispatcher`) when given a function; otherwise a decorator
        that returns one.

    Raises
    ------
    TypeError
        An unknown keyword argument, a ``link`` that is not a list or tuple of
        paths and code objects, or a decorated object that is not a Python
        function.
    ValueError
        ``max_registers`` is not a positive int, ``inline`` or ``opt`` or
        ``launch_bounds`` has an invalid value.
    NotImplementedError
        ``extensions=`` is given (not supported).
    cudalite.core.errors.CompilerError
        A signature does not parse, or (eagerly) the function does not compile
        for one of its signatures: the error shows the source location.
    """
    opts = jit_options(debug, opt, lineinfo, cache, link, inline, kws, device=device)
    cls = DeviceDispatcher if device else CUDADispatcher
    if callable(func_or_sig) and not isinstance(func_or_sig, (CUDADispatcher, DeviceDispatcher)) and (
            hasattr(func_or_sig, "__code__") or hasattr(func_or_sig, "__wrapped__")):
        from cudalite.core.frontend import python_function

        return mark_inline(cls(python_function(func_or_sig, "jit-compile", stacklevel=2), None, opts), inline, opts)
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
        if not callable(func):
            raise TypeError(f"cuda.jit decorates Python functions, not {func!r}")
        from cudalite.core.frontend import python_function

        try:
            func = python_function(func, "jit-compile", stacklevel=2)  # a C-level wrapper: its __wrapped__
        except TypeError:
            raise TypeError(f"cuda.jit decorates Python functions, not {func!r}") from None
        return mark_inline(cls(func, sigs, opts), inline, opts)

    return decorate
