"""Compiling one kernel specialization for a device, end to end.

    pipeline until NVVM IR -> libNVVM (PTX, or LTO-IR when anything linked is
    LTO-IR) -> nvJitLink for the exact sm_XY -> KernelArtifact -> load -> launch

:class:`JitOptions` holds the ``@cuda.jit`` options (a frozen dataclass);
:func:`compile_code` is the GPU-less compile (typed IR, NVVM IR, PTX/LTO-IR for a
given ``cc``; the pipeline runs once); :func:`build_kernel` makes the
:class:`~._artifact.KernelArtifact` of a specialization, from the on-disk cache
or by compiling and linking (and storing it); :class:`CompiledKernel` loads an
artifact on the current device, launches it and reads ``debug=True`` exceptions
back -- the same way whether the artifact was compiled or read from the cache.
``compile_for_current_device`` and ``compile_ptx_for_current_device`` are
numba's API (the cc of the current device).
"""

from __future__ import annotations

import copy
import os
import sys
import threading
from dataclasses import dataclass, field, replace
from time import perf_counter

from cudalite.core.errors import CompilerError, CudaliteError, Loc

__all__ = [
    "JitOptions", "compile_code", "build_kernel", "KernelBuild", "CompiledKernel", "compile_for_current_device",
    "compile_ptx_for_current_device", "current_cc", "reraise_located", "jit_compile", "jit_compile_ptx",
]


@dataclass(frozen=True)
class JitOptions:
    """The options of ``@cuda.jit`` that shape the generated code."""

    debug: bool = False
    lineinfo: bool = False
    opt: object = None
    fastmath: bool = False
    max_registers: int | None = None
    launch_bounds: object = None
    cluster_dims: tuple | None = None
    forceinline: bool = False
    link: tuple = ()
    cache: bool = False
    boundscheck: bool = False  # check array indices (IndexError on the host after the launch)

    @property
    def lto(self) -> bool:
        return any(_is_ltoir(item) for item in self.link)


def current_cc() -> tuple:
    """The compute capability of the current device (initializes the driver)."""
    from cudalite.driver import current_device

    return tuple(current_device().compute_capability)


def reraise_located(err: CudaliteError, pyfunc):
    """Raise a compiler error without the compiler's internal frames, pointing at
    ``pyfunc`` when the error has no location of its own."""
    if isinstance(err, CompilerError):
        code = getattr(pyfunc, "__code__", None)
        if code is not None:
            err.with_default_loc(Loc(code.co_filename, code.co_firstlineno))
    raise err.with_traceback(None) from None


def nvvm_options(opts: JitOptions, cc):
    """The compiler's options for these ``@cuda.jit`` options and target (validates them)."""
    from cudalite.nvvm import make_options

    o = make_options(cc=cc, opt=(False if opts.debug and opts.opt is None else opts.opt),
                     fastmath=opts.fastmath, debug=opts.debug, lineinfo=opts.lineinfo,
                     launch_bounds=opts.launch_bounds, cluster_dims=opts.cluster_dims,
                     boundscheck=opts.boundscheck)
    return replace(o, forceinline=opts.forceinline) if opts.forceinline else o


def compile_code(pyfunc, argtypes, opts: JitOptions, cc, *, device=False, until=None, context=None):
    """GPU-less: run the pipeline for a kernel (or a device function) of ``argtypes``
    for ``cc``; compile errors are raised with their source location and without
    compiler-internal frames.

    ``until`` None: to PTX, or to LTO-IR when the kernel or any callee links LTO-IR
    (decided after lowering, so libNVVM runs once).  ``context``: a typing context
    that already typed the function (the cache's probe); typing is not repeated."""
    from cudalite.nvvm.pipeline import EntrySpec, resume, run_pipeline

    if opts.debug:
        warn_missing_source(pyfunc)
    try:
        options = nvvm_options(opts, cc)
        if context is None:
            from cudalite.core.registry import registry
            from cudalite.core.typing import TypingContext

            context = TypingContext(registry, options)
        res = run_pipeline(pyfunc, tuple(argtypes), EntrySpec(device=device), options,
                           until=until or "nvvm-ir", context=context)
        if until is None:
            lto = opts.lto or any(_is_ltoir(item) for item in res.link_items)
            res = resume(res, "ltoir" if lto else "ptx")
        return res
    except CudaliteError as e:
        err = e
    reraise_located(err, pyfunc)


