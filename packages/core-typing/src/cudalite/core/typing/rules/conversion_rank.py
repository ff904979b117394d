"""How good an implicit conversion is, for choosing among a device function's eager
signatures (numba's conversion kinds: exact < promote < safe < unsafe).

Numbers, as numba's type-conversion rules:

* *promote*: to a wider type of the same kind and signedness (int32 -> int64,
  uint8 -> uint16, float32 -> float64, complex64 -> complex128);
* *safe*: no value is lost across kinds or signedness -- bool to any number, an
  unsigned integer to a wider signed one, an integer of at most 16 bits to float32
  and any integer to float64, a float to a complex of at least its precision;
* *unsafe*: everything else that converts (narrowing, float to integer, signed to
  unsigned, int32/int64 to float32, float64 to complex64).

Other types: equal is exact, any other conversion ``can_convert`` allows (an array's
layout relaxed, a tuple item by item) is a promotion.
"""

from __future__ import annotations

from ..._compat import is_number, numeric_kind
from ...types import Complex, Float, Integer, Tuple
from .casts import can_convert

__all__ = ["EXACT", "PROMOTE", "SAFE", "UNSAFE", "conversion_rank", "signature_rank"]

EXACT, PROMOTE, SAFE, UNSAFE = 0, 1, 2, 3


def _bits(t):
    return t.bitwidth if isinstance(t, (Integer, Float)) else t.bitwidth // 2 if isinstance(t, Complex) else 0


def _number_rank(src, dst) -> int:
    ks, kd = numeric_kind(src), numeric_kind(dst)
    if ks == "b":
        return SAFE
    if ks == kd:
        if kd == "i" and src.signed != dst.signed:
            return SAFE if (not src.signed and dst.signed and dst.bitwidth > src.bitwidth) else UNSAFE
        return PROMOTE if _bits(dst) > _bits(src) else UNSAFE
    if ks == "i" and kd == "f":
        return SAFE if (dst.bitwidth == 64 or src.bitwidth <= 16) else UNSAFE
    if ks == "i" and kd == "c":
        return SAFE if (_bits(dst) == 64 or src.bitwidth <= 16) else UNSAFE
    if ks == "f" and kd == "c":
        return SAFE if _bits(dst) >= src.bitwidth else UNSAFE
    return UNSAFE  # float -> int, a number -> bool


def conversion_rank(src, dst):
    """EXACT, PROMOTE, SAFE or UNSAFE for converting ``src`` to ``dst``; None when
    there is no implicit conversion."""
    if src == dst:
        return EXACT
    if not can_convert(src, dst):
        return None
    if is_number(src) and is_number(dst):
        return _number_rank(src, dst)
    if isinstance(src, Tuple) and isinstance(dst, Tuple):
        return max((conversion_rank(a, b) for a, b in zip(src, dst)), default=EXACT)
    return PROMOTE


def signature_rank(args, params):
    """``(unsafe, safe, promote)`` conversion counts of ``args`` to ``params`` (lower
    is better), or None when an argument does not convert."""
    if len(args) != len(params):
        return None
    counts = [0, 0, 0, 0]
    for a, p in zip(args, params):
        r = conversion_rank(a, p)
        if r is None:
            return None
        counts[r] += 1
    return counts[UNSAFE], counts[SAFE], counts[PROMOTE]
