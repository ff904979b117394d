"""The compilation pipeline as an ordered list of named stages.

    source -> ast -> typed-ir -> nvvm-ir -> ptx | ltoir

Each stage's output is an immutable :class:`Artifact`; :func:`run_pipeline`
stops after the requested stage and returns every artifact produced so far.
"""

from __future__ import annotations

import ast as _ast
from time import perf_counter
from dataclasses import dataclass, field

from cudalite.core.errors import SignatureError, TypingError
from cudalite.core.ir.printer import format_typed_function
from cudalite.core.registry import registry
from cudalite.core.types import NoneType, Void, parse_signature
from cudalite.core.typing import TypedFunction, TypingContext

from . import libnvvm
from ._options import CompileOptions, nvvm_flags
from .lower import LowerOptions, ModuleBuilder, check_c_name, emit_c_abi, emit_kernel, emit_numba_abi, lowerings, mangle

__all__ = ["STAGES", "Artifact", "PipelineResult", "EntrySpec", "run_pipeline"]

STAGES = ("source", "ast", "typed-ir", "nvvm-ir", "ptx", "ltoir")


@dataclass(frozen=True)
class Artifact:
    """One stage's output: ``kind`` (a stage name), ``data`` (str or bytes), ``name``."""

    kind: str
    data: object
    name: str

    def __str__(self):
        return self.data if isinstance(self.data, str) else f"<{self.kind}: {len(self.data)} bytes>"


@dataclass(frozen=True)
class EntrySpec:
    """What entry point to emit: a kernel, or a device function with an ABI."""

    device: bool = True
    abi: str = "numba"  # 'numba' | 'c'
    abi_name: str | None = None


@dataclass
class PipelineResult:
    artifacts: dict = field(default_factory=dict)
    typed: TypedFunction | None = None
    return_type: object = None
    entry_name: str | None = None
    exceptions: tuple = ()  # debug mode: what each recorded exception index raises on the host
    exc_symbol: str | None = None  # the device global holding the status (None: nothing can raise)
    uses_grid_sync: bool = False  # needs a cooperative launch
    timings: dict = field(default_factory=dict)  # stage -> seconds (parse, infer, lower, nvvm)
    link_items: tuple = ()  # code the module's foreign calls need (paths or cudalite.linker objects)

    def __getitem__(self, stage):
        return self.artifacts[stage]


def _source_artifacts(pyfunc, ctx, result):
    fir = ctx.function_ir(pyfunc)
    from cudalite.core.frontend import capture

    src = capture(pyfunc)
    text = _ast.get_source_segment("".join(src.lines), src.node) or ""
    result.artifacts["source"] = Artifact("source", text, fir.qualname)
    result.artifacts["ast"] = Artifact("ast", _ast.dump(src.node, indent=2), fir.qualname)
    return fir


def run_pipeline(pyfunc, sig, entry: EntrySpec, options: CompileOptions, until: str = "ptx",
                 context: TypingContext | None = None) -> PipelineResult:
    """Compile ``pyfunc`` for ``sig`` and stop after stage ``until``."""
    if until not in STAGES:
        raise ValueError(f"unknown stage {until!r}; stages are {', '.join(STAGES)}")
    stop = STAGES.index(until)
    result = PipelineResult()
    ctx = context or TypingContext(registry, options)
    ret, argtypes = parse_signature(sig)
    if not entry.device:
        if entry.abi == "c":
            raise SignatureError("the C ABI is for device functions only; compile kernels with abi='numba'")
        if ret is not None and not isinstance(ret, (Void, NoneType)):
            raise SignatureError(f"kernels must return void, but the signature declares {ret}")
    t0 = perf_counter()
    fir = _source_artifacts(pyfunc, ctx, result) if stop <= 1 else ctx.function_ir(pyfunc)
    t1 = perf_counter()
    result.timings["parse"] = t1 - t0
    if stop <= 1:
        return result
    tf = ctx.type_function(pyfunc, argtypes, ret)
    result.timings["infer"] = perf_counter() - t1
    if not entry.device and not isinstance(tf.return_type, (Void, NoneType)):
        raise TypingError(f"kernel {fir.qualname} returns a {tf.return_type} value; kernels must return None",
                            next((loc for loc in _return_locs(fir)), fir.loc))
    result.typed = tf
    result.return_type = tf.return_type
    result.artifacts["typed-ir"] = Artifact("typed-ir", format_typed_function(tf), fir.qualname)
    if stop <= 2:
        return result
    t2 = perf_counter()
    lopts = LowerOptions(debug=options.debug, lineinfo=options.lineinfo, fastmath=options.fastmath,
                         forceinline=options.forceinline, nvvm_ir_version=libnvvm.ir_version(), cc=options.cc)
    mb = ModuleBuilder(fir.qualname, lopts, lowerings=lowerings)
    if not entry.device:
        name = mangle(fir.module, fir.qualname, argtypes)
    elif entry.abi == "c":
        name = check_c_name(entry.abi_name or pyfunc.__name__, fir.loc)
    else:
        name = entry.abi_name or mangle(fir.module, fir.qualname, argtypes)
    mb.exc_symbol = f"{name}__cudalite_exc"
    if not entry.device:
        emit_kernel(mb, tf, name, options.launch_bounds)
    elif entry.abi == "c":
        fn = emit_c_abi(mb, tf, name)
        if options.forceinline:
            fn.attributes.add("alwaysinline")
    else:
        emit_numba_abi(mb, tf, name)
    result.exceptions = tuple(mb.exceptions)
    result.uses_grid_sync = mb.uses_grid_sync
    result.link_items = tuple(mb.link_items)
    result.exc_symbol = mb.exc_symbol if mb.exceptions else None
    result.entry_name = name
    text = mb.finalize()
    result.artifacts["nvvm-ir"] = Artifact("nvvm-ir", text, name)
    t3 = perf_counter()
    result.timings["lower"] = t3 - t2
    if stop <= 3:
        return result
    out_kind = "ltoir" if until == "ltoir" else options.output
    opts = options if out_kind == options.output else _with_output(options, out_kind)
    code = libnvvm.compile_ir(text, nvvm_flags(opts), mb.uses_libdevice)
    data = code.decode() if out_kind == "ptx" else code
    result.artifacts[out_kind] = Artifact(out_kind, data, name)
    result.timings["nvvm"] = perf_counter() - t3
    return result


def _with_output(options, output):
    from dataclasses import replace

    return replace(options, output=output)


def _return_locs(fir):
    from cudalite.core import ir

    def walk(stmts):
        for s in stmts:
            if isinstance(s, ir.Return) and s.value is not None:
                yield s.loc
            for attr in ("body", "orelse"):
                yield from walk(getattr(s, attr, []) or [])

    return walk(fir.body)
