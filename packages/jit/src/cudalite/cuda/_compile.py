"""Compiling one kernel specialization for a device, end to end.

    run_pipeline (PTX, or LTO-IR when a link item is LTO-IR) -> nvJitLink for the
    exact sm_XY -> load the module -> get the function -> a driver launcher

:class:`JitOptions` holds the ``@cuda.jit`` options (a frozen dataclass);
:func:`compile_code` is the GPU-less part (typed IR, NVVM IR, PTX/LTO-IR for a given
``cc``); :class:`CompiledKernel` links, loads and launches it on the current device
and reads ``debug=True`` exceptions back.  ``compile_for_current_device`` and
``compile_ptx_for_current_device`` are numba's API (the cc of the current device).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from cudalite.core.errors import CompilerError, CudaliteError, Loc

__all__ = [
    "JitOptions", "compile_code", "CompiledKernel", "compile_for_current_device",
    "compile_ptx_for_current_device", "current_cc", "reraise_located", "jit_compile", "jit_compile_ptx",
]

_EXC_WORDS = 7  # [status, tid.xyz, ctaid.xyz] as int32: see cudalite.nvvm.lower._exceptions


@dataclass(frozen=True)
class JitOptions:
    """The options of ``@cuda.jit`` that shape the generated code."""

    debug: bool = False
    lineinfo: bool = False
    opt: object = None
    fastmath: bool = False
    max_registers: int | None = None
    launch_bounds: object = None
    forceinline: bool = False
    link: tuple = ()
    cache: bool = False

    @property
    def lto(self) -> bool:
        from cudalite.linker import LTOIR

        return any(isinstance(item, LTOIR) or str(item).lower().endswith(".ltoir") for item in self.link)


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


def _nvvm_options(opts: JitOptions, cc):
    from cudalite.nvvm.api import make_options

    o = make_options(cc=cc, opt=(False if opts.debug and opts.opt is None else opts.opt),
                     fastmath=opts.fastmath, debug=opts.debug, lineinfo=opts.lineinfo,
                     launch_bounds=opts.launch_bounds)
    return replace(o, forceinline=opts.forceinline) if opts.forceinline else o


def compile_code(pyfunc, argtypes, opts: JitOptions, cc, *, device=False, until=None):
    """GPU-less: run the pipeline for a kernel (or a device function) of ``argtypes``
    for ``cc`` until PTX (LTO-IR when linking LTO-IR); compile errors are raised
    with their source location and without compiler-internal frames."""
    from cudalite.nvvm.pipeline import EntrySpec, run_pipeline

    want = until or ("ltoir" if opts.lto else "ptx")
    try:
        res = run_pipeline(pyfunc, tuple(argtypes), EntrySpec(device=device), _nvvm_options(opts, cc), until=want)
        if until is None and want == "ptx" and any(_is_ltoir(item) for item in res.link_items):
            # a callee links LTO-IR: the whole link is LTO, so emit LTO-IR too
            res = run_pipeline(pyfunc, tuple(argtypes), EntrySpec(device=device), _nvvm_options(opts, cc),
                               until="ltoir")
        return res
    except CudaliteError as e:
        err = e
    reraise_located(err, pyfunc)


def _is_ltoir(item):
    from cudalite.linker import LTOIR

    return isinstance(item, LTOIR) or (isinstance(item, str) and item.lower().endswith(".ltoir"))


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


class CompiledKernel:
    """One specialization loaded on one device: its artifacts, driver function and
    launcher.  ``launch(grid3, block3, shared, stream_handle, *flat_values)``."""

    def __init__(self, pyfunc, argtypes, opts: JitOptions, cc, result=None):
        from cudalite.driver import current_device, load_module
        from cudalite.linker import LTOIR, Linker, LinkerError, LinkerOptions, PTXSource
        from cudalite.nvvm.lower import param_format

        self.py_func = pyfunc
        self.argtypes = tuple(argtypes)
        self.options = opts
        self.cc = tuple(cc)
        self.result = result or compile_code(pyfunc, argtypes, opts, cc)
        self.name = self.result.entry_name
        arch = f"sm_{self.cc[0]}{self.cc[1]}"
        lopts = LinkerOptions(max_registers=opts.max_registers, lineinfo=opts.lineinfo, debug=opts.debug)
        linker = Linker(arch, options=lopts, name=pyfunc.__name__)
        if "ltoir" in self.result.artifacts:
            linker.add(LTOIR(self.result.artifacts["ltoir"].data, name=f"{pyfunc.__name__}.ltoir"))
        else:
            linker.add(PTXSource(self.result.artifacts["ptx"].data, name=f"{pyfunc.__name__}.ptx"))
        linker.add(*_linker_items(tuple(opts.link) + tuple(self.result.link_items)))
        try:
            self.cubin = linker.link()
        except LinkerError as e:
            raise LinkerError(f"linking kernel {pyfunc.__qualname__} ({self.name}) failed: {e.message}",
                              error_log=getattr(e, "error_log", ""), info_log=getattr(e, "info_log", "")) from None
        self.device_id = current_device().id
        self.module = load_module(self.cubin.data)
        if self.cubin.setup_callback is not None:
            self.cubin.setup_callback(self.module)
        self.function = self.module.get_function(self.name)
        self.param_format = param_format(self.argtypes)
        self.launcher = self.function.launcher(self.param_format)
        self.cooperative = bool(self.result.uses_grid_sync)
        self.launch = self.launcher.launch_cooperative if self.cooperative else self.launcher.launch
        self.exceptions = tuple(self.result.exceptions)
        self.exc_global = self.module.get_global(self.result.exc_symbol) if self.result.exc_symbol else None
        self._max_dynamic_shared = 48 * 1024

    # -- artifacts ------------------------------------------------------------------------
    @property
    def signature(self):
        from cudalite.core.types import Signature, void

        return Signature(void, self.argtypes)

    def artifact(self, stage):
        art = self.result.artifacts.get(stage)
        return None if art is None else art.data

    @property
    def ptx(self):
        if "ptx" not in self.result.artifacts:  # an LTO build: make the PTX on demand
            res = compile_code(self.py_func, self.argtypes, replace(self.options, link=()), self.cc)
            return res.artifacts["ptx"].data
        return self.result.artifacts["ptx"].data

    # -- launching ----------------------------------------------------------------------
    def ensure_dynamic_shared(self, nbytes):
        """Raise the function's dynamic shared memory limit above 48 KiB when asked."""
        if nbytes > self._max_dynamic_shared:
            self.function.set_max_dynamic_shared_memory(nbytes)
            self._max_dynamic_shared = nbytes

    def check_exceptions(self, stream_handle):
        """debug=True: synchronize, and raise what a thread recorded (then reset it)."""
        import numpy as np

        from cudalite.driver import Stream, copy_device_to_host, memset

        if self.exc_global is None:
            return
        Stream.external(stream_handle).synchronize()
        ptr, _size = self.exc_global
        words = np.zeros(_EXC_WORDS, np.int32)
        copy_device_to_host(words, ptr, words.nbytes)
        index = int(words[0])
        if index == 0:
            return
        memset(ptr, 0, words.nbytes)
        info = self.exceptions[index - 1] if 0 < index <= len(self.exceptions) else None
        cls, args = (info.exc_class, info.args) if info is not None else (RuntimeError, ("unknown exception",))
        tid, ctaid = list(map(int, words[1:4])), list(map(int, words[4:7]))
        prefix = f"tid={tid} ctaid={ctaid}"
        if args and isinstance(args[0], str):
            args = (f"{prefix}: {args[0]}", *args[1:])
        else:
            args = (prefix, *args) if args else (prefix,)
        try:
            exc = cls(*args)
        except Exception:
            exc = RuntimeError(f"{cls.__name__}{args!r}")
        raise exc

    def __repr__(self):
        return f"<CompiledKernel {self.py_func.__name__}{self.signature} on device {self.device_id}>"


