"""Conversions between value representations and truth testing."""

from __future__ import annotations

from llvmlite import ir

from cudalite.core.types import (
    Array, BFloat16, Boolean, BytesLiteral, CharSeq, Complex, CPointer, Float, Fp8, Integer, NoneType,
    StringLiteral, Tuple, UnicodeCharSeq,
)

from ._bf16conv import bf16_to_f32, cast_bf16
from ._fp8conv import cast_fp8, fp8_truth
from ._ext_tables import casts as ext_casts
from ._irtypes import I1, value_type

__all__ = ["cast", "char_seq_constant", "truth", "make_complex", "complex_parts", "float_const", "zero_of"]


def float_const(ty, value):
    return ir.Constant(value_type(ty), value)


def zero_of(ty):
    return ir.Constant(value_type(ty), None)


def make_complex(b, re, im, cty: Complex):
    v = ir.Constant(value_type(cty), ir.Undefined)
    v = b.insert_value(v, re, 0)
    return b.insert_value(v, im, 1)


def complex_parts(b, v):
    return b.extract_value(v, 0), b.extract_value(v, 1)


def cast(b: ir.IRBuilder, v, src, dst):
    """Convert value ``v`` of type ``src`` to ``dst`` (types already checked)."""
    if src == dst:
        return v
    if isinstance(src, StringLiteral) and isinstance(dst, (Float, BFloat16, Fp8)):  # float("nan"): typing checked it
        return cast(b, ir.Constant(ir.DoubleType(), float(src.value)), Float(64), dst)
    if isinstance(src, Fp8) or isinstance(dst, Fp8):
        return cast_fp8(b, v, src, dst, cast)
    if isinstance(src, BFloat16) or isinstance(dst, BFloat16):
        return cast_bf16(b, v, src, dst, cast)
    if isinstance(dst, Boolean):
        return truth(b, v, src)
    if isinstance(src, Boolean):
        if isinstance(dst, Integer):
            return b.zext(v, value_type(dst))
        if isinstance(dst, Float):
            return b.uitofp(v, value_type(dst))
        if isinstance(dst, Complex):
            return make_complex(b, b.uitofp(v, value_type(dst.underlying)),
                                float_const(dst.underlying, 0.0), dst)
    if isinstance(src, Integer):
        if isinstance(dst, Integer):
            if dst.bitwidth > src.bitwidth:
                return (b.sext if src.signed else b.zext)(v, value_type(dst))
            if dst.bitwidth < src.bitwidth:
                return b.trunc(v, value_type(dst))
            return v
        if isinstance(dst, Float):
            if dst.bitwidth == 16:
                return _int_to_half(b, v, src)
            return (b.sitofp if src.signed else b.uitofp)(v, value_type(dst))
        if isinstance(dst, Complex):
            re = cast(b, v, src, dst.underlying)
            return make_complex(b, re, float_const(dst.underlying, 0.0), dst)
    if isinstance(src, Float):
        if isinstance(dst, Float):
            if dst.bitwidth > src.bitwidth:
                return b.fpext(v, value_type(dst))
            return b.fptrunc(v, value_type(dst))
        if isinstance(dst, Integer):
            if src.bitwidth == 16:
                return _half_to_int(b, v, dst)
            return (b.fptosi if dst.signed else b.fptoui)(v, value_type(dst))
        if isinstance(dst, Complex):
            re = cast(b, v, src, dst.underlying)
            return make_complex(b, re, float_const(dst.underlying, 0.0), dst)
    if isinstance(src, Complex) and isinstance(dst, Complex):
        re, im = complex_parts(b, v)
        return make_complex(b, cast(b, re, src.underlying, dst.underlying),
                            cast(b, im, src.underlying, dst.underlying), dst)
    if isinstance(src, Tuple) and isinstance(dst, Tuple):
        out = ir.Constant(value_type(dst), ir.Undefined)
        for i, (s, d) in enumerate(zip(src.types, dst.types)):
            out = b.insert_value(out, cast(b, b.extract_value(v, i), s, d), i)
        return out
    if isinstance(src, Array) and isinstance(dst, Array):
        return v  # same representation; layout/readonly are static facts
    if isinstance(src, CPointer) and isinstance(dst, CPointer):
        return b.bitcast(v, value_type(dst))
    if isinstance(src, NoneType) and isinstance(dst, NoneType):
        return v
    if isinstance(src, (StringLiteral, BytesLiteral)) and isinstance(dst, (CharSeq, UnicodeCharSeq)):
        return char_seq_constant(src.value, dst)
    run = ext_casts.find(src, dst)  # an extension type's lower_cast
    if run is not None:
        return run(None, b, src, dst, v)
    raise TypeError(f"no conversion from {src} to {dst}")


# PTX inline-asm register constraint of an integer of each width
_INT_CONSTRAINT = {8: "c", 16: "h", 32: "r", 64: "l"}


def _half_to_int(b, v, dst):
    """float16 -> integer in one ``cvt.rni.{s,u}N.f16`` (round to nearest even, as
    numba-cuda converts float16 to integers)."""
    sign = "s" if dst.signed else "u"
    lty = value_type(dst)
    fnty = ir.FunctionType(lty, [ir.IntType(16)])
    asm = ir.InlineAsm(fnty, f"cvt.rni.{sign}{dst.bitwidth}.f16 $0, $1;", f"={_INT_CONSTRAINT[dst.bitwidth]},h")
    return b.call(asm, [b.bitcast(v, ir.IntType(16))])


def _int_to_half(b, v, src):
    """integer -> float16 in one ``cvt.rn.f16.{s,u}N`` (numba-cuda's conversion)."""
    sign = "s" if src.signed else "u"
    fnty = ir.FunctionType(ir.IntType(16), [v.type])
    asm = ir.InlineAsm(fnty, f"cvt.rn.f16.{sign}{src.bitwidth} $0, $1;", f"=h,{_INT_CONSTRAINT[src.bitwidth]}")
    return b.bitcast(b.call(asm, [v]), ir.HalfType())


def char_seq_constant(value, dst):
    """The ``[n x iK]`` constant of a str/bytes stored into an ``S<n>``/``U<n>``
    element: its bytes or code points, zero-padded or truncated to ``n`` (NumPy's)."""
    units = list(value) if isinstance(value, bytes) else (
        list(value.encode("ascii")) if isinstance(dst, CharSeq) else [ord(c) for c in value])
    units = (units + [0] * dst.count)[:dst.count]
    return ir.Constant(value_type(dst), units)


def truth(b, v, ty):
    """``bool(v)`` as an ``i1``."""
    if isinstance(ty, Boolean):
        return v
    if isinstance(ty, Integer):
        return b.icmp_unsigned("!=", v, ir.Constant(v.type, 0))
    if isinstance(ty, Float):
        return b.fcmp_unordered("!=", v, ir.Constant(v.type, 0.0))
    if isinstance(ty, BFloat16):
        return b.fcmp_unordered("!=", bf16_to_f32(b, v), ir.Constant(ir.FloatType(), 0.0))
    if isinstance(ty, Fp8):
        return fp8_truth(b, v, ty.fmt)
    if isinstance(ty, Complex):
        re, im = complex_parts(b, v)
        z = ir.Constant(re.type, 0.0)
        return b.or_(b.fcmp_unordered("!=", re, z), b.fcmp_unordered("!=", im, z))
    if isinstance(ty, NoneType):
        return ir.Constant(I1, 0)
    raise TypeError(f"no truth value for {ty}")
