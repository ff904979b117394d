"""Lowering of the device intrinsics: special registers (``threadIdx.x``,
``laneid``, ``warpsize``), ``grid``/``gridsize``, barriers and fences, bit
intrinsics, ``fma``/``cbrt``/``selp`` and the ``cuda.fp16`` functions.

NVVM intrinsics are declared on demand (``llvm.nvvm.read.ptx.sreg.*``,
``llvm.nvvm.barrier0*``, ``llvm.nvvm.membar.*``, ``llvm.ctpop.*``); a few PTX
instructions with no LLVM 7 intrinsic are emitted as inline assembly.
"""

from __future__ import annotations

from llvmlite import ir

from cudalite.core import device_api as api
from cudalite.core.types import Integer
from cudalite.core.typing.rules.intrinsics import SREG_VALUES

from ._irtypes import I1, I32, I64, value_type
from ._registry import lowerings

__all__ = ["call_intrinsic", "inline_asm", "inline_asm_outputs", "read_sreg", "require_cc", "tuple_value"]

_HALF = ir.HalfType()
_I16 = ir.IntType(16)


def call_intrinsic(lc, name, ret, args):
    """Call (declaring on first use) the intrinsic ``name`` returning ``ret``."""
    fn = lc.module.declare(name, ir.FunctionType(ret, [a.type for a in args]))
    return lc.builder.call(fn, args)


def inline_asm(lc, ret, asm, constraint, args=(), side_effect=True):
    fnty = ir.FunctionType(ret, [a.type for a in args])
    return lc.builder.asm(fnty, asm, constraint, list(args), side_effect)


def inline_asm_outputs(lc, rets, asm, constraint, args=(), side_effect=True) -> list:
    """Inline asm with one output per type of ``rets``, as a list of values (LLVM takes a
    single output as a plain value and several as a literal struct)."""
    if len(rets) == 1:
        return [inline_asm(lc, rets[0], asm, constraint, args, side_effect)]
    raw = inline_asm(lc, ir.LiteralStructType(list(rets)), asm, constraint, args, side_effect)
    return [lc.builder.extract_value(raw, i) for i in range(len(rets))]


def tuple_value(lc, ty, items):
    """The value of the tuple type ``ty`` holding ``items``."""
    out = ir.Constant(value_type(ty), ir.Undefined)
    for i, item in enumerate(items):
        out = lc.builder.insert_value(out, item, i)
    return out


def require_cc(lc, node, what, need, feature=""):
    """A located error unless the module's target is at least compute capability ``need``."""
    cc = tuple(lc.module.options.cc)
    if cc < need:
        extra = f" ({feature})" if feature else ""
        raise lc.error(f"{what} needs compute capability {need[0]}.{need[1]} or newer{extra}; the target is "
                       f"sm_{cc[0]}{cc[1]}", node.loc)


def require_arch_specific(lc, node, what):
    """A located error unless the target is sm_90a -- or is sm_90 and may become sm_90a
    (``LowerOptions.auto_arch_suffix``: the module then records that it needs it).
    ``what`` (wgmma, setmaxnreg) exists only on the arch-specific Hopper target."""
    mb = lc.module
    cc = tuple(mb.options.cc)
    if cc != (9, 0):
        raise lc.error(f"{what} exists only on sm_90a (Hopper: H100/H200, compute capability 9.0); the target "
                       f"is sm_{cc[0]}{cc[1]}{mb.options.arch_suffix}", node.loc)
    if mb.arch_suffix != "a" and not mb.options.auto_arch_suffix:
        raise lc.error(f"{what} needs the arch-specific target sm_90a; the target is sm_90 (compile with "
                       "cc='sm_90a'; @cuda.jit kernels choose it themselves on a 9.0 device)", node.loc)
    mb.arch_suffix = "a"