def warn_missing_source(pyfunc):
    """A debug build of a function whose source file a debugger cannot read (made by
    ``exec``, its file gone): NumbaDebugInfoWarning, as numba warns.  The line table
    still names its lines; the debugger cannot show them."""
    import linecache
    import warnings

    from cudalite.core.errors import NumbaDebugInfoWarning

    code = getattr(pyfunc, "__code__", None)
    if code is None or linecache.getlines(code.co_filename):
        return
    warnings.warn(f"Could not find source for function: {pyfunc}. Debug line information may be "
                  "inaccurate.", NumbaDebugInfoWarning, stacklevel=2)


def _is_ltoir(item):
    from cudalite.linker import LTOIR

    if isinstance(item, LTOIR):
        return True
    return isinstance(item, (str, os.PathLike)) and os.fspath(item).lower().endswith(".ltoir")


def _linker_items(link):
    """Linkable-code objects for paths and objects, each content once (a kernel's own
    ``link=`` and its callees' link lists may name the same code)."""
    from cudalite.linker import LinkableCode

    items, seen = [], set()
    for item in link:
        code = item if isinstance(item, LinkableCode) else LinkableCode.from_path(item)
        if code.content_hash not in seen:
            seen.add(code.content_hash)
            items.append(code)
    return items


def source_dirs(link) -> tuple:
    """The folders of the CUDA C++ files named by path in ``link``, in order, each once:
    NVRTC searches them for ``#include "..."`` headers (as a C compiler searches the
    including file's folder), then the ``CUDALITE_NVRTC_EXTRA_SEARCH_PATHS`` folders."""
    from cudalite.linker.config import load_config as linker_config

    out = []
    for item in link:
        if isinstance(item, (str, os.PathLike)) and os.fspath(item).lower().endswith((".cu", ".cuh")):
            d = os.path.dirname(os.path.abspath(os.fspath(item)))
            if d not in out:
                out.append(d)
    return tuple(out) + tuple(d for d in linker_config().extra_search_paths if d not in out)


def link_cubin(result, pyfunc, opts: JitOptions, arch: str):
    """nvJitLink the pipeline's PTX/LTO-IR with every link item: ``(cubin bytes, items)``."""
    from cudalite.linker import LTOIR, Linker, LinkerError, LinkerOptions, NvrtcError, PTXSource
    from cudalite.linker.config import load_config as linker_config

    lopts = LinkerOptions(max_registers=opts.max_registers, lineinfo=opts.lineinfo, debug=opts.debug)
    link = tuple(opts.link) + tuple(result.link_items)
    linker = Linker(arch, options=lopts, name=pyfunc.__name__, isolate=linker_config().isolate,
                    include_dirs=source_dirs(link))
    if "ltoir" in result.artifacts:  # libNVVM's output, just made: trusted (user link items are not)
        linker.add(LTOIR(result.artifacts["ltoir"].data, name=f"{pyfunc.__name__}.ltoir"), trusted=True)
    else:
        linker.add(PTXSource(result.artifacts["ptx"].data, name=f"{pyfunc.__name__}.ptx"), trusted=True)
    items = _linker_items(link)
    linker.add(*items)
    try:
        return bytes(linker.link().data), tuple(items)
    except NvrtcError:
        raise  # names the .cu file and line NVRTC reported
    except LinkerError as e:
        raise LinkerError(f"linking kernel {pyfunc.__qualname__} ({result.entry_name}) failed: {e.message}",
                          error_log=getattr(e, "error_log", ""), info_log=getattr(e, "info_log", "")) from None


