"""The compilation pipeline: an ordered list of named, pure stages and one loop.

    stage    reads              makes                  artifacts recorded
    parse    the function       FunctionIR             source, ast
    infer    FunctionIR         TypedFunction          typed-ir
    lower    TypedFunction      LoweredModule          nvvm-ir
    nvvm     LoweredModule      PTX | LTO-IR           ptx | ltoir

A stage is a plain function ``stage(job, state) -> state``: it reads the
immutable :class:`CompileJob` (what is compiled, how) and the :class:`State`
made so far, and returns a new state holding its product.  :func:`run_stages`
is the one loop: it runs the stages from a start state, records each stage's
artifacts and time, and stops after the stage that makes the artifact asked
for.  :func:`run_pipeline` starts from nothing; :func:`resume` continues a
:class:`PipelineResult` (switching PTX -> LTO-IR for a link re-runs only the
``nvvm`` stage); :func:`compile_nvvm_ir` runs the last stage alone on stored
NVVM IR text.
"""

from __future__ import annotations

import ast as _ast
import logging
from typing import Any, Callable
from dataclasses import dataclass, field, replace
from time import perf_counter
from types import MappingProxyType

from cudalite.core.abi import kernel_abi
from cudalite.core.errors import KernelReturnError, Loc, NestingError, SignatureError
from cudalite.core.ir.printer import format_typed_function
from cudalite.core.progress import reporting
from cudalite.core.registry import registry
from cudalite.core.types import NoneType, Void, parse_signature
from cudalite.core.typing import TypedFunction, TypingContext

from . import libnvvm
from ._deep import FRAME_LIMIT, ast_depth, call_deep, deepest_statement, on_big_stack
from ._options import CompileOptions, nvvm_flags
from .artifacts import Artifact, ExceptionTable, LoweredModule
from .lower import LowerOptions, ModuleBuilder, check_c_name, emit_c_abi, emit_kernel, emit_numba_abi, mangle
from .lower import lowerings as default_lowerings

__all__ = [
    "STAGES", "PIPELINE", "Artifact", "CompileJob", "State", "Stage", "PipelineResult", "EntrySpec",
    "run_pipeline", "run_stages", "resume", "compile_nvvm_ir",
]

_log = logging.getLogger(__name__)

#: artifact names, in pipeline order (``until=`` takes one of these)
STAGES = ("source", "ast", "typed-ir", "nvvm-ir", "ptx", "ltoir")


@dataclass(frozen=True, slots=True)
class EntrySpec:
    """What entry point to emit: a kernel, or a device function with an ABI."""

    device: bool = True
    abi: str = "numba"  # 'numba' | 'c'
    abi_name: str | None = None


@dataclass(frozen=True, slots=True)
class CompileJob:
    """What one pipeline run compiles, and how (never changes during the run)."""

    pyfunc: Any  # the Python function
    argtypes: tuple
    return_type: Any  # a Type, or None: inferred
    entry: EntrySpec
    options: CompileOptions
    context: TypingContext  # typing: holds the typing registry
    lowerings: Any  # lowering: the lowering table (cudalite.nvvm.lower.Lowerings)


@dataclass(frozen=True, slots=True)
class State:
    """What the stages made so far (each field set by one stage)."""

    fir: Any = None  # parse: cudalite.core.ir.FunctionIR
    typed: TypedFunction | None = None  # infer
    module: LoweredModule | None = None  # lower
    code: str | bytes | None = None  # nvvm: PTX text or LTO-IR bytes
    output: str | None = None  # nvvm: 'ptx' | 'ltoir'


@dataclass(frozen=True, slots=True)
class Stage:
    """A named step: ``run(job, state) -> (state, {artifact name: data})``."""

    name: str
    makes: tuple  # the artifact names it can record
    run: Callable[[CompileJob, State], tuple]


def _parse(job: CompileJob, state: State):
    fir = job.context.function_ir(job.pyfunc)
    return replace(state, fir=fir), {"source": lambda: _source_text(job.pyfunc),
                                     "ast": lambda: _ast_text(_capture(job.pyfunc).node)}


#: an AST deeper than this is dumped on one line (indenting makes the text grow as depth squared)
_INDENT_DEPTH = 64