# Value ranges of the special registers (PTX ISA limits), as [lo, hi) for !range
# metadata: the optimizer then knows thread indices are non-negative, so index
# arithmetic built from them needs no negative-index wraparound.
_SREG_RANGES = {
    "tid.x": (0, 1024), "tid.y": (0, 1024), "tid.z": (0, 64),
    "ntid.x": (1, 1025), "ntid.y": (1, 1025), "ntid.z": (1, 65),
    "ctaid.x": (0, 2**31 - 1), "ctaid.y": (0, 65535), "ctaid.z": (0, 65535),
    "nctaid.x": (1, 2**31), "nctaid.y": (1, 65536), "nctaid.z": (1, 65536),
    "laneid": (0, 32), "warpsize": (32, 33),
}


def read_sreg(lc, reg):
    """An i32 special register such as ``tid.x`` or ``laneid`` (with its value range)."""
    value = call_intrinsic(lc, f"llvm.nvvm.read.ptx.sreg.{reg}", I32, [])
    bounds = _SREG_RANGES.get(reg)
    if bounds is not None:
        md = lc.module.ir_module.add_metadata([ir.Constant(I32, bounds[0]), ir.Constant(I32, bounds[1])])
        value.set_metadata("range", md)
    return value


@lowerings.value(*SREG_VALUES)
def _sreg(lc, node, info):
    return read_sreg(lc, SREG_VALUES[info.key])


# -- grid / gridsize -----------------------------------------------------------------------------
@lowerings.call(api.grid)
def _grid(lc, node, args, info):
    b = lc.builder

    def axis(a):
        tid = b.sext(read_sreg(lc, f"tid.{a}"), I64)
        ctaid = b.sext(read_sreg(lc, f"ctaid.{a}"), I64)
        ntid = b.sext(read_sreg(lc, f"ntid.{a}"), I64)
        return b.add(tid, b.mul(ctaid, ntid))

    return _pack(lc, [axis(a) for a in "xyz"[: info.payload.ndim]], info.sig.return_type)


@lowerings.call(api.gridsize)
def _gridsize(lc, node, args, info):
    b = lc.builder

    def axis(a):
        return b.mul(b.sext(read_sreg(lc, f"ntid.{a}"), I64), b.sext(read_sreg(lc, f"nctaid.{a}"), I64))

    return _pack(lc, [axis(a) for a in "xyz"[: info.payload.ndim]], info.sig.return_type)


def _pack(lc, values, rt):
    if len(values) == 1:
        return values[0]
    out = ir.Constant(value_type(rt), ir.Undefined)
    for i, v in enumerate(values):
        out = lc.builder.insert_value(out, v, i)
    return out


# -- barriers and fences ----------------------------------------------------------------------------
_VOID = ir.VoidType()


@lowerings.call(api.syncthreads)
def _syncthreads(lc, node, args, info):
    call_intrinsic(lc, "llvm.nvvm.barrier0", _VOID, [])


def _barrier_reduce(suffix):
    def lower(lc, node, args, info):
        pred = lc.builder.zext(args[0], I32)
        return call_intrinsic(lc, f"llvm.nvvm.barrier0.{suffix}", I32, [pred])

    return lower


lowerings.call(api.syncthreads_count)(_barrier_reduce("popc"))
lowerings.call(api.syncthreads_and)(_barrier_reduce("and"))
lowerings.call(api.syncthreads_or)(_barrier_reduce("or"))


@lowerings.call(api.syncwarp)
def _syncwarp(lc, node, args, info):
    mask = args[0] if args else ir.Constant(I32, 0xFFFFFFFF)
    call_intrinsic(lc, "llvm.nvvm.bar.warp.sync", _VOID, [mask])


def _fence(level):
    def lower(lc, node, args, info):
        call_intrinsic(lc, f"llvm.nvvm.membar.{level}", _VOID, [])

    return lower


lowerings.call(api.threadfence)(_fence("gl"))
lowerings.call(api.threadfence_block)(_fence("cta"))
lowerings.call(api.threadfence_system)(_fence("sys"))


# -- bit intrinsics -----------------------------------------------------------------------------------
@lowerings.call(api.popc)
def _popc(lc, node, args, info):
    (x,) = args
    return call_intrinsic(lc, f"llvm.ctpop.i{x.type.width}", x.type, [x])


