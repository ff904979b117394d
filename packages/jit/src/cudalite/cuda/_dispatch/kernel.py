"""``@cuda.jit`` kernels: the :class:`CUDADispatcher` (numba.cuda semantics).

A kernel compiles lazily, once per tuple of argument type keys (see
:mod:`cudalite.cuda._launch.keys`), or eagerly for the signatures given to the decorator
(then only those signatures are launched, numba's behaviour; arguments convert to
them).  Its state is one :class:`~.specializations.SpecTable` of immutable
specialization records; compilation is serialized per dispatcher (two threads
launching a new specialization compile it once).  ``kernel[config]`` is one lookup in
the table's configured launchers (generated code, :mod:`cudalite.cuda._launch.fastpath`);
first calls, NumPy host arguments, transfer hints and debug-mode exception checks take
the slow path (:mod:`.slowpath`).
"""

from __future__ import annotations

import functools
import threading
from time import perf_counter
from typing import Any, NoReturn

from cudalite.core.types import Array, Type, parse_signature
from cudalite.driver import CudaDriverError, CudaSupportError

from .._compiler.carry import CarriedCode
from .._compiler.compile_code import compile_code
from .._compiler.options import JitOptions
from .._launch.devices import current_cc
from .._launch.config import MIN_GRID_SIZE, check_cluster_grid, parse_config, warn_low_occupancy
from .._launch.fastpath import launcher_param_names, slow_factory
from .._launch.hints import ArgHint
from .._launch.keys import compatible, eager_rank, key_to_type
from .._runtime.record import jit_runtime
from .._runtime.warmup import start_warmup, wait_for_warmup
from .inspect import InspectMixin
from .configured import ConfiguredLaunch
from .pickling import dispatcher_reduction, reduce_dispatcher
from .slowpath import launch_slow
from .extensions import ExtensionList
from .specializations import Specialization, SpecTable
from .stats import CompileStats

__all__ = ["CUDADispatcher", "ForAll"]

_MISSING_CONFIG = (
    "Kernel launch configuration was not specified. Use the syntax:\n\n"
    "kernel_function[blockspergrid, threadsperblock](arg0, arg1, ..., argn)\n\n"
    "See the numba.cuda documentation (kernel invocation) for help.")
_BIG_SHARED = 48 * 1024
_MAX_CONFIGS = 256


def signature_args(sig: Any) -> tuple:
    """The argument types of a signature (string, Signature or tuple of types)."""
    return tuple(parse_signature(sig)[1])


def _config_key(config):
    """A launch configuration with its list-valued items (and a list configuration
    itself) as tuples, so that it can key the configuration table as numba's
    ``kernel[[2, 2], [16, 16]]`` does."""
    if type(config) is list:
        config = tuple(config)
    if type(config) is tuple and any(type(c) is list for c in config):
        config = tuple(tuple(c) if type(c) is list else c for c in config)
    return config


