"""Numba's scalar arithmetic typing, as pure functions of types.

Rules (numba's, with ``intp`` = int64):

* ``int op int`` for ``+ - * // % ** << >> & | ^``: an integer of
  ``max(64, bitwidths)`` bits, signed if either operand is signed
  (``int32 + int32 -> int64``, ``uint8 + uint8 -> uint64``,
  ``int64 + uint64 -> int64``); booleans count as int8 (``True + True -> int64``).
* ``/`` on two integers gives float64.
* mixed kinds follow NumPy promotion (``int16 + float32 -> float32``,
  ``int64 + float32 -> float64``, ``float32 + complex64 -> complex64``); an
  integer literal is int64, so ``float32 * 2 -> float64`` as in numba.
* ``float16 op float16 -> float16``.
* ``& | ^`` on two booleans give a boolean; comparisons give a boolean, comparing
  integers exactly in 64 bits except a uint64 against a signed integer, compared as
  float64 (numba's choice: no integer type holds both).
* ``<< >>``: the result (and the shift's signedness) follows the left operand
  only: ``uint32 >> int64 -> uint64``.
* unary ``- + ~`` on an integer give ``max(64, bits)`` bits, signed as the operand,
  but are computed in the operand's own width and then widened (numba's
  ``int_negate_impl``): ``-int32(-2**31) == -2**31``, ``-uint32(1) == 2**32 - 1``
  (as uint64), ``~uint8(0) == 255``; ``-True == -1`` (int64); ``~bool -> bool``
  (NumPy's ``invert``, as in numba).
"""

from __future__ import annotations

from ..._compat import numeric_kind
from .datetimes import (
    datetime_binop_signature, datetime_compare_signature, datetime_unary_signature, is_datetime_like,
)
from ...types import (
    Boolean, Complex, Float, Integer, Signature, boolean, complex64, complex128, float64, int64,
)
from .bf16arith import bf16_binop_signature, bf16_compare_signature, bf16_unary_signature, is_bf16_pair

__all__ = [
    "promote", "int_result", "binop_signature", "unary_signature", "compare_signature",
    "ARITH_OPS", "COMPARE_OPS",
]

ARITH_OPS = ("+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^")
COMPARE_OPS = ("<", "<=", ">", ">=", "==", "!=")


def int_result(a, b=None) -> Integer:
    """numba's ``choose_result_int``: at least 64 bits, signed if any is signed."""
    ops = [a] if b is None else [a, b]
    ints = [Integer(8, True) if isinstance(t, Boolean) else t for t in ops]
    bits = max([64] + [t.bitwidth for t in ints])
    return Integer(bits, any(t.signed for t in ints))


def _float_bits_for_int(t) -> int:
    """Bits of the smallest float that holds every value of integer ``t`` (NumPy's rule)."""
    return {8: 16, 16: 32}.get(t.bitwidth, 64)


def _promote_ints(a, b):
    if a.signed == b.signed:
        return a if a.bitwidth >= b.bitwidth else b
    s, u = (a, b) if a.signed else (b, a)
    if s.bitwidth > u.bitwidth:
        return s
    if u.bitwidth < 64:
        return Integer(2 * u.bitwidth, True)
    return float64  # int64 with uint64: no integer holds both


def promote(a, b):
    """NumPy's ``promote_types`` for two number types, without importing NumPy
    (checked against NumPy for every pair in the tests)."""
    if a == b:
        return a
    ka, kb = numeric_kind(a), numeric_kind(b)
    if ka == "b":
        return b
    if kb == "b":
        return a
    if ka == "i" and kb == "i":
        return _promote_ints(a, b)

    def float_bits(t, k):
        if k == "i":
            return _float_bits_for_int(t)
        if k == "f":
            return t.bitwidth
        return t.underlying.bitwidth

    bits = max(float_bits(a, ka), float_bits(b, kb))
    if "c" in (ka, kb):
        return complex64 if bits <= 32 else complex128
    return Float(bits)