@dataclass(frozen=True)
class KernelBuild:
    """A specialization built GPU-less: its artifact, per-stage seconds, and the
    cache status ('off', 'off (reason)', 'hit', 'miss')."""

    artifact: object  # KernelArtifact
    timings: dict = field(default_factory=dict)
    status: str = "off"
    keepalive: tuple = ()  # device arrays whose pointers the code holds (captured globals)


def _captured_arrays(result) -> tuple:
    """The device arrays a compiled kernel (or any callee) captured by reference."""
    from cudalite.core import ir
    from cudalite.core.types import DeviceArrayRef

    out, seen, todo = [], set(), [result.typed]
    while todo:
        tf = todo.pop()
        if tf is None or id(tf) in seen:
            continue
        seen.add(id(tf))
        for stmt in ir.walk_stmts(tf.fir.body):
            out.extend(e.value.owner for e in ir.walk_exprs(stmt)
                       if isinstance(e, ir.Const) and isinstance(e.value, DeviceArrayRef))
        todo.extend(info.callee for info in tf.calls.values() if info.callee is not None)
    return tuple(out)


def build_kernel(pyfunc, argtypes, opts: JitOptions, cc) -> KernelBuild:
    """GPU-less: the :class:`KernelArtifact` of ``pyfunc`` for ``argtypes`` linked for
    ``sm_XY`` of ``cc``: from the on-disk cache when enabled and filled, else compiled,
    linked (and stored)."""
    from . import _cache
    from ._artifact import KernelArtifact

    argtypes, cc = tuple(argtypes), tuple(cc)
    arch = f"sm_{cc[0]}{cc[1]}"
    timings, status, probe, store = {}, "off", None, None
    if _cache.is_enabled(opts):
        store = _cache.CacheStore()
        probe = _cache.probe_kernel(pyfunc, argtypes, opts, cc, directory=store.path,
                                    compile_options=nvvm_options(opts, cc))
        timings.update(probe.timings)
        if probe.key is not None:
            t = perf_counter()
            artifact = store.load_artifact(probe.key, argtypes, probe.links)
            timings["cache"] = perf_counter() - t
            if artifact is not None and artifact.arch == arch:
                return KernelBuild(artifact, timings, "hit")
            status = "miss"
        else:
            status = f"off ({probe.reason})"
    result = compile_code(pyfunc, argtypes, opts, cc, context=probe and probe.context)
    for k, v in result.timings.items():
        timings[k] = timings.get(k, 0.0) + v
    t = perf_counter()
    cubin, items = link_cubin(result, pyfunc, opts, arch)
    timings["link"] = perf_counter() - t
    artifact = KernelArtifact.from_compile(result, cubin, arch, items)
    if probe is not None and probe.key is not None:
        t = perf_counter()
        if artifact.storable() and _cache.verify_after_compile(probe, result, store.path):
            store.store_artifact(probe.key, artifact, qualname=pyfunc.__qualname__, argtypes=argtypes)
        timings["store"] = perf_counter() - t
    return KernelBuild(artifact, timings, status, _captured_arrays(result))