def _pyfunc(obj):
    """The Python function of a dispatcher (kernel or device function), or ``obj``."""
    return getattr(obj, "__cudalite_pyfunc__", None) or getattr(obj, "py_func", None) or obj


def jit_compile(pyfunc, sig, *args, **kwargs):
    """``cuda.compile``: also accepts ``@cuda.jit`` dispatchers."""
    from cudalite.nvvm import compile as nvvm_compile

    return nvvm_compile(_pyfunc(pyfunc), sig, *args, **kwargs)


def jit_compile_ptx(pyfunc, sig, *args, **kwargs):
    """``cuda.compile_ptx``: also accepts ``@cuda.jit`` dispatchers."""
    from cudalite.nvvm import compile_ptx

    return compile_ptx(_pyfunc(pyfunc), sig, *args, **kwargs)


def compile_for_current_device(pyfunc, sig, debug=False, lineinfo=False, device=True, fastmath=False,
                               opt=None, abi="c", abi_info=None, output="ptx", forceinline=False,
                               launch_bounds=None):
    """``cuda.compile`` for the current device's compute capability: ``(code, resty)``."""
    from cudalite.nvvm import compile as nvvm_compile

    return nvvm_compile(_pyfunc(pyfunc), sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath,
                        cc=current_cc(), opt=opt, abi=abi, abi_info=abi_info, output=output,
                        forceinline=forceinline, launch_bounds=launch_bounds)


def compile_ptx_for_current_device(pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False,
                                   opt=None, abi="numba", abi_info=None, forceinline=False, launch_bounds=None):
    """``cuda.compile_ptx`` for the current device's compute capability: ``(ptx, resty)``."""
    from cudalite.nvvm import compile_ptx

    return compile_ptx(_pyfunc(pyfunc), sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath,
                       cc=current_cc(), opt=opt, abi=abi, abi_info=abi_info, forceinline=forceinline,
                       launch_bounds=launch_bounds)
