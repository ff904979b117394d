"""bfloat16 conversions.  libNVVM's IR (LLVM 7) has no ``bfloat`` type, so a bfloat16
is its 16 bits (``i16``); to float32 is exact (the bits shifted left by 16); float32 to
bfloat16 rounds the float32 bits in integer arithmetic with any of the four IEEE modes
(``rn``/``rz``/``rd``/``ru``, NaN -> the canonical ``0x7fff``, as cuda_bf16.h); float64
goes through float32 rounded to odd (truncation with a sticky bit), so it is rounded once.
"""

from __future__ import annotations

from llvmlite import ir

from cudalite.core.types import BFloat16, Boolean, Float, Integer, float32

__all__ = ["bf16_to_f32", "f32_to_bf16", "f64_to_bf16", "int_to_bf16", "cast_bf16", "f32_to_int", "intrinsic"]

I16, I32, F32, F64 = ir.IntType(16), ir.IntType(32), ir.FloatType(), ir.DoubleType()


def intrinsic(b, name, ret, args):
    """Declare (once) and return the function ``name`` in the builder's module."""
    mod = b.block.function.module
    fn = mod.globals.get(name)
    if fn is None:
        fn = ir.Function(mod, ir.FunctionType(ret, args), name)
    return fn


def bf16_to_f32(b, v):
    return b.bitcast(b.shl(b.zext(v, I32), ir.Constant(I32, 16)), F32)


def f32_to_bf16(b, x, mode="rn"):
    u = b.bitcast(x, I32)
    hi = b.lshr(u, ir.Constant(I32, 16))
    if mode == "rn":
        odd = b.and_(hi, ir.Constant(I32, 1))
        r = b.lshr(b.add(b.add(u, ir.Constant(I32, 0x7FFF)), odd), ir.Constant(I32, 16))
    elif mode == "rz":
        r = hi
    else:
        inexact = b.icmp_unsigned("!=", b.and_(u, ir.Constant(I32, 0xFFFF)), ir.Constant(I32, 0))
        negative = b.icmp_signed("<", u, ir.Constant(I32, 0))
        away = b.and_(inexact, negative if mode == "rd" else b.not_(negative))
        r = b.add(hi, b.zext(away, I32))
    isnan = b.fcmp_unordered("uno", x, x)
    return b.select(isnan, ir.Constant(I16, 0x7FFF), b.trunc(r, I16))


def f64_to_bf16(b, d, mode="rn"):
    f = b.call(intrinsic(b, "llvm.nvvm.d2f.rz", F32, [F64]), [d])
    inexact = b.fcmp_ordered("!=", b.fpext(f, F64), d)
    odd = b.bitcast(b.or_(b.bitcast(f, I32), b.zext(inexact, I32)), F32)  # round to odd
    return f32_to_bf16(b, odd, mode)


def int_to_bf16(b, v, src: Integer, mode="rn"):
    conv = b.sitofp if src.signed else b.uitofp
    if src.bitwidth <= 16:
        return f32_to_bf16(b, conv(v, F32), mode)
    return f64_to_bf16(b, conv(v, F64), mode)


_MODES = {"rn": "rn", "rz": "rz", "rd": "rm", "ru": "rp"}  # cuda_bf16.h's suffix -> NVVM's


def f32_to_int(b, x, bits, signed, mode):
    """A float32 -> an integer of ``bits`` bits, rounded by ``mode`` (``rn``/``rz``/``rd``/
    ``ru``) and saturated to its range, NaN -> 0 (as PTX ``cvt``; a 64-bit result of NaN is
    ``1 << 63``, PTX's rule): NVVM's ``f2i`` family, then a clamp for 8/16-bit results."""
    kind = ("f2i" if signed else "f2ui") if bits <= 32 else ("f2ll" if signed else "f2ull")
    ity = ir.IntType(64 if bits == 64 else 32)
    r = b.call(intrinsic(b, f"llvm.nvvm.{kind}.{_MODES[mode]}", ity, [F32]), [x])
    if bits < 32:
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        if signed:
            r = b.select(b.icmp_signed("<", r, ir.Constant(ity, lo)), ir.Constant(ity, lo), r)
            r = b.select(b.icmp_signed(">", r, ir.Constant(ity, hi)), ir.Constant(ity, hi), r)
        else:
            r = b.select(b.icmp_unsigned(">", r, ir.Constant(ity, hi)), ir.Constant(ity, hi), r)
        r = b.trunc(r, ir.IntType(bits))
    return r


def cast_bf16(b, v, src, dst, cast):
    """``v`` of type ``src`` -> ``dst``, one of them bfloat16 (``cast``: the general
    conversion, for the float32 leg)."""
    if isinstance(src, BFloat16) and isinstance(dst, BFloat16):
        return v
    if isinstance(src, BFloat16):
        return cast(b, bf16_to_f32(b, v), float32, dst)
    if isinstance(src, Boolean):
        return f32_to_bf16(b, b.uitofp(v, F32))
    if isinstance(src, Integer):
        return int_to_bf16(b, v, src)
    if isinstance(src, Float) and src.bitwidth == 64:
        return f64_to_bf16(b, v)
    if isinstance(src, Float):
        return f32_to_bf16(b, cast(b, v, src, float32))
    raise TypeError(f"no conversion from {src} to {dst}")