def _ast_text(node) -> str:
    return _ast.dump(node, indent=2 if ast_depth(node) <= _INDENT_DEPTH else None)


def _capture(pyfunc):
    from cudalite.core.frontend import capture

    return capture(pyfunc)


def _source_text(pyfunc) -> str:
    src = _capture(pyfunc)
    return _ast.get_source_segment("".join(src.lines), src.node) or ""


def _infer(job: CompileJob, state: State):
    fir = state.fir
    tf = job.context.type_function(job.pyfunc, job.argtypes, job.return_type)
    if not job.entry.device and not isinstance(tf.return_type, (Void, NoneType)):
        raise KernelReturnError(f"kernel {fir.qualname} returns a {tf.return_type} value; kernels must return "
                                "None (to return a value, make it a device function: @cuda.jit(device=True), "
                                "called from a kernel); a CUDA kernel must have void return type",
                                next(iter(_return_locs(fir)), fir.loc))
    return replace(state, typed=tf), {"typed-ir": lambda: format_typed_function(tf)}


def _entry_name(job: CompileJob, fir) -> str:
    entry = job.entry
    if not entry.device:
        return mangle(fir.module, fir.qualname, job.argtypes)
    if entry.abi == "c":
        return check_c_name(entry.abi_name or job.pyfunc.__name__, fir.loc)
    return entry.abi_name or mangle(fir.module, fir.qualname, job.argtypes)


def _lower(job: CompileJob, state: State):
    options, entry, tf = job.options, job.entry, state.typed
    lopts = LowerOptions(debug=options.debug, lineinfo=options.lineinfo, fastmath=options.fastmath,
                         forceinline=options.forceinline, nvvm_ir_version=libnvvm.ir_version(), cc=options.cc,
                         boundscheck=options.boundscheck, arch_suffix=options.arch_suffix,
                         auto_arch_suffix=options.auto_arch_suffix)
    name = _entry_name(job, state.fir)
    mb = ModuleBuilder(state.fir.qualname, lopts, lowerings=job.lowerings, exc_symbol=f"{name}__cudalite_exc")
    if not entry.device:
        emit_kernel(mb, tf, name, options.launch_bounds, options.cluster_dims)
    elif entry.abi == "c":
        fn = emit_c_abi(mb, tf, name)
        if options.forceinline:
            fn.attributes.add("alwaysinline")
    else:
        emit_numba_abi(mb, tf, name)
    module = mb.finalize(name, kernel_abi(job.argtypes))  # what the entry wrappers flatten
    return replace(state, module=module), {"nvvm-ir": module.text}


def _nvvm(job: CompileJob, state: State):
    output = state.output or job.options.output
    module: Any = state.module  # made by the lower stage
    options = job.options
    if module.arch_suffix != options.arch_suffix:  # the code needs sm_90a (auto_arch_suffix allowed it)
        options = replace(options, arch_suffix=module.arch_suffix)
    code = compile_nvvm_ir(module.text, options, output, uses_libdevice=module.uses_libdevice)
    return replace(state, code=code, output=output), {output: code}


#: the pipeline, in order
PIPELINE = (
    Stage("parse", ("source", "ast"), _parse),
    Stage("infer", ("typed-ir",), _infer),
    Stage("lower", ("nvvm-ir",), _lower),
    Stage("nvvm", ("ptx", "ltoir"), _nvvm),
)


def _stage_index(artifact: str) -> int:
    if artifact not in STAGES:
        raise ValueError(f"unknown stage {artifact!r}; stages are {', '.join(STAGES)}")
    return next(i for i, s in enumerate(PIPELINE) if artifact in s.makes)