class CompiledKernel:
    """One specialization on one device: its :class:`KernelArtifact`, driver
    function and launcher.  ``bind(config)`` (a :class:`cudalite.driver.LaunchConfig`)
    gives the driver launch of one configuration, ``launch(config, *flat_values)`` launches once.

    ``load=False`` builds the artifact only (GPU-less: inspection, tests);
    ``build`` (a :class:`KernelBuild`) is used instead of building one (compiled code
    carried in a pickle, ``_carry``)."""

    def __init__(self, pyfunc, argtypes, opts: JitOptions, cc, *, load=True, build=None):
        from .config import load_config

        t_start = perf_counter()
        self.py_func = pyfunc
        self.argtypes = tuple(argtypes)
        self.options = opts
        self.cc = tuple(cc)
        if build is None:
            build = build_kernel(pyfunc, self.argtypes, opts, self.cc)
        self.artifact = art = build.artifact
        self.status = build.status
        self._keepalive = build.keepalive  # captured device arrays live as long as the code
        self.timings = timings = dict(build.timings)
        self.exc_global = None
        if load:
            t = perf_counter()
            self._load(art)
            timings["load"] = perf_counter() - t
            timings["total"] = perf_counter() - t_start
            to_stderr = load_config().timings
            if to_stderr or _timings_wanted():
                from . import _cache

                _cache.report_timings(pyfunc.__qualname__, self.argtypes, timings, build.status,
                                      to_stderr=to_stderr)

    def _load(self, art):
        from cudalite.driver import current_device, load_module

        self.device_id = current_device().id
        self.module = load_module(art.cubin)
        setup = art.setup_callback()
        if setup is not None:
            setup(self.module)
        self.function = self.module.get_function(art.entry_name)
        self.launcher = self.function.launcher(art.param_format)
        self.exc_global = self.module.get_global(art.exc_symbol) if art.exc_symbol else None
        self._max_dynamic_shared = 48 * 1024
        from ._faults import jit_runtime

        jit_runtime().kernels[self.function.handle] = self

    def on_device(self, device_id):
        """This specialization loaded on device ``device_id`` (self when it is this
        one's device): the same artifact loaded there, or compiled afresh for that
        device's compute capability, once; the copies share one table of devices."""
        if device_id == self.device_id:
            return self
        siblings, lock = self.__dict__.setdefault("_siblings", ({self.device_id: self}, threading.Lock()))
        kernel = siblings.get(device_id)
        if kernel is None:
            from cudalite.driver import get_device

            from ._devices import on_device

            with lock, on_device(device_id):
                kernel = siblings.get(device_id)
                if kernel is None:
                    cc = tuple(get_device(device_id).compute_capability)
                    if cc == self.cc:
                        kernel = copy.copy(self)
                        kernel._load(self.artifact)
                    else:
                        kernel = CompiledKernel(self.py_func, self.argtypes, self.options, cc)
                    kernel._siblings = (siblings, lock)
                    siblings[device_id] = kernel
        return kernel

    # -- artifacts ------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.artifact.entry_name

    @property
    def abi(self):
        return self.artifact.abi

    @property
    def exceptions(self):
        return self.artifact.exceptions

    @property
    def cooperative(self) -> bool:
        return self.artifact.uses_grid_sync

    @property
    def signature(self):
        from cudalite.core.types import Signature, void

        return Signature(void, self.argtypes)

    @property
    def param_format(self) -> str:
        return self.artifact.param_format

    def stage(self, name):
        """The text of stage ``name`` ('typed-ir', 'nvvm-ir', 'ptx', 'ltoir'), or None."""
        if name == "ptx":
            return self.ptx
        return self.artifact.stage(name)

    @property
    def ptx(self):
        ptx = self.artifact.stage("ptx")
        if ptx is None:  # an LTO build: PTX from the stored NVVM IR (libNVVM only)
            from cudalite.nvvm.pipeline import compile_nvvm_ir

            ptx = compile_nvvm_ir(self.artifact.stage("nvvm-ir"), nvvm_options(self.options, self.cc), "ptx")
        return ptx

    @property
    def lto_ptx(self):
        """The kernel's PTX after link-time optimization with the code it links
        (numba's ``inspect_lto_ptx``): the kernel compiled again to LTO-IR (GPU-less)
        and linked with its link items (CUDA C++ compiled to LTO-IR, with each
        file's folder searched for headers) by nvJitLink with ``-lto -ptx``."""
        from cudalite.linker import LTOIR, Linker, LinkerOptions, PTXSource

        res = compile_code(self.py_func, self.argtypes, self.options, self.cc, until="ltoir")
        link = tuple(self.options.link) + tuple(res.link_items)
        linker = Linker(self.artifact.arch, options=LinkerOptions(lineinfo=self.options.lineinfo,
                                                                  debug=self.options.debug),
                        name=self.py_func.__name__, include_dirs=source_dirs(link))
        linker.add(LTOIR(bytes(res.artifacts["ltoir"].data), name=f"{self.py_func.__name__}.ltoir"), trusted=True)
        linker.add(*_linker_items(link))
        return PTXSource(linker.link_ptx().data).text

    def inspect_asm(self, cc=None):
        """The kernel's PTX (numba's ``overloads[sig].inspect_asm(cc)``); for another
        compute capability ``cc`` the kernel is compiled for it (GPU-less)."""
        if cc is None or tuple(cc) == self.cc:
            return self.ptx
        return CompiledKernel(self.py_func, self.argtypes, self.options, tuple(cc), load=False).ptx

    def inspect_llvm(self, cc=None):
        """The kernel's NVVM IR (numba's ``overloads[sig].inspect_llvm(cc)``)."""
        if cc is None or tuple(cc) == self.cc:
            return self.artifact.stage("nvvm-ir")
        return CompiledKernel(self.py_func, self.argtypes, self.options, tuple(cc), load=False).inspect_llvm()

    def max_cooperative_grid_blocks(self, blockdim, dynsmemsize=0):
        """The most blocks of ``blockdim`` threads (an int or a 1-3 tuple) with
        ``dynsmemsize`` bytes of dynamic shared memory that a cooperative launch of
        this kernel can have resident at once on its device: the occupancy per
        multiprocessor times the multiprocessors (numba's method of the same name)."""
        from cudalite.driver import get_device

        threads = 1
        for n in (blockdim if isinstance(blockdim, (tuple, list)) else (blockdim,)):
            threads *= int(n)
        per_sm = self.function.max_active_blocks_per_multiprocessor(threads, int(dynsmemsize))
        return int(per_sm) * int(get_device(self.device_id).attribute("MULTIPROCESSOR_COUNT"))

    # -- launching ----------------------------------------------------------------------
    def bind(self, config):
        """The driver launch of this kernel bound to ``config`` (a LaunchConfig): a
        callable taking the flattened argument values.  A kernel that synchronizes its
        grid launches cooperatively (the config's cooperative attribute is set)."""
        if self.cooperative and not config.cooperative:
            config = config.replace(cooperative=True)
        return self.launcher.bind(config)

    def launch(self, config, *values):
        """Launch once with ``config`` (opting in to its dynamic shared memory first)."""
        self.ensure_dynamic_shared(config.shared_mem)
        if self.cooperative and not config.cooperative:
            config = config.replace(cooperative=True)
        self.launcher.launch(config, *values)

    def ensure_dynamic_shared(self, nbytes):
        """Opt in to more than 48 KiB of dynamic shared memory when a launch asks for it
        (the function attribute, up to the device's opt-in limit per block less the
        kernel's static shared memory); above that limit, a ``ValueError`` naming both."""
        if nbytes > self._max_dynamic_shared:
            from cudalite.driver import Device

            optin = Device(self.device_id).attribute("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN")
            static = self.function.attribute("shared_size_bytes")
            if nbytes + static > optin:
                raise ValueError(
                    f"kernel {self.py_func.__name__!r} asks for {nbytes} bytes of dynamic shared memory; "
                    f"device {self.device_id} allows at most {optin - static} per block "
                    f"({optin} bytes of opt-in shared memory less the kernel's {static} bytes of static shared "
                    "memory)")
            self.function.set_max_dynamic_shared_memory(nbytes)
            self._max_dynamic_shared = nbytes

    def check_exceptions(self, stream_handle):
        """debug=True or boundscheck=True: synchronize, and raise what a thread
        recorded (then reset it, so the next launch starts clean)."""
        import numpy as np

        from cudalite.driver import Stream, copy_device_to_host, memset

        if self.exc_global is None:
            return
        Stream.external(stream_handle).synchronize()
        ptr, size = self.exc_global  # a bounds-checked module's record is longer (it holds values)
        words = np.zeros(int(size) // 4, np.int32)
        copy_device_to_host(words, ptr, words.nbytes)
        if int(words[0]) == 0:
            return
        memset(ptr, 0, words.nbytes)
        raise self.exceptions.decode(words, kernel=self.py_func.__name__)

    def __repr__(self):
        return f"<CompiledKernel {self.py_func.__name__}{self.signature} on device {getattr(self, 'device_id', '-')}>"


def _pyfunc(obj):
    """The Python function of a dispatcher (kernel or device function), or ``obj``."""
    return getattr(obj, "__cudalite_pyfunc__", None) or getattr(obj, "py_func", None) or obj


def jit_compile(pyfunc, sig, *args, **kwargs):
    """``cuda.compile``: :func:`cudalite.nvvm.compile`, also accepting ``@cuda.jit`` dispatchers.

    Parameters
    ----------
    pyfunc : function or dispatcher
        A Python function, or a ``@cuda.jit`` kernel / device function (its Python function is compiled).
    sig : str or Signature
        The signature, e.g. ``"float32(float32, float32)"``.
    *args, **kwargs
        The options of :func:`cudalite.nvvm.compile` (``debug``, ``lineinfo``, ``device``, ``fastmath``,
        ``cc``, ``opt``, ``abi``, ``abi_info``, ``output``, ``forceinline``, ``launch_bounds``).

    Returns
    -------
    tuple
        ``(code, resty)``: PTX (str) or LTO-IR (bytes), and the return type.
    """
    from cudalite.nvvm import compile as nvvm_compile

    return nvvm_compile(_pyfunc(pyfunc), sig, *args, **kwargs)


def jit_compile_ptx(pyfunc, sig, *args, **kwargs):
    """``cuda.compile_ptx``: :func:`cudalite.nvvm.compile_ptx`, also accepting ``@cuda.jit`` dispatchers.

    Parameters
    ----------
    pyfunc : function or dispatcher
        A Python function, or a ``@cuda.jit`` kernel / device function.
    sig : str or Signature
        The signature.
    *args, **kwargs
        The options of :func:`cudalite.nvvm.compile_ptx`.

    Returns
    -------
    tuple
        ``(ptx, resty)``.
    """
    from cudalite.nvvm import compile_ptx

    return compile_ptx(_pyfunc(pyfunc), sig, *args, **kwargs)


def compile_for_current_device(pyfunc, sig, debug=False, lineinfo=False, device=True, fastmath=False,
                               opt=None, abi="c", abi_info=None, output="ptx", forceinline=False,
                               launch_bounds=None):
    """``cuda.compile`` for the current device's compute capability.

    Parameters
    ----------
    pyfunc : function or dispatcher
        What to compile.
    sig : str or Signature
        The signature.
    debug, lineinfo, device, fastmath, opt, abi, abi_info, output, forceinline, launch_bounds
        As for :func:`cudalite.nvvm.compile` (``cc`` is the current device's).

    Returns
    -------
    tuple
        ``(code, resty)``.

    Raises
    ------
    CudaDriverError
        No usable device (the driver is initialized to read the compute capability).
    """
    from cudalite.nvvm import compile as nvvm_compile

    return nvvm_compile(_pyfunc(pyfunc), sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath,
                        cc=current_cc(), opt=opt, abi=abi, abi_info=abi_info, output=output,
                        forceinline=forceinline, launch_bounds=launch_bounds)


def compile_ptx_for_current_device(pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False,
                                   opt=None, abi="numba", abi_info=None, forceinline=False, launch_bounds=None):
    """``cuda.compile_ptx`` for the current device's compute capability.

    Parameters
    ----------
    pyfunc : function or dispatcher
        What to compile.
    sig : str or Signature
        The signature.
    debug, lineinfo, device, fastmath, opt, abi, abi_info, forceinline, launch_bounds
        As for :func:`cudalite.nvvm.compile_ptx` (``cc`` is the current device's).

    Returns
    -------
    tuple
        ``(ptx, resty)``.
    """
    from cudalite.nvvm import compile_ptx

    return compile_ptx(_pyfunc(pyfunc), sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath,
                       cc=current_cc(), opt=opt, abi=abi, abi_info=abi_info, forceinline=forceinline,
                       launch_bounds=launch_bounds)


def _timings_wanted() -> bool:
    """Whether the program enabled INFO for the timing lines' logger (``logging`` is
    only imported here when some module already imported it: nobody can have asked
    otherwise)."""
    logging = sys.modules.get("logging")
    return logging is not None and logging.getLogger("cudalite.cuda.timings").isEnabledFor(logging.INFO)
