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

import os

from dataclasses import dataclass, replace
from time import perf_counter

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


def _nvvm_options(opts: JitOptions, cc):
    from cudalite.nvvm._options import make_options

    o = make_options(cc=cc, opt=(False if opts.debug and opts.opt is None else opts.opt),
                     fastmath=opts.fastmath, debug=opts.debug, lineinfo=opts.lineinfo,
                     launch_bounds=opts.launch_bounds)
    return replace(o, forceinline=opts.forceinline) if opts.forceinline else o


def compile_code(pyfunc, argtypes, opts: JitOptions, cc, *, device=False, until=None, context=None):
    """GPU-less: run the pipeline for a kernel (or a device function) of ``argtypes``
    for ``cc`` until PTX (LTO-IR when linking LTO-IR); compile errors are raised
    with their source location and without compiler-internal frames.  ``context``:
    a typing context that already typed the function (the cache's probe)."""
    from cudalite.nvvm.pipeline import EntrySpec, run_pipeline

    want = until or ("ltoir" if opts.lto else "ptx")
    if context is None:  # one typing context for both runs below: typing (and extension hooks) once
        from cudalite.core.registry import registry
        from cudalite.core.typing import TypingContext

        context = TypingContext(registry)
    try:
        res = run_pipeline(pyfunc, tuple(argtypes), EntrySpec(device=device), _nvvm_options(opts, cc), until=want,
                           context=context)
        if until is None and want == "ptx" and any(_is_ltoir(item) for item in res.link_items):
            # a callee links LTO-IR: the whole link is LTO, so emit LTO-IR too
            res = run_pipeline(pyfunc, tuple(argtypes), EntrySpec(device=device), _nvvm_options(opts, cc),
                               until="ltoir", context=context)
        return res
    except CudaliteError as e:
        err = e
    reraise_located(err, pyfunc)


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


class CompiledKernel:
    """One specialization loaded on one device: its artifacts, driver function and
    launcher.  ``launch(grid3, block3, shared, stream_handle, *flat_values)``."""

    def __init__(self, pyfunc, argtypes, opts: JitOptions, cc, result=None):
        from cudalite.driver import current_device, load_module

        from . import _cache
        from .config import load_config

        t_start = perf_counter()
        timings, status = self.build(pyfunc, argtypes, opts, cc, result)
        t = perf_counter()
        self.device_id = current_device().id
        self.module = load_module(self.cubin.data)
        if self.cubin.setup_callback is not None:
            self.cubin.setup_callback(self.module)
        self.function = self.module.get_function(self.name)
        self.launcher = self.function.launcher(self.abi.param_format)
        self.cooperative = bool(self.result.uses_grid_sync)
        self.launch = self.launcher.launch_cooperative if self.cooperative else self.launcher.launch
        self.exceptions = tuple(self.result.exceptions)
        self.exc_global = self.module.get_global(self.result.exc_symbol) if self.result.exc_symbol else None
        self._max_dynamic_shared = 48 * 1024
        timings["load"] = perf_counter() - t
        timings["total"] = perf_counter() - t_start
        if load_config().timings:
            _cache.report_timings(pyfunc.__qualname__, self.argtypes, timings, status)

    def build(self, pyfunc, argtypes, opts: JitOptions, cc, result=None):
        """GPU-less: ``self.result``, ``self.cubin`` (linked for ``sm_XY`` of ``cc``),
        ``self.name``, ``self.abi`` and ``self.param_format``, from the on-disk cache when enabled
        and filled, else compiled (and stored).  Returns ``(timings, cache status)``."""
        from . import _cache

        self.py_func = pyfunc
        self.argtypes = tuple(argtypes)
        self.options = opts
        self.cc = tuple(cc)
        timings, status, probe, hit = {}, "off", None, None
        self.timings = timings
        if result is None and _cache.is_enabled(opts):  # the on-disk cache (see _cache)
            store = _cache.CacheStore()
            probe = _cache.probe_kernel(pyfunc, self.argtypes, opts, self.cc, directory=store.path)
            timings.update(probe.timings)
            hit = self._from_cache(store, probe, timings)
            status = "hit" if hit is not None else ("miss" if probe.key else f"off ({probe.reason})")
        if hit is None:
            self.result = result or compile_code(pyfunc, argtypes, opts, cc, context=probe and probe.context)
            for k, v in self.result.timings.items():
                timings[k] = timings.get(k, 0.0) + v
            t = perf_counter()
            self._link(pyfunc, opts)
            timings["link"] = perf_counter() - t
            from cudalite.core.abi import kernel_abi

            self.abi = getattr(self.result, "abi", None) or kernel_abi(self.argtypes)  # the kernel ABI
            self.param_format = self.abi.param_format
            if probe is not None and probe.key is not None:
                t = perf_counter()
                if _cache.verify_after_compile(probe, self.result, store.path):
                    store.store(probe.key, _cache.kernel_payload(self.result, self.cubin.data, self.argtypes,
                                                                 self.param_format, self.cc, pyfunc.__qualname__))
                timings["store"] = perf_counter() - t
        return timings, status

    def _from_cache(self, store, probe, timings):
        """The cached result for ``probe.key`` (and ``self.cubin``), or None."""
        from . import _cache

        if probe.key is None:
            return None
        t = perf_counter()
        payload = store.load(probe.key)
        hit = None
        if payload is not None:
            try:
                hit = _cache.CachedResult(payload, probe.typed,
                                          lambda: compile_code(self.py_func, self.argtypes, self.options, self.cc))
            except Exception:  # e.g. an exception class that no longer imports: recompile
                hit = None
        timings["cache"] = perf_counter() - t
        if hit is not None:
            self.result = hit
            self.name = hit.entry_name
            from cudalite.core.abi import kernel_abi

            self.abi = kernel_abi(self.argtypes)  # TODO(lead): KernelABI.from_payload of the cached ABI
            self.param_format = self.abi.param_format
            self.cubin = _CachedCubin(payload["cubin"], probe.links)
        return hit

    def _link(self, pyfunc, opts):
        """nvJitLink the pipeline's PTX/LTO-IR with the link items into ``self.cubin``."""
        from cudalite.linker import LTOIR, Linker, LinkerError, LinkerOptions, NvrtcError, PTXSource

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
        except NvrtcError:
            raise  # names the .cu file and line NVRTC reported
        except LinkerError as e:
            raise LinkerError(f"linking kernel {pyfunc.__qualname__} ({self.name}) failed: {e.message}",
                              error_log=getattr(e, "error_log", ""), info_log=getattr(e, "info_log", "")) from None

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


class _CachedCubin:
    """A cubin read from the cache; its setup callback chains those of the link
    items still in hand (callbacks are code, not data: they are never stored)."""

    def __init__(self, data, links):
        self.data = data
        callbacks = [cb for cb in (getattr(item, "setup_callback", None) for item in links) if cb is not None]
        self.setup_callback = None if not callbacks else (lambda module: [cb(module) for cb in callbacks])


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
