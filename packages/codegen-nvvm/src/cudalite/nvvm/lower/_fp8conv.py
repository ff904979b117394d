"""fp8 conversions (``fp8_e4m3``, ``fp8_e5m2``, ``fp8_e8m0``), bit-identical to CUDA's
``cuda_fp8.h``.  An fp8 value is its byte (``i8``: libNVVM's IR has no 8-bit floats).

To e4m3/e5m2: round to nearest even, computed on the source's bits in integers (so no
flush-to-zero can touch it): the normal range rounds the re-biased bits at the
mantissa's width (a carry moves into the exponent, as it should); the subnormal
range shifts the significand by its distance below the smallest normal and rounds
the shifted-out bits.  Past the largest finite value: the largest finite value
(``satfinite``) or the overflow code (e4m3 NaN ``0x7f``, e5m2 infinity ``0x7c``).  NaN
from a float32 is ``0x7f``; from a float64 it keeps the sign (and e5m2 the top two
payload bits), as ``__nv_cvt_double_to_fp8``.  On sm_89+ a saturating float32
conversion is PTX's ``cvt.rn.satfinite.e4m3x2.f32`` (one instruction, same result).
A float64 is first rounded to float32 *to odd* (truncated, the last bit set if
inexact), which keeps one rounding: float32's 24 bits are more than 2 past fp8's 4.

To e8m0: a power of two, the magnitude's exponent, rounded up (``cudaRoundPosInf``:
by one when the magnitude is not a power of two and above ``2**-127``) or truncated
(``cudaRoundZero``); NaN -> 255; past ``2**127``: 254 (satfinite) or 255.  An integer
``v`` goes straight to ``127 + ceil(log2(|v|))`` (0 -> code 0), as CUDA's constructors.

From fp8: e5m2 is the top byte of a float16; e4m3 is rebuilt in integers (subnormals
through an exact multiply), or PTX's ``cvt.rn.f16x2.e4m3x2`` on sm_89+; e8m0 is an
exponent field (code 0 is ``2**-127``).  Conversions to integers truncate and saturate
(NaN -> 0) as CUDA's conversion operators; ``bool`` is "not zero" (e8m0: always true).

The target's compute capability is recorded on the llvmlite module
(:func:`set_target_cc`) because the general ``cast`` API takes only a builder.
"""

from __future__ import annotations

from llvmlite import ir

from cudalite.core.types import BFloat16, Boolean, Float, Fp8, Integer, float32

from ._bf16conv import F32, F64, I16, I32, bf16_to_f32, f32_to_bf16, f32_to_int, intrinsic

__all__ = ["set_target_cc", "cast_fp8", "encode_f32", "encode_f32x2", "encode_f64", "encode_e8m0_f32",
           "encode_e8m0_f64", "encode_e8m0_int", "decode_f32", "decode_f64", "pair_bytes", "fp8_truth",
           "round_f64_to_odd_f32"]

I8, I64, F16 = ir.IntType(8), ir.IntType(64), ir.HalfType()
_CC_ATTR = "cudalite_target_cc"
# format -> (mantissa bits, bias, largest finite code, overflow code without saturation)
_FORMATS = {"e4m3": (3, 7, 0x7E, 0x7F), "e5m2": (2, 15, 0x7B, 0x7C)}
_SOURCES = {32: (23, 127, I32, F32), 64: (52, 1023, I64, F64)}  # width -> (mantissa bits, bias, int, float)


def set_target_cc(module: ir.Module, cc) -> None:
    """Record the compute capability ``module`` is lowered for (read by the conversions)."""
    setattr(module, _CC_ATTR, tuple(cc))


def _has_fp8_cvt(b) -> bool:
    """Whether the target has PTX's fp8 ``cvt`` (sm_89+)."""
    return getattr(b.module, _CC_ATTR, (0, 0)) >= (8, 9)


def _c(ty, v):
    return ir.Constant(ty, v)


