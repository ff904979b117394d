"""Lowering of ``cuda.fp8``'s conversion functions (cuda_fp8.h's ``__nv_cvt_*``) and of
``bfloat16_raw``'s ``.x``.  The value conversions themselves are in :mod:`._fp8conv`;
here the checked modes (:class:`~cudalite.core.typing.rules.fp8.Fp8Cvt`) pick one.
The ``x2`` forms convert the vector's ``.x`` into the low byte and ``.y`` into the high
byte; a ``bfloat16_raw`` is its 16 bits."""

from __future__ import annotations

from llvmlite import ir

from cudalite.core import device_api as api
from cudalite.core.types import BFloat16Raw

from ._bf16conv import bf16_to_f32
from ._fp8conv import (
    decode_f32, encode_e8m0_f32, encode_e8m0_f64, encode_f32, encode_f32x2, encode_f64, pair_bytes,
)
from ._registry import lowerings

__all__ = []


def _one(b, x, source, cvt):
    """One float32/float64 value -> the byte the call asks for."""
    if cvt.fmt == "e8m0":
        enc = encode_e8m0_f64 if source == "double" else encode_e8m0_f32
        return enc(b, x, cvt.saturate, cvt.round_up)
    if source == "double":
        return encode_f64(b, x, cvt.fmt, cvt.saturate)
    return encode_f32(b, x, cvt.fmt, cvt.saturate)


@lowerings.call(*(getattr(api.fp8, n) for n in api.FP8_OPS))
def _fp8_cvt(lc, node, args, info):
    b = lc.builder
    cvt = info.payload
    x = args[0]
    if cvt.fmt == "bf16raw":  # cvt_e8m0_to_bf16raw: the e8m0 value, exact in bfloat16
        return b.trunc(b.lshr(b.bitcast(decode_f32(b, x, "e8m0"), ir.IntType(32)), ir.Constant(ir.IntType(32), 16)),
                       ir.IntType(16))
    if cvt.source == "bfloat16raw":
        return _one(b, bf16_to_f32(b, x), "float", cvt)
    if cvt.source in ("float2", "double2"):
        lo, hi = b.extract_value(x, 0), b.extract_value(x, 1)
        if cvt.source == "float2" and cvt.fmt != "e8m0":
            return encode_f32x2(b, lo, hi, cvt.fmt, cvt.saturate)
        one = "double" if cvt.source == "double2" else "float"
        return pair_bytes(b, _one(b, lo, one, cvt), _one(b, hi, one, cvt))
    return _one(b, x, cvt.source, cvt)


@lowerings.attr(BFloat16Raw, "x")
def _raw_bits(lc, v, info):
    return v