def _is_num(t):
    return isinstance(t, (Boolean, Integer, Float, Complex))


def binop_signature(op: str, a, b) -> Signature | None:
    """Operand and result types of ``a op b`` for numbers, or None."""
    if is_datetime_like(a) or is_datetime_like(b):
        return datetime_binop_signature(op, a, b)
    if is_bf16_pair(a, b):
        return bf16_binop_signature(op, a, b)
    if not (_is_num(a) and _is_num(b)):
        return None
    ka, kb = numeric_kind(a), numeric_kind(b)
    both_int = ka in "bi" and kb in "bi"
    if op in ("&", "|", "^"):
        if ka == "b" and kb == "b":
            return Signature(boolean, (boolean, boolean))
        if not both_int:
            return None
        r = int_result(a, b)
        return Signature(r, (r, r))
    if op in ("<<", ">>"):
        if not both_int:
            return None
        # only the left operand's signedness matters (numba): uint32 >> 1 is a
        # logical shift giving uint64, although the literal 1 is int64
        r = int_result(a)
        return Signature(r, (r, r))
    if op == "/":
        if both_int:
            return Signature(float64, (float64, float64))
        r = promote(a, b)
        return Signature(r, (r, r))
    if op == "**":
        if both_int:
            r = int_result(a, b)
            return Signature(r, (r, r))
        if kb in "bi" and ka == "f":
            return Signature(a, (a, int64))
        r = promote(a, b) if not both_int else None
        if numeric_kind(r) in "bi":
            r = float64
        return Signature(r, (r, r))
    if op in ("+", "-", "*", "//", "%"):
        if both_int:
            r = int_result(a, b)
            return Signature(r, (r, r))
        r = promote(a, b)
        if op in ("//", "%") and isinstance(r, Complex):
            return None
        return Signature(r, (r, r))
    return None


def unary_signature(op: str, a) -> Signature | None:
    if is_bf16_pair(a):
        return bf16_unary_signature(op, a)
    if op == "not":
        return Signature(boolean, (a,))
    if is_datetime_like(a):
        return datetime_unary_signature(op, a)
    if not _is_num(a):
        return None
    k = numeric_kind(a)
    if op == "~":
        if k not in "bi":
            return None
        if k == "b":  # numba follows NumPy: ~True is False (np.invert), not -2
            return Signature(boolean, (boolean,))
        return Signature(int_result(a), (a,))  # inverted in a's width, then widened
    if op in ("-", "+"):
        if k == "b":  # numba: (bool) -> intp, widened first
            return Signature(int64, (int64,))
        if k == "i":  # negated in a's width, then widened (sign- or zero-extended)
            return Signature(int_result(a), (a,))
        return Signature(a, (a,))
    return None


def compare_signature(op: str, a, b) -> Signature | None:
    """Comparison of two numbers: both converted to a common type; result boolean."""
    if is_datetime_like(a) or is_datetime_like(b):
        return datetime_compare_signature(op, a, b)
    if is_bf16_pair(a, b):
        return bf16_compare_signature(op, a, b)
    if not (_is_num(a) and _is_num(b)):
        return None
    ka, kb = numeric_kind(a), numeric_kind(b)
    if ka == "b" and kb == "b":
        common = boolean
    elif ka in "bi" and kb in "bi":
        # NumPy's common type, exact for every pair except a uint64 with a signed
        # integer: numba compares those as float64 (``uint64(2**63) > -1`` is True, a
        # signed 64-bit compare would say False); a boolean joins the other side's
        # signedness (``uint64 > True`` is unsigned)
        common = promote(a, b)
        if isinstance(common, Integer):
            common = int_result(common)
    else:
        common = promote(a, b)
    if isinstance(common, Complex) and op not in ("==", "!="):
        return None
    return Signature(boolean, (common, common))