def _asm(b, ret, text, constraint, args):
    return b.asm(ir.FunctionType(ret, [a.type for a in args]), text, constraint, list(args), False)


def _rne_shift(b, v, sh, ity):
    """``v >> sh`` rounded to nearest even (``sh`` >= 1, an ``ity`` value)."""
    one = _c(ity, 1)
    q = b.lshr(v, sh)
    rem = b.and_(v, b.sub(b.shl(one, sh), one))
    half = b.shl(one, b.sub(sh, one))
    up = b.or_(b.icmp_unsigned(">", rem, half),
               b.and_(b.icmp_unsigned("==", rem, half), b.trunc(q, ir.IntType(1))))
    return b.add(q, b.zext(up, ity))


def _encode_bits(b, bits, width, fmt, sat):
    """The fp8 magnitude code (an ``i<width>``) of the float whose bits are ``bits``,
    without its sign or NaN handling."""
    sm, sb, ity, _fty = _SOURCES[width]
    m, bias, maxcode, ovf = _FORMATS[fmt]
    mag = b.and_(bits, _c(ity, (1 << (width - 1)) - 1))
    # normal range: re-bias and round away the extra mantissa bits
    sh = sm - m
    rebiased = b.sub(mag, _c(ity, (sb - bias) << sm))
    normal = b.lshr(b.add(b.add(rebiased, _c(ity, (1 << (sh - 1)) - 1)),
                          b.and_(b.lshr(rebiased, _c(ity, sh)), _c(ity, 1))), _c(ity, sh))
    # subnormal range: the significand shifted by its distance below the smallest normal
    exp = b.lshr(mag, _c(ity, sm))
    sig = b.or_(b.and_(mag, _c(ity, (1 << sm) - 1)), _c(ity, 1 << sm))
    dist = b.sub(_c(ity, sm + sb + 1 - bias - m), exp)
    dist = b.select(b.icmp_unsigned("<", dist, _c(ity, width - 1)), dist, _c(ity, width - 1))
    sub = _rne_shift(b, sig, dist, ity)
    code = b.select(b.icmp_unsigned("<", mag, _c(ity, (sb + 1 - bias) << sm)), sub, normal)
    over = b.icmp_unsigned(">", code, _c(ity, maxcode))
    return b.trunc(b.select(over, _c(ity, maxcode if sat else ovf), code), I8)


def _sign8(b, bits, width):
    return b.and_(b.trunc(b.lshr(bits, _c(bits.type, width - 8)), I8), _c(I8, 0x80))


def _isnan_bits(b, bits, width):
    sm, _sb, ity, _fty = _SOURCES[width]
    inf = ((1 << (width - 1 - sm)) - 1) << sm
    return b.icmp_unsigned(">", b.and_(bits, _c(ity, (1 << (width - 1)) - 1)), _c(ity, inf))


def encode_f32(b, x, fmt, sat=True):
    """A float32 -> e4m3/e5m2 byte (``sat``: saturate to finite)."""
    if sat and _has_fp8_cvt(b):
        out = _asm(b, I16, f"cvt.rn.satfinite.{fmt}x2.f32 $0, $1, $2;", "=h,f,f", [_c(F32, 0.0), x])
        return b.trunc(out, I8)
    bits = b.bitcast(x, I32)
    code = b.or_(_sign8(b, bits, 32), _encode_bits(b, bits, 32, fmt, sat))
    return b.select(_isnan_bits(b, bits, 32), _c(I8, 0x7F), code)


def encode_f32x2(b, lo, hi, fmt, sat=True):
    """Two float32 -> an ``i16`` of two bytes (``lo`` in the low byte)."""
    if sat and _has_fp8_cvt(b):
        return _asm(b, I16, f"cvt.rn.satfinite.{fmt}x2.f32 $0, $1, $2;", "=h,f,f", [hi, lo])
    return pair_bytes(b, encode_f32(b, lo, fmt, sat), encode_f32(b, hi, fmt, sat))


