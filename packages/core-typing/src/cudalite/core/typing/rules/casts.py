"""Conversions and unification: which implicit conversions exist, and the common
type of two values (numba's ``unify``)."""

from __future__ import annotations

from ..._compat import is_number, numeric_kind
from ...types import (
    Array, BFloat16, BytesLiteral, CharSeq, CPointer, Float, Fp8, NoneType, StringLiteral, Tuple, UnicodeCharSeq,
)
from .arithmetic import promote
from .bf16arith import bf16_common
from .fp8conv import fp8_explicit

__all__ = ["unify", "can_convert", "explicit_conversion", "needs_cast"]


def unify(a, b):
    """The common type of ``a`` and ``b`` (variables assigned twice), or None."""
    if a == b:
        return a
    if isinstance(a, BFloat16) or isinstance(b, BFloat16):
        return bf16_common(a, b)
    if is_number(a) and is_number(b):
        ka, kb = numeric_kind(a), numeric_kind(b)
        if {ka, kb} == {"b", "i"}:
            return b if ka == "b" else a
        return promote(a, b)
    if isinstance(a, Tuple) and isinstance(b, Tuple) and len(a) == len(b):
        items = [unify(x, y) for x, y in zip(a, b)]
        return None if None in items else Tuple(items)
    if isinstance(a, Array) and isinstance(b, Array):
        if a.dtype == b.dtype and a.ndim == b.ndim:
            return a.copy(layout="A" if a.layout != b.layout else a.layout,
                          readonly=a.readonly or b.readonly)
    return None


def can_convert(src, dst) -> bool:
    """Implicit conversion for assignments, stores, arguments and returns."""
    if src == dst:
        return True
    if is_number(src) and is_number(dst):
        return not (numeric_kind(src) == "c" and numeric_kind(dst) != "c")
    if isinstance(src, BFloat16) or isinstance(dst, BFloat16):  # to/from real numbers, through float32
        other = dst if isinstance(src, BFloat16) else src
        return isinstance(other, BFloat16) or numeric_kind(other) in ("b", "i", "f")
    if isinstance(src, Tuple) and isinstance(dst, Tuple):
        return len(src) == len(dst) and all(can_convert(x, y) for x, y in zip(src, dst))
    if isinstance(src, Array) and isinstance(dst, Array):
        return (src.dtype == dst.dtype and src.ndim == dst.ndim
                and (dst.layout == "A" or src.layout == dst.layout)
                and (dst.readonly or not src.readonly))
    if isinstance(src, CPointer) and isinstance(dst, CPointer):  # any pointer converts to a voidptr
        return src.dtype == dst.dtype or (isinstance(dst.dtype, NoneType) and src.addrspace == dst.addrspace)
    if isinstance(src, NoneType) and isinstance(dst, NoneType):
        return True
    return _string_store(src, dst) or _extension_converts(src, dst)


def _extension_converts(src, dst) -> bool:
    """An extension type's own rule (numba's ``Type.can_convert_to(typingctx, other)`` /
    ``can_convert_from``, lowered by its ``lower_cast``); cudalite's types have none."""
    for t, other, hook in ((src, dst, "can_convert_to"), (dst, src, "can_convert_from")):
        fn = getattr(t, hook, None)
        if fn is not None and fn(None, other):
            return True
    return False


def _string_store(src, dst) -> bool:
    """A constant ``str`` into a ``U<n>`` (or, when ASCII, an ``S<n>``) element, a
    constant ``bytes`` into an ``S<n>`` one (zero-padded or truncated, as NumPy)."""
    if isinstance(src, StringLiteral):
        return isinstance(dst, UnicodeCharSeq) or (isinstance(dst, CharSeq) and src.value.isascii())
    return isinstance(src, BytesLiteral) and isinstance(dst, CharSeq)


def explicit_conversion(src, dst) -> bool:
    """Whether ``dst(x)`` (``float32(x)``, ``float("nan")``...) accepts an ``x`` of type
    ``src``: the implicit conversions, any number to any number, and a string constant
    that ``float()`` parses to a float type (folded at compile time); fp8 to and from
    real numbers (:mod:`.fp8conv`)."""
    if can_convert(src, dst) or (is_number(src) and is_number(dst)):
        return True
    if isinstance(src, StringLiteral) and isinstance(dst, (Float, BFloat16, Fp8)):  # fp8_e4m3("nan") too
        try:
            float(src.value)
        except ValueError:
            return False
        return True
    if isinstance(src, Fp8) or isinstance(dst, Fp8):
        return fp8_explicit(src, dst)
    return False


def needs_cast(src, dst) -> bool:
    return src != dst
