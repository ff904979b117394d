"""Typing of ``cuda.fp8``'s conversion functions (cuda_fp8.h's ``__nv_cvt_*``, the names
numba-cuda's bindings give them) and of ``bfloat16_raw``'s ``.x``.

They work on storage: the result is the fp8 byte (``uint8``; ``uint16`` for the ``x2``
forms, the first component in the low byte).  The mode arguments are compile-time
constants, checked here: ``saturation_t.NOSAT``/``SATFINITE``, ``fp8_interpretation_t.
E4M3``/``E5M2`` and, for e8m0, ``cudaRoundMode.cudaRoundZero``/``cudaRoundPosInf`` (1, 2:
the two modes CUDA's e8m0 conversions define).  The lowering
(``cudalite.nvvm.lower._fp8``) reads the checked modes from :class:`Fp8Cvt`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ... import device_api as api
from ...registry import registry
from ...types import (
    BFloat16, BFloat16Raw, Signature, bfloat16_raw, float32, float64, uint8, uint16, vector_type_named,
)
from ...types._fp8 import ROUND_POS_INF, ROUND_ZERO
from .._records import Resolved
from .casts import can_convert

__all__ = ["Fp8Cvt"]

_F2, _D2 = vector_type_named("float32x2"), vector_type_named("float64x2")
_SOURCES = {"float": float32, "double": float64, "float2": _F2, "double2": _D2, "bfloat16raw": bfloat16_raw}


@dataclass(frozen=True, slots=True)
class Fp8Cvt:
    """A checked ``cuda.fp8.cvt_*`` call: its source kind, target format, saturation
    and (e8m0) rounding."""

    source: str  # float, double, float2, double2, bfloat16raw, e8m0
    fmt: str  # e4m3, e5m2, e8m0; bf16raw for cvt_e8m0_to_bf16raw
    saturate: bool = True
    round_up: bool = True


def _mode(site, i, allowed: dict, what: str):
    value = site.const(i, what)
    for name, v in allowed.items():
        if value == v and not isinstance(value, bool):
            return name
    raise site.error(f"the {what} must be {' or '.join(allowed)}, not {value!r}")


_SAT = {"saturation_t.NOSAT": 0, "saturation_t.SATFINITE": 1}
_INTERP = {"fp8_interpretation_t.E4M3": 0, "fp8_interpretation_t.E5M2": 1}
_ROUND = {"cudaRoundMode.cudaRoundZero": ROUND_ZERO, "cudaRoundMode.cudaRoundPosInf": ROUND_POS_INF}


def _source_type(site, source):
    want = _SOURCES[source]
    got = site.args[0]
    if source == "bfloat16raw":
        if isinstance(got, (BFloat16Raw, BFloat16)):
            return got
    elif got == want or (source in ("float", "double") and can_convert(got, want)):
        return want
    raise site.error(f"the value must be a {want}, not {got}")


def _cvt_typer(op):
    source = op[len("cvt_"):].split("_to_")[0]
    target = op.split("_to_")[1]

    def typer(site):
        if op == "cvt_e8m0_to_bf16raw":
            if len(site.args) != 1 or not can_convert(site.args[0], uint8):
                raise site.error(f"takes one uint8 (an e8m0 byte), not ({', '.join(map(str, site.args))})")
            return Resolved(Signature(bfloat16_raw, (uint8,)), Fp8Cvt("e8m0", "bf16raw"))
        if len(site.args) != 3:
            raise site.error(f"takes the value, the saturation mode and the "
                             f"{'rounding mode' if 'e8m0' in target else 'fp8 interpretation'}: "
                             f"{len(site.args)} argument(s) given")
        src = _source_type(site, source)
        sat = _mode(site, 1, _SAT, "saturation mode") == "saturation_t.SATFINITE"
        if target.startswith("e8m0"):
            round_up = _mode(site, 2, _ROUND, "rounding mode") == "cudaRoundMode.cudaRoundPosInf"
            fmt = "e8m0"
        else:
            round_up = True
            fmt = "e5m2" if _mode(site, 2, _INTERP, "fp8 interpretation").endswith("E5M2") else "e4m3"
        ret = uint16 if target.endswith("x2") else uint8
        return Resolved(Signature(ret, (src,) + tuple(site.args[1:])), Fp8Cvt(source, fmt, sat, round_up))

    return typer


for _op in api.FP8_OPS:
    _params = ("x",) if _op == "cvt_e8m0_to_bf16raw" else ("x", "saturate", "mode")
    registry.call(getattr(api.fp8, _op), params=_params, name=f"cuda.fp8.{_op}")(_cvt_typer(_op))


@registry.attr(BFloat16Raw, "x")
def _raw_bits(t):
    return uint16