def pair_bytes(b, lo, hi):
    """Two bytes -> an ``i16`` (``lo`` in the low byte)."""
    return b.or_(b.zext(lo, I16), b.shl(b.zext(hi, I16), _c(I16, 8)))


def round_f64_to_odd_f32(b, d):
    """float64 -> float32 rounded to odd: truncated, its last bit set when inexact."""
    f = b.call(intrinsic(b, "llvm.nvvm.d2f.rz", F32, [F64]), [d])
    inexact = b.fcmp_ordered("!=", b.fpext(f, F64), d)
    return b.bitcast(b.or_(b.bitcast(f, I32), b.zext(inexact, I32)), F32)


def encode_f64(b, d, fmt, sat=True):
    """A float64 -> e4m3/e5m2 byte: one rounding (through float32 rounded to odd)."""
    bits = b.bitcast(d, I64)
    code = encode_f32(b, round_f64_to_odd_f32(b, d), fmt, sat)
    sign = _sign8(b, bits, 64)
    if fmt == "e4m3":
        nan = b.or_(sign, _c(I8, 0x7F))
    else:  # the top two payload bits, as __nv_cvt_double_to_fp8
        top = b.trunc(b.and_(b.lshr(bits, _c(I64, 50)), _c(I64, 3)), I8)
        nan = b.or_(sign, b.or_(_c(I8, 0x7E), top))
    return b.select(_isnan_bits(b, bits, 64), nan, code)


def encode_e8m0_f32(b, x, sat=True, round_up=True):
    """A float32 -> e8m0 byte."""
    mag = b.and_(b.bitcast(x, I32), _c(I32, 0x7FFFFFFF))
    code = b.lshr(mag, _c(I32, 23))
    if round_up:
        inexact = b.icmp_unsigned("!=", b.and_(mag, _c(I32, 0x7FFFFF)), _c(I32, 0))
        above = b.icmp_unsigned(">", mag, _c(I32, 0x00400000))  # above 2**-127
        finite = b.icmp_unsigned("<", mag, _c(I32, 0x7F800000))
        code = b.add(code, b.zext(b.and_(inexact, b.and_(above, finite)), I32))
    if sat:
        capped = b.and_(b.icmp_unsigned("<=", mag, _c(I32, 0x7F800000)), b.icmp_unsigned(">=", code, _c(I32, 255)))
        code = b.select(capped, _c(I32, 254), code)
    return b.trunc(code, I8)


def encode_e8m0_f64(b, d, sat=True, round_up=True):
    return encode_e8m0_f32(b, round_f64_to_odd_f32(b, d), sat, round_up)


def encode_e8m0_int(b, v, src: Integer):
    """An integer -> e8m0: ``127 + ceil(log2 |v|)``, 0 -> code 0 (CUDA's constructors)."""
    w = b.sext(v, I64) if src.signed and src.bitwidth < 64 else (b.zext(v, I64) if src.bitwidth < 64 else v)
    mag = b.select(b.icmp_signed("<", w, _c(I64, 0)), b.neg(w), w) if src.signed else w
    lz = b.call(intrinsic(b, "llvm.ctlz.i64", I64, [I64, ir.IntType(1)]),
                [b.sub(mag, _c(I64, 1)), _c(ir.IntType(1), 0)])
    code = b.trunc(b.sub(_c(I64, 127 + 64), lz), I8)
    return b.select(b.icmp_unsigned("==", mag, _c(I64, 0)), _c(I8, 0), code)


