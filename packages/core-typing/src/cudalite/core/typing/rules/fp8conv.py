"""Conversions of the fp8 types (``fp8_e4m3``, ``fp8_e5m2``, ``fp8_e8m0``), and the hint
errors about them carry.

As in CUDA C++ (``cuda_fp8.h``), fp8 values convert only explicitly: ``fp8_e4m3(x)``
from a bool, an integer, a float (float16/32/64), a bfloat16 or another fp8 value, and
``float32(v)``, ``int32(v)``, ``bfloat16(v)``, ``bool(v)``... back.  They have no
arithmetic, comparisons or implicit conversions (storing a float into an fp8 array
is refused): every rounding to 8 bits is one the program wrote.
"""

from __future__ import annotations

from ..._compat import numeric_kind
from ...types import BFloat16, Fp8

__all__ = ["fp8_explicit", "fp8_hint"]


def fp8_explicit(src, dst) -> bool:
    """Whether ``dst(x)`` converts an ``x`` of type ``src``, one of them fp8."""
    other = src if isinstance(dst, Fp8) else dst
    return isinstance(other, (Fp8, BFloat16)) or numeric_kind(other) in ("b", "i", "f")


def fp8_hint(*types) -> str:
    """A sentence for an error about ``types`` when one of them is fp8, else ``""``."""
    t = next((t for t in types if isinstance(t, Fp8)), None)
    if t is None:
        return ""
    return (f" ({t} has no arithmetic, comparisons or implicit conversions, as CUDA's {t.c_name}: "
            f"convert explicitly, e.g. float32(x) or {t}(y))")
