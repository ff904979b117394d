"""Lowering of ``cuda.bf16`` (numba.cuda.bf16).  Arithmetic and math compute in float32
(exact for a bfloat16's value) and round the result to bfloat16 once, to nearest even
(``hfma`` rounds ``a*b`` exactly, then the sum in float32 first); ``hneg``/``habs``
work on the sign bit; ``_sat`` clamps to [0, 1] (NaN -> 0), ``hfma_relu`` clamps
negatives to 0; ``hmax``/``hmin`` ignore a NaN operand, ``hmax_nan``/``hmin_nan``
return it; the ``u`` comparisons are unordered.
Conversions to integers round with the mode asked for and saturate (NVVM's ``f2i``
intrinsics, then a clamp for 8/16-bit results), as PTX ``cvt`` does."""

from __future__ import annotations

from llvmlite import ir

from cudalite.core import device_api as api

from ._bf16conv import F32, I32, bf16_to_f32, f32_to_bf16, f32_to_int, f64_to_bf16, int_to_bf16
from ._registry import lowerings

__all__ = []

_INTS = {"int": (32, True), "short": (16, True), "ushort": (16, False), "uint": (32, False),
         "ll": (64, True), "ull": (64, False), "char": (8, True), "uchar": (8, False)}
_MATH = {
    "htrunc": "trunc", "hceil": "ceil", "hfloor": "floor", "hrint": "rint", "hsqrt": "sqrt",
    "hrsqrt": "rsqrt", "hlog": "log", "hlog2": "log2", "hlog10": "log10", "hcos": "cos", "hsin": "sin",
    "hexp": "exp", "hexp2": "exp2", "hexp10": "exp10", "htanh": "tanh", "htanh_approx": "tanh",
}
_CMP = {"eq": "==", "ne": "!=", "ge": ">=", "gt": ">", "le": "<=", "lt": "<"}


def _fconst(v):
    return ir.Constant(F32, v)


def _clamp01(b, x):
    x = b.select(b.fcmp_unordered("<=", x, _fconst(0.0)), _fconst(0.0), x)  # NaN -> 0
    return b.select(b.fcmp_ordered(">", x, _fconst(1.0)), _fconst(1.0), x)


def _minmax(lc, op, x, y):
    b = lc.builder
    r = lc.call_libdevice("__nv_fmaxf" if op.startswith("hmax") else "__nv_fminf", F32, [x, y])
    if op.endswith("_nan"):
        either = b.fcmp_unordered("uno", x, y)
        r = b.select(either, _fconst(float("nan")), r)
    return r


def _arith(lc, op, xs):
    b = lc.builder
    base = op.split("_")[0]
    if base in ("hmax", "hmin"):
        return _minmax(lc, op, *xs)
    if base in ("hfma",):
        r = b.fadd(b.fmul(xs[0], xs[1]), xs[2])
    else:
        r = {"hadd": b.fadd, "hsub": b.fsub, "hmul": b.fmul, "hdiv": b.fdiv}[base](*xs)
    if op.endswith("_sat"):
        r = _clamp01(b, r)
    elif op == "hfma_relu":
        r = b.select(b.fcmp_ordered("<", r, _fconst(0.0)), _fconst(0.0), r)
    return r


@lowerings.call(*(getattr(api.bf16, n) for n in api.BF16_OPS))
def _bf16_op(lc, node, args, info):
    b = lc.builder
    op = info.payload.op
    sig = info.sig
    if op in ("bfloat16_as_short", "bfloat16_as_ushort", "short_as_bfloat16", "ushort_as_bfloat16"):
        return args[0]  # both are the 16 bits
    if op == "float2bfloat16" or op == "double2bfloat16":
        return (f64_to_bf16 if op == "double2bfloat16" else f32_to_bf16)(b, args[0])
    src, _, rest = op.partition("2")
    dst, _, mode = rest.partition("_")
    if src == "float" and mode:
        return f32_to_bf16(b, args[0], mode)
    if dst == "bfloat16" and src in _INTS:
        return int_to_bf16(b, args[0], sig.args[0], mode)
    if op == "hneg":  # the sign bit, as cuda_bf16.h (NaN payloads kept)
        return b.xor(args[0], ir.Constant(args[0].type, 0x8000))
    if op == "habs":
        return b.and_(args[0], ir.Constant(args[0].type, 0x7FFF))
    xs = [bf16_to_f32(b, a) for a in args]
    if op == "bfloat162float":
        return xs[0]
    if src == "bfloat16" and dst in _INTS:
        return f32_to_int(b, xs[0], *_INTS[dst], mode)
    if op == "hisnan":
        return b.fcmp_unordered("uno", xs[0], xs[0])
    if op == "hisinf":
        isinf = b.fcmp_ordered("==", lc.call_libdevice("__nv_fabsf", F32, xs), _fconst(float("inf")))
        sign = b.select(b.fcmp_ordered("<", xs[0], _fconst(0.0)), ir.Constant(I32, -1), ir.Constant(I32, 1))
        return b.select(isinf, sign, ir.Constant(I32, 0))
    if op[1:].rstrip("u") in _CMP:  # heq ... hlt, hequ ... hltu (unordered)
        cmp = b.fcmp_unordered if op.endswith("u") else b.fcmp_ordered
        return cmp(_CMP[op[1:3]], xs[0], xs[1])
    if op in _MATH:
        return f32_to_bf16(b, lc.call_libdevice(f"__nv_{_MATH[op]}f", F32, xs))
    if op == "hrcp":
        return f32_to_bf16(b, b.fdiv(_fconst(1.0), xs[0]))
    return f32_to_bf16(b, _arith(lc, op, xs))