def decode_f32(b, v, fmt):
    """An fp8 byte -> float32 (exact)."""
    if fmt == "e5m2":  # the top byte of a float16
        return b.fpext(b.bitcast(b.shl(b.zext(v, I16), _c(I16, 8)), F16), F32)
    if fmt == "e8m0":
        code = b.zext(v, I32)
        bits = b.select(b.icmp_unsigned("==", code, _c(I32, 0)), _c(I32, 0x00400000), b.shl(code, _c(I32, 23)))
        bits = b.select(b.icmp_unsigned("==", code, _c(I32, 255)), _c(I32, 0x7FFF0000), bits)
        return b.bitcast(bits, F32)
    if _has_fp8_cvt(b):
        halves = _asm(b, I32, "cvt.rn.f16x2.e4m3x2 $0, $1;", "=r,h", [b.zext(v, I16)])
        return b.fpext(b.bitcast(b.trunc(halves, I16), F16), F32)
    code = b.zext(v, I32)
    mag = b.and_(code, _c(I32, 0x7F))
    normal = b.bitcast(b.add(b.shl(mag, _c(I32, 20)), _c(I32, 120 << 23)), F32)
    sub = b.fmul(b.uitofp(mag, F32), _c(F32, 2.0 ** -9))  # 0, or 2**-9 .. 7 * 2**-9: exact, normal
    val = b.select(b.icmp_unsigned("<", mag, _c(I32, 8)), sub, normal)
    signed = b.bitcast(b.or_(b.bitcast(val, I32), b.shl(b.and_(code, _c(I32, 0x80)), _c(I32, 24))), F32)
    return b.select(b.icmp_unsigned("==", mag, _c(I32, 0x7F)), _c(F32, float("nan")), signed)


def decode_f64(b, v, fmt):
    """An fp8 byte -> float64 (exact; e8m0's ``2**-127`` built as a double, so no flush)."""
    if fmt != "e8m0":
        return b.fpext(decode_f32(b, v, fmt), F64)
    code = b.zext(v, I64)
    bits = b.shl(b.add(code, _c(I64, 1023 - 127)), _c(I64, 52))
    bits = b.select(b.icmp_unsigned("==", code, _c(I64, 255)), _c(I64, 0x7FF8000000000000), bits)
    return b.bitcast(bits, F64)


def fp8_truth(b, v, fmt):
    """``bool(v)``: not zero (NaN is true); an e8m0 value is never zero."""
    if fmt == "e8m0":
        return _c(ir.IntType(1), 1)
    return b.icmp_unsigned("!=", b.and_(v, _c(I8, 0x7F)), _c(I8, 0))


def _encode_from(b, v, src, fmt, cast):
    """A value of a real type ``src`` -> the fp8 byte of format ``fmt`` (constructor rules)."""
    if isinstance(src, Fp8):
        v, src = decode_f32(b, v, src.fmt), float32
    if isinstance(src, BFloat16):
        v, src = bf16_to_f32(b, v), float32
    if isinstance(src, Boolean):
        v, src = b.uitofp(v, F32), float32
    if fmt == "e8m0":
        if isinstance(src, Integer):
            return encode_e8m0_int(b, v, src)
        if src.bitwidth == 64:
            return encode_e8m0_f64(b, v)
        return encode_e8m0_f32(b, cast(b, v, src, float32))
    if isinstance(src, Integer):  # through float32, as CUDA's constructors
        return encode_f32(b, cast(b, v, src, float32), fmt)
    if src.bitwidth == 64:
        return encode_f64(b, v, fmt)
    return encode_f32(b, cast(b, v, src, float32), fmt)


def cast_fp8(b, v, src, dst, cast):
    """``v`` of type ``src`` -> ``dst``, one of them fp8 (``cast``: the general conversion)."""
    if src == dst:
        return v
    if isinstance(dst, Fp8):
        return _encode_from(b, v, src, dst.fmt, cast)
    fmt = src.fmt
    if isinstance(dst, Boolean):
        return fp8_truth(b, v, fmt)
    if isinstance(dst, Float) and dst.bitwidth == 64:
        return decode_f64(b, v, fmt)
    f = decode_f32(b, v, fmt)
    if isinstance(dst, BFloat16):
        return f32_to_bf16(b, f, "rz")
    if isinstance(dst, Integer):
        return f32_to_int(b, f, dst.bitwidth, dst.signed, "rz")
    if isinstance(dst, Float):
        return cast(b, f, float32, dst)
    raise TypeError(f"no conversion from {src} to {dst}")