@dataclass(frozen=True)
class PipelineResult:
    """The artifacts of one run (``result["ptx"]``), its timings (seconds per
    stage) and the state the stages made, which :func:`resume` continues."""

    job: CompileJob
    state: State
    artifacts: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    timings: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    done: int = 0  # how many stages of PIPELINE have run

    def __getitem__(self, stage: Any) -> Any:
        return self.artifacts[stage]

    def stage(self, name: Any) -> Any:
        """The data of artifact ``name``, or None when it was not made."""
        art = self.artifacts.get(name)
        return None if art is None else art.data

    # -- what the stages found (None before the stage that finds it) ---------------------
    @property
    def typed(self) -> Any:
        return self.state.typed

    @property
    def return_type(self) -> Any:
        return None if self.state.typed is None else self.state.typed.return_type

    @property
    def module(self) -> LoweredModule | None:
        return self.state.module

    @property
    def entry_name(self) -> Any:
        return None if self.state.module is None else self.state.module.entry_name

    @property
    def abi(self) -> Any:
        return None if self.state.module is None else self.state.module.abi

    @property
    def exceptions(self) -> Any:
        return ExceptionTable() if self.state.module is None else self.state.module.exceptions

    @property
    def exc_symbol(self) -> Any:
        return None if self.state.module is None else self.state.module.exc_symbol

    @property
    def uses_grid_sync(self) -> bool:
        return bool(self.state.module and self.state.module.uses_grid_sync)

    @property
    def arch_suffix(self) -> str:
        """``"a"`` when the code was compiled for the arch-specific target (sm_90a), else ``""``."""
        return "" if self.state.module is None else self.state.module.arch_suffix

    @property
    def needs_lto(self) -> bool:
        """Whether the code must be linked as LTO-IR (setmaxnreg: see ``LoweredModule``)."""
        return bool(self.state.module and self.state.module.needs_lto)

    @property
    def link_items(self) -> tuple:
        return () if self.state.module is None else self.state.module.link_items


class _LazyArtifact(Artifact):
    """An artifact whose text is made on first read (the AST dump and the typed-IR
    listing cost more than the rest of a small compile and are rarely read)."""

    def __init__(self, kind, make, name) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "_make", make)

    def __getattr__(self, attr):
        if attr != "data":
            raise AttributeError(attr)
        data = self._make()  # the maker is guarded: see run_stages
        object.__setattr__(self, "data", data)
        return data


def run_stages(job: CompileJob, state: State, start: int, until: str, *, artifacts: Any = None, timings: Any = None,
               output: str | None = None) -> PipelineResult:
    """The loop: run ``PIPELINE[start:]`` from ``state`` and stop after the stage
    that makes ``until``, recording every artifact and each stage's time."""
    stop = _stage_index(until)
    artifacts = dict(artifacts or {})
    timings = dict(timings or {})
    if output is not None:
        state = replace(state, output=output)
    name = job.pyfunc.__qualname__
    debug = _log.isEnabledFor(logging.DEBUG)
    for i in range(start, stop + 1):
        stage = PIPELINE[i]
        t0 = perf_counter()
        with reporting(_log, job.pyfunc.__qualname__, stage.name):
            state, made = _guarded(job, state, stage.name, stage.run, job, state)
        timings[stage.name] = perf_counter() - t0
        if debug:
            _log.debug("%s: %s stage %.2f ms", job.pyfunc.__qualname__, stage.name, timings[stage.name] * 1e3)
        if state.module is not None:
            name = state.module.entry_name
        for kind, data in made.items():
            if callable(data):
                artifacts[kind] = _LazyArtifact(kind, _guarded_maker(job, state, stage.name, data), name)
            else:
                artifacts[kind] = Artifact(kind, data, name)
    return PipelineResult(job, state, MappingProxyType(artifacts), MappingProxyType(timings), stop + 1)


def _guarded(job: CompileJob, state: State, stage: str, fn, *args):
    """``fn(*args)`` with room for deep nesting (:func:`cudalite.nvvm._deep.call_deep`);
    an expression too deep even so, or a function too big for memory, raises a
    located :class:`NestingError` instead of RecursionError / MemoryError."""
    try:
        return call_deep(fn, *args)
    except (RecursionError, MemoryError) as e:
        err = _nesting_error(job, state, stage, e)
    raise err


def _guarded_maker(job, state, stage, make):
    return lambda: _guarded(job, state, stage, make)