@lowerings.method(Integer, "bit_count")
def _bit_count(lc, node, args, info):
    t = info.sig.return_type
    x = lc.cast(args[0], info.recv, t)
    return call_intrinsic(lc, f"llvm.ctpop.i{t.bitwidth}", x.type, [x])


@lowerings.call(api.brev)
def _brev(lc, node, args, info):
    (x,) = args
    name = "__nv_brev" if x.type.width == 32 else "__nv_brevll"
    return lc.call_libdevice(name, x.type, [x])


@lowerings.call(api.clz)
def _clz(lc, node, args, info):
    (x,) = args
    return call_intrinsic(lc, f"llvm.ctlz.i{x.type.width}", x.type, [x, ir.Constant(I1, 0)])


@lowerings.call(api.ffs)
def _ffs(lc, node, args, info):
    (x,) = args
    name = "__nv_ffs" if x.type.width == 32 else "__nv_ffsll"
    return lc.call_libdevice(name, I32, [x])


@lowerings.call(api.fma)
def _fma(lc, node, args, info):
    name = "__nv_fmaf" if args[0].type == ir.FloatType() else "__nv_fma"
    return lc.call_libdevice(name, args[0].type, args)


@lowerings.call(api.cbrt)
def _cbrt(lc, node, args, info):
    name = "__nv_cbrtf" if args[0].type == ir.FloatType() else "__nv_cbrt"
    return lc.call_libdevice(name, args[0].type, args)


@lowerings.call(api.selp)
def _selp(lc, node, args, info):
    return lc.builder.select(*args)


# -- half precision -----------------------------------------------------------------------------------
def _half_unary(instr):
    """One native half instruction (``abs.f16``, ``neg.f16``), as numba-cuda emits."""
    def lower(lc, a):
        b = lc.builder  # libNVVM's inline asm takes no 'half' operands: pass the bits as i16
        r = inline_asm(lc, _I16, f"{instr} $0, $1;", "=h,h", [b.bitcast(a, _I16)], side_effect=False)
        return b.bitcast(r, _HALF)

    return lower


def _hfma(lc, a, bv, c):
    b = lc.builder  # libNVVM's inline asm takes no 'half' operands: pass the bits as i16
    ops = [b.bitcast(v, _I16) for v in (a, bv, c)]
    r = inline_asm(lc, _I16, "fma.rn.f16 $0, $1, $2, $3;", "=h,h,h,h", ops, side_effect=False)
    return b.bitcast(r, _HALF)


def _hminmax(pred):
    def lower(lc, a, bv):
        b = lc.builder
        # NaN is treated as missing data (like fmaxf/fminf): the other operand wins
        pick_a = b.or_(b.fcmp_ordered(pred, a, bv), b.fcmp_unordered("uno", bv, bv))
        return b.select(pick_a, a, bv)

    return lower


_FP16_LOWER = {
    "hadd": lambda lc, a, b: lc.builder.fadd(a, b),
    "hsub": lambda lc, a, b: lc.builder.fsub(a, b),
    "hmul": lambda lc, a, b: lc.builder.fmul(a, b),
    "hdiv": lambda lc, a, b: lc.builder.fdiv(a, b),
    "hneg": _half_unary("neg.f16"),
    "habs": _half_unary("abs.f16"),
    "hfma": _hfma,
    "hmax": _hminmax(">"),
    "hmin": _hminmax("<"),
    "heq": lambda lc, a, b: lc.builder.fcmp_ordered("==", a, b),
    "hne": lambda lc, a, b: lc.builder.fcmp_unordered("!=", a, b),
    "hgt": lambda lc, a, b: lc.builder.fcmp_ordered(">", a, b),
    "hge": lambda lc, a, b: lc.builder.fcmp_ordered(">=", a, b),
    "hlt": lambda lc, a, b: lc.builder.fcmp_ordered("<", a, b),
    "hle": lambda lc, a, b: lc.builder.fcmp_ordered("<=", a, b),
}


@lowerings.call(*(getattr(api.fp16, n) for n in api.FP16_OPS))
def _fp16(lc, node, args, info):
    return _FP16_LOWER[info.payload.op](lc, *args)