def _compiled_kernel():
    """The default compiler, ``CompiledKernel``: the build stages (and the logging they
    use) load at the first compile -- the dispatchers' one lazy boundary, which keeps
    ``import cudalite.cuda`` light."""
    from .._compiler.kernel import CompiledKernel  # lazy: the build stages load at the first compile

    return CompiledKernel


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

    Notes
    -----
    All per-signature state is one :class:`~.specializations.SpecTable` (``_table``):
    the specialization records and what derives from them.  Its configured launchers
    (configuration -> launcher, at most 256 entries, emptied when full) are also
    ``_configs``, so that ``kernel[griddim, blockdim]`` costs one dict lookup on the hot
    path; a configuration seen for the first time is parsed and validated once
    (:meth:`_configure_new`).
    """

    def __init__(self, py_func: Any, sigs: Any = None, options: JitOptions = JitOptions(), *, compiler: Any = None,
                 warm_up: bool = True) -> None:
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        # called (not launched) from device code, a kernel is compiled into its caller as
        # a device function of the same Python function, as in numba-cuda; its links follow
        self.__cudalite_pyfunc__ = py_func
        self.__cudalite_links__ = tuple(options.link)
        self.options = options
        self._lock = threading.RLock()
        self._rt = jit_runtime()
        if warm_up:  # libraries and driver get ready while the program goes on (not for code built ahead of time)
            start_warmup(self._rt)
        self._names = launcher_param_names(py_func)
        self.extensions = ExtensionList(self)  # numba-cuda's launch extensions (prepare_args)
        self._compiler = compiler  # None: CompiledKernel; _carry.CarriedCode once unpickled
        self.stats = CompileStats()  # cache hits and misses per signature, as numba's dispatcher
        self._eager = sigs is not None
        self._sigs = tuple(sigs) if sigs is not None else None  # as given: pickling remakes the dispatcher
        self._use(SpecTable())
        for sig in sigs or ():
            self.compile(sig)

    def _use(self, table: SpecTable) -> None:
        """Make ``table`` this dispatcher's state (``_configs`` is its launchers' dict)."""
        self._table, self._configs = table, table.configs

    @property
    def overloads(self) -> dict:
        """dict: argument types (a tuple of ``cudalite.types``) -> compiled kernel, one
        per specialization compiled so far (a new dict per read: the table's records)."""
        return self._table.kernels()

    @property
    def _pending(self) -> list:
        """Eager signatures type-checked without a device (compiled on first launch)."""
        return self._table.pending()

    # -- compilation ----------------------------------------------------------------------
    def compile(self, sig: Any) -> Any:
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
        argtypes = signature_args(sig)
        with self._lock:
            rec = self._table.records.get(argtypes)
            if rec is not None and rec.kernel is not None:
                return rec.kernel
            try:
                cc = current_cc()
            except Exception as e:  # no driver / no GPU: check the code now, build it later
                if not _driver_unavailable(e):
                    raise
                compile_code(self.py_func, argtypes, self.options, None, until="typed-ir")
                if rec is None:
                    self._table.put(Specialization(argtypes))
                return None
            return self._build(argtypes, cc)

    def _build(self, argtypes, cc):
        """Compile and load ``argtypes`` for ``cc``; its record replaces any pending one.
        The warm-up's imports finish first (their wait is the ``warmup`` part of the
        timing line, whose total starts here)."""
        started = perf_counter()
        waited = wait_for_warmup(self._rt)
        if self._compiler is None:
            kernel = _compiled_kernel()(self.py_func, argtypes, self.options, cc, started=started, waited=waited)
        else:  # code carried in a pickle or built ahead of time: the compiler protocol's four arguments
            kernel = self._compiler(self.py_func, argtypes, self.options, cc)
        self.stats.record(argtypes, kernel)
        return self._table.put(Specialization(argtypes, kernel)).kernel

    def recompile(self) -> None:
        """Compile every signature compiled so far afresh (numba's ``recompile``): globals
        and closure values are read again, and launchers made before keep the old code.
        With caching, the new code's key differs when a global did, so it is stored
        beside the old entry.  Compiled code a pickle carried is dropped."""
        with self._lock:
            if isinstance(self._compiler, CarriedCode):
                self._compiler = self._compiler.fallback
            sigs = self._table.signatures()
            self._use(SpecTable())
            for argtypes in sigs:
                self.compile(argtypes)

    def compile_ptx_for(self, sig: Any, cc: Any = None) -> Any:
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
        return compile_code(self.py_func, signature_args(sig), self.options, cc, until="ptx").artifacts["ptx"].data

    def _match_eager(self, keys):
        """The eager signature the argument type keys convert to best: fewest unsafe,
        then safe conversions, then promotions (numba's kinds); two best ones are
        ambiguous (TypeError), as in numba."""
        sigs = self._table.signatures()
        if len(sigs) == 1 and len(sigs[0]) == len(keys):  # one signature: it fits or nothing does (no ranking)
            if all(compatible(k, p, True) >= 0 for k, p in zip(keys, sigs[0])):
                return sigs[0]
        ranked = []
        for argtypes in sigs:
            rank = eager_rank(keys, argtypes, len(sigs) == 1) if len(argtypes) == len(keys) else None
            if rank is not None:
                ranked.append((rank, argtypes))
        best = min(ranked, key=lambda r: r[0])[1] if ranked else None
        ties = [a for r, a in ranked if r == min(r for r, _ in ranked)] if ranked else []
        if len(ties) > 1:  # numba's message: its repr of the types (an array: Array(float64, 1, 'C', ...))
            raise TypeError(f"Ambiguous overloading for {self.py_func!r} "
                            f"{_numba_tuple(key_to_type(k) for k in keys)}:\n"
                            + "\n".join(f"{_numba_tuple(a)} -> none" for a in ties)
                            + "\n(these signatures fit the arguments equally well: pass arguments of the exact "
                              "types of one of them)")
        if best is None:
            shown = ", ".join(str(key_to_type(k)) for k in keys)
            raise TypeError(f"No matching definition for argument type(s) {shown} of kernel "
                            f"{self.py_func.__qualname__}; its signatures are: "
                            + "; ".join(f"({', '.join(map(str, a))})" for a in sigs))
        return best

    def _kernel_for_types(self, argtypes):
        """The compiled kernel of ``argtypes`` for the current device (compiled once)."""
        with self._lock:
            rec = self._table.records.get(argtypes)
            if rec is not None and rec.kernel is not None:
                return rec.kernel
            return self._build(argtypes, current_cc())

    def _kernel_for(self, keys):
        """The compiled kernel the argument type ``keys`` select (compiled once)."""
        table = self._table
        rec = table.by_keys.get(keys)
        if rec is not None:
            return rec.kernel
        with self._lock:
            rec = table.by_keys.get(keys)
            if rec is None:
                argtypes = self._match_eager(keys) if self._eager else tuple(key_to_type(k) for k in keys)
                self._kernel_for_types(argtypes)
                rec = table.by_keys[keys] = table.records[argtypes]
            return rec.kernel

    def specialize(self, *args: Any) -> Any:
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
            keys = self._keys(args)
            kernel = self._kernel_for(keys)
        children = self._table.children
        spec = children.get(kernel.argtypes)
        if spec is not None:
            return spec
        spec = CUDADispatcher.__new__(CUDADispatcher)
        spec.__dict__.update(self.__dict__)
        record = Specialization(kernel.argtypes, kernel)
        table = SpecTable([record])  # its own records and launchers (the parent's fall back to its slow path)
        if keys:
            table.by_keys[keys] = record
        spec._use(table)
        spec._lock, spec._eager = threading.RLock(), True
        return children.setdefault(kernel.argtypes, spec)

    @property
    def signatures(self) -> Any:
        """list: the argument types (tuples of ``cudalite.types``) of the compiled
        specializations, and of eager signatures not compiled yet (no device)."""
        return self._table.signatures()

    def get_compile_result(self, sig: Any) -> Any:
        """The compiled kernel (:class:`CompiledKernel`) for signature ``sig`` (a
        ``Signature``, a signature string or a tuple of argument types), compiling it
        first when needed (numba's ``get_compile_result``); CudaSupportError without a device.

        Parameters
        ----------
        sig : Signature, str or tuple
        """
        argtypes = tuple(sig.args) if hasattr(sig, "args") else signature_args(sig)
        rec = self._table.records.get(argtypes)
        kernel = None if rec is None else rec.kernel
        if kernel is None:
            kernel = self.compile(argtypes)
            if kernel is None:  # no device: compiled on first launch only

                raise CudaSupportError(100, "CUDA_ERROR_NO_DEVICE",
                                       f"{self.py_func.__qualname__}{argtypes} was type-checked; "
                                       "loading it needs a CUDA device", "get_compile_result")
        return kernel

    def configure(self, griddim: Any, blockdim: Any, stream: Any = 0, sharedmem: int = 0) -> Any:
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
    def specializations(self) -> Any:
        """dict: a copy of :attr:`overloads` (argument types -> compiled kernel)."""
        return dict(self.overloads)

    # -- launching ------------------------------------------------------------------------
    def __getitem__(self, config: Any) -> Any:
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
        ConfiguredLaunch
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
        factory = self._table.last_factory
        try:
            fn = self._configs.get(key)
        except TypeError:  # still unhashable (e.g. an unhashable stream object): configure each time
            return self._configure(key, factory)
        if fn is None:
            fn = self._configure(key, factory)
            self._store_config(key, fn)
        return fn

    def _release_launch_state(self) -> None:
        """Drop the configured launchers and the last arguments the generated launchers
        cache (at exit, see ``JitRuntime.release_launch_state``); launching again
        rebuilds them."""
        table = self._table
        table.configs.clear()
        table.launchers.clear()
        for factory in list(table.factories.values()):
            forget = getattr(factory, "forget", None)
            if forget is not None:
                forget()

    def _forget_launchers(self) -> None:
        """Drop the configured and generated launchers (the extensions changed: every
        launch now takes the slow path, which applies them)."""
        table = self._table
        table.configs.clear()
        table.factories.clear()
        table.launchers.clear()
        table.last_factory = None

    def _store_config(self, key, fn) -> None:
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
        cfg, stream = parse_config(config)
        if self.options.programmatic_dependent_launch:
            cfg = cfg.replace(programmatic_dependent_launch=True)
        grid = cfg.grid
        check_cluster_grid(grid, self.options.cluster_dims, self.py_func.__name__)
        if grid[0] * grid[1] * grid[2] < MIN_GRID_SIZE:
            warn_low_occupancy(grid)
        return self._launcher(factory, cfg, config, stream)

    def _launcher(self, factory, cfg, key=None, stream=None):
        """The launcher of :class:`~cudalite.driver.LaunchConfig` ``cfg`` made by
        ``factory`` (a generated one, or the slow path's when None or for more than
        48 KiB of dynamic shared memory): a :class:`~.configured.ConfiguredLaunch` with
        numba's configured-launch attributes ``dispatcher``, ``griddim``, ``blockdim``
        (3-tuples), ``stream``, ``sharedmem``, ``pre_launch_callbacks`` and ``config``
        (the LaunchConfig); ``key`` is the configuration table's key."""
        if factory is None or cfg.shared_mem > _BIG_SHARED:
            factory = slow_factory(self)
        return factory(cfg, key, lambda fn: ConfiguredLaunch(fn)._attach(self, cfg, key, stream))

    def __repr__(self) -> str:
        return f"<CUDADispatcher {self.py_func.__qualname__}>"

    def __reduce__(self) -> Any:  # by reference when its module names it, else by value (_dispatch.pickling)
        return reduce_dispatcher(self)

    __cudalite_by_value__ = dispatcher_reduction  # inside a by-value pickle (_dispatch.pickling)

    @property
    def __cudalite_not_device__(self) -> str:
        """The error the compiler reports when device code launches this kernel (or uses
        it other than by calling it: a call compiles it as a device function)."""
        name = self.py_func.__qualname__
        return (f"{name} is a CUDA kernel (@cuda.jit without device=True): device code cannot launch a kernel "
                f"(no dynamic parallelism). Call it as {name}(args) to run it as a device function in the "
                f"calling thread (or declare it @cuda.jit(device=True)); kernels are launched from the host "
                "(kernel[blocks, threads](args))")

    def __call__(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise ValueError(_MISSING_CONFIG)

    def forall(self, ntasks: Any, tpb: int = 0, stream: Any = 0, sharedmem: int = 0) -> ForAll:
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
        """The type keys of launch arguments (transfer hints unwrapped)."""
        kind = self._rt.kind
        return tuple(kind(type(a), a).key(a) for a in (a.value if isinstance(a, ArgHint) else a for a in args))

    def _launch_slow(self, cfg, args, key=None, caller=None) -> None:
        """The slow path of a launch (see :func:`.slowpath.launch_slow`)."""
        launch_slow(self, cfg, args, key, caller)


class ForAll:
    """``kernel.forall(ntasks, tpb, stream, sharedmem)(*args)``: see
    :meth:`CUDADispatcher.forall`.  Calling it compiles the kernel for the
    arguments' types when needed, sizes the blocks, and launches through the
    dispatcher (``kernel[blocks, tpb, stream, sharedmem](*args)``)."""

    def __init__(self, dispatcher: Any, ntasks: Any, tpb: int = 0, stream: Any = 0, sharedmem: int = 0) -> None:
        if ntasks < 0:
            raise ValueError(f"Can't create ForAll with negative task count: {ntasks}")
        self.dispatcher, self.ntasks, self.tpb, self.stream, self.sharedmem = dispatcher, ntasks, tpb, stream, sharedmem

    def __call__(self, *args: Any) -> None:
        if self.ntasks == 0:
            return
        d = self.dispatcher
        kernel = d._kernel_for(d._keys(args))
        tpb = self.tpb or kernel.function.max_potential_block_size(self.sharedmem)[1]
        tpb = max(1, min(int(tpb), self.ntasks))
        blocks = (self.ntasks + tpb - 1) // tpb
        d[blocks, tpb, self.stream, self.sharedmem](*args)


def _numba_repr(t) -> str:
    """A type as numba's ``repr`` writes it in its dispatch errors: an array as its
    constructor call (``Array(float64, 1, 'C', False, aligned=True)``; cudalite's arrays
    are always aligned), any other type by its name."""
    if isinstance(t, Array):
        return f"Array({_numba_repr(t.dtype)}, {t.ndim}, {t.layout!r}, {t.readonly}, aligned=True)"
    return str(t)


def _numba_tuple(types) -> str:
    """Argument types as numba shows them: a Python tuple of their reprs."""
    items = [_numba_repr(t) for t in types]
    return f"({', '.join(items)}{',' if len(items) == 1 else ''})"