def _nesting_error(job: CompileJob, state: State, stage: str, exc: BaseException) -> NestingError:
    pyfunc = job.pyfunc
    code = getattr(pyfunc, "__code__", None)
    loc = Loc(code.co_filename, code.co_firstlineno) if code is not None else None
    depth = 0
    try:
        loc, depth = on_big_stack(_deepest_loc, state.fir, pyfunc, loc)
    except Exception:  # noqa: BLE001 - no better location than the function's first line
        pass
    what = f"its deepest expression is {depth} levels deep; " if depth else ""
    if isinstance(exc, MemoryError):
        msg = (f"out of memory while compiling {pyfunc.__qualname__} ({stage} stage): the function is too "
               f"large or an expression too deeply nested ({what}split it into several statements)")
    else:
        msg = (f"expression too deeply nested: compiling {pyfunc.__qualname__} needs more than "
               f"{FRAME_LIMIT} levels of recursion in the {stage} stage ({what}split it into several "
               "statements)")
    return NestingError(msg, loc)


def _deepest_loc(fir, pyfunc, default):
    """The location and nesting depth of the deepest statement, from the IR when the
    frontend made it, else from the Python AST (``default`` when neither parses)."""
    if fir is not None:
        stmt, depth = deepest_statement(fir.body)
        return (stmt.loc if stmt is not None else fir.loc), depth
    src = _capture(pyfunc)
    node = src.node
    if isinstance(node, _ast.Lambda):
        return src.loc(node), deepest_statement([_ast.Return(node.body, lineno=node.lineno)])[1]
    stmt, depth = deepest_statement(node.body)
    return (src.loc(stmt) if stmt is not None else default), depth


def _check_entry(entry: EntrySpec, ret):
    if not entry.device:
        if entry.abi == "c":
            raise SignatureError("the C ABI is for device functions only; compile kernels with abi='numba'")
        if ret is not None and not isinstance(ret, (Void, NoneType)):
            raise SignatureError(f"kernels must return void, but the signature declares {ret} (to return a "
                                 "value, make it a device function: @cuda.jit(device=True) or device=True)")


def run_pipeline(pyfunc: Any, sig: Any, entry: EntrySpec, options: CompileOptions, until: str = "ptx",
                 context: TypingContext | None = None, lowerings: Any = None) -> PipelineResult:
    """Compile ``pyfunc`` for ``sig`` and stop after the stage making ``until``
    (the ``nvvm`` stage makes ``until`` when it is 'ptx' or 'ltoir', else
    ``options.output``).  ``context``: the typing context (default: a new one over
    the built-in registry); ``lowerings``: the lowering table (default: the built-in one)."""
    _stage_index(until)
    ret, argtypes = parse_signature(sig)
    _check_entry(entry, ret)
    job = CompileJob(pyfunc, tuple(argtypes), ret, entry, options, context or TypingContext(registry, options),
                     default_lowerings if lowerings is None else lowerings)
    output = until if until in ("ptx", "ltoir") else None
    return run_stages(job, State(), 0, until, output=output)


def resume(result: PipelineResult, until: str) -> PipelineResult:
    """Continue ``result`` until the stage making ``until``: stages already run are
    not run again, except the ``nvvm`` stage when another output is asked for
    (PTX after LTO-IR or the reverse re-runs only libNVVM, from the stored module)."""
    stop = _stage_index(until)
    start = result.done
    output = until if until in ("ptx", "ltoir") else None
    if output is not None and start > stop:  # the nvvm stage ran for the other output
        if result.state.output == output:
            return result
        start = stop
    if start > stop:
        return result
    return run_stages(result.job, result.state, start, until, artifacts=result.artifacts,
                      timings=result.timings, output=output)


def compile_nvvm_ir(text: str, options: CompileOptions, output: str = "ptx", *, uses_libdevice: Any = None) -> Any:
    """The ``nvvm`` stage on its own: NVVM IR text (e.g. a stored ``nvvm-ir``
    artifact) -> PTX text or LTO-IR bytes.  ``uses_libdevice`` None: decided from the
    text (a declaration of a ``__nv_`` function)."""
    if output not in ("ptx", "ltoir"):
        raise ValueError(f"output must be 'ptx' or 'ltoir', not {output!r}")
    opts = options if options.output == output else replace(options, output=output)
    if uses_libdevice is None:
        uses_libdevice = "@__nv_" in text
    code = libnvvm.compile_ir(text, nvvm_flags(opts), uses_libdevice)
    return code.decode() if output == "ptx" else code


def _return_locs(fir):
    from cudalite.core import ir

    return (s.loc for s in ir.walk_stmts(fir.body) if isinstance(s, ir.Return) and s.value is not None)
