"""Typing of ``cuda.bf16`` (numba.cuda.bf16): cuda_bf16.h's functions on bfloat16.

Each function has one fixed signature (:func:`bf16_signature`); its arguments convert
implicitly like any call's (a float32 passed to ``hadd`` becomes a bfloat16).  The
lowering (``cudalite.nvvm.lower._bf16``) reads the operation's name from
:class:`Bf16Op`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ... import device_api as api
from ...registry import registry
from ...types import (
    Signature, bfloat16, boolean, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
)
from .._records import Resolved
from .casts import can_convert

__all__ = ["Bf16Op", "bf16_signature", "BF16_INT_TYPES"]

BF = bfloat16
# cuda_bf16.h's integer names -> cudalite types
BF16_INT_TYPES = {"int": int32, "short": int16, "ushort": uint16, "uint": uint32, "ll": int64, "ull": uint64}
_UNARY = ("habs", "hneg", "htrunc", "hceil", "hfloor", "hrint", "hsqrt", "hrsqrt", "hrcp", "hlog", "hlog2",
          "hlog10", "hcos", "hsin", "hexp", "hexp2", "hexp10", "htanh", "htanh_approx")
_BINARY = ("hadd", "hsub", "hmul", "hadd_rn", "hsub_rn", "hmul_rn", "hdiv", "hadd_sat", "hsub_sat", "hmul_sat",
           "hmax", "hmin", "hmax_nan", "hmin_nan")
_COMPARE = ("heq", "hne", "hge", "hgt", "hle", "hlt", "hequ", "hneu", "hgeu", "hgtu", "hleu", "hltu")
_FIXED = {
    "hfma": Signature(BF, (BF, BF, BF)), "hfma_sat": Signature(BF, (BF, BF, BF)),
    "hfma_relu": Signature(BF, (BF, BF, BF)),
    "hisnan": Signature(boolean, (BF,)), "hisinf": Signature(int32, (BF,)),
    "bfloat162float": Signature(float32, (BF,)), "float2bfloat16": Signature(BF, (float32,)),
    "double2bfloat16": Signature(BF, (float64,)),
    "bfloat162char_rz": Signature(int8, (BF,)), "bfloat162uchar_rz": Signature(uint8, (BF,)),
    "bfloat16_as_short": Signature(int16, (BF,)), "bfloat16_as_ushort": Signature(uint16, (BF,)),
    "short_as_bfloat16": Signature(BF, (int16,)), "ushort_as_bfloat16": Signature(BF, (uint16,)),
}


@dataclass(frozen=True, slots=True)
class Bf16Op:
    """``cuda.bf16.<op>``: which bfloat16 operation (cuda_bf16.h's name without ``__``)."""

    op: str


def bf16_signature(op: str) -> Signature:
    """The one signature of ``cuda.bf16.<op>``."""
    if op in _FIXED:
        return _FIXED[op]
    if op in _UNARY:
        return Signature(BF, (BF,))
    if op in _BINARY:
        return Signature(BF, (BF, BF))
    if op in _COMPARE:
        return Signature(boolean, (BF, BF))
    src, _, rest = op.partition("2")
    dst, _, _mode = rest.partition("_")
    if src == "float":
        return Signature(BF, (float32,))
    if src == "bfloat16":
        return Signature(BF16_INT_TYPES[dst], (BF,))
    return Signature(BF, (BF16_INT_TYPES[src],))


def _typer(op):
    sig = bf16_signature(op)

    def typer(site):
        if len(site.args) != len(sig.args):
            raise site.error(f"takes {len(sig.args)} argument(s) but {len(site.args)} were given")
        for a, p in zip(site.args, sig.args):
            if not can_convert(a, p):
                raise site.error(f"expects {p} arguments, not {a}")
        return Resolved(sig, Bf16Op(op))

    return typer


for _op in api.BF16_OPS:
    _params = tuple("abc"[: len(bf16_signature(_op).args)])
    registry.call(getattr(api.bf16, _op), params=_params, name=f"cuda.bf16.{_op}")(_typer(_op))
