"""Typing of Python's operators on bfloat16 values (``a + b``, ``-a``, ``a < b``).

The common type of a bfloat16 and another number (ml_dtypes' promotion, with numba's
integer literals treated as NumPy's weak scalars): bfloat16 with bfloat16, a boolean
or an integer is bfloat16; with float16 it is float32; with float32, float64 or a
complex type it is that type.  bfloat16 arithmetic computes in float32 and rounds
once to bfloat16; ``**`` with an integer exponent and ``//``, ``%`` behave as float32's.
"""

from __future__ import annotations

from ..._compat import numeric_kind
from ...types import BFloat16, Signature, bfloat16, boolean, float32

__all__ = ["is_bf16_pair", "bf16_common", "bf16_binop_signature", "bf16_unary_signature",
           "bf16_compare_signature"]

_ARITH = ("+", "-", "*", "/", "//", "%", "**")


def is_bf16_pair(a, b=None) -> bool:
    """Whether an operator on ``a`` (and ``b``) involves a bfloat16."""
    return isinstance(a, BFloat16) or isinstance(b, BFloat16)


def bf16_common(a, b):
    """The common type of ``a`` and ``b``, one of them bfloat16 (None: no common type)."""
    other = b if isinstance(a, BFloat16) else a
    if isinstance(other, BFloat16):
        return bfloat16
    k = numeric_kind(other)
    if k in ("b", "i"):
        return bfloat16
    if k == "f":
        return float32 if other.bitwidth <= 32 else other
    if k == "c":
        return other
    return None


def bf16_binop_signature(op, a, b):
    if op not in _ARITH:
        return None
    r = bf16_common(a, b)
    return None if r is None else Signature(r, (r, r))


def bf16_unary_signature(op, a):
    if op == "not":
        return Signature(boolean, (a,))
    return Signature(a, (a,)) if op in ("-", "+") else None


def bf16_compare_signature(op, a, b):
    r = bf16_common(a, b)
    if r is None or (numeric_kind(r) == "c" and op not in ("==", "!=")):
        return None
    return Signature(boolean, (r, r))
