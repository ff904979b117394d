"""Lowering of the warp-level primitives with the NVVM ``*.sync`` intrinsics:
``llvm.nvvm.shfl.sync.{idx,up,down,bfly}.{i32,f32}`` (64-bit values move as
two 32-bit halves), ``llvm.nvvm.vote.{all,any,uni,ballot}.sync``,
``llvm.nvvm.match.{any,all}.sync.*``; ``activemask`` and ``lanemask_lt`` read
PTX directly (inline assembly).
"""

from __future__ import annotations

from llvmlite import ir

from cudalite.core import device_api as api

from ._intrinsics import call_intrinsic, inline_asm
from ._irtypes import I1, I32, I64
from ._registry import lowerings

__all__ = ["shuffle"]

_F32 = ir.FloatType()
_MODES = {api.shfl_sync: "idx", api.shfl_up_sync: "up", api.shfl_down_sync: "down",
          api.shfl_xor_sync: "bfly"}


def _shfl32(lc, mode, mask, v, lane):
    clamp = ir.Constant(I32, 0 if mode == "up" else 0x1F)
    suffix = "f32" if v.type == _F32 else "i32"
    return call_intrinsic(lc, f"llvm.nvvm.shfl.sync.{mode}.{suffix}", v.type, [mask, v, lane, clamp])


def shuffle(lc, mode, mask, v, lane):
    """Shuffle a 32- or 64-bit integer or float value across the warp."""
    b = lc.builder
    if v.type == _F32 or v.type == I32:
        return _shfl32(lc, mode, mask, v, lane)
    bits = b.bitcast(v, I64) if isinstance(v.type, ir.DoubleType) else v
    lo = _shfl32(lc, mode, mask, b.trunc(bits, I32), lane)
    hi = _shfl32(lc, mode, mask, b.trunc(b.lshr(bits, ir.Constant(I64, 32)), I32), lane)
    out = b.or_(b.zext(lo, I64), b.shl(b.zext(hi, I64), ir.Constant(I64, 32)))
    return b.bitcast(out, v.type) if isinstance(v.type, ir.DoubleType) else out


@lowerings.call(*_MODES)
def _shfl(lc, node, args, info):
    mask, v, lane = args
    return shuffle(lc, _MODES[info.key], mask, v, lane)


def _vote(kind, ret):
    def lower(lc, node, args, info):
        return call_intrinsic(lc, f"llvm.nvvm.vote.{kind}.sync", ret, list(args))

    return lower


lowerings.call(api.all_sync)(_vote("all", I1))
lowerings.call(api.any_sync)(_vote("any", I1))
lowerings.call(api.eq_sync)(_vote("uni", I1))
lowerings.call(api.ballot_sync)(_vote("ballot", I32))


def _match_bits(lc, v):
    if isinstance(v.type, ir.IntType):
        return v
    return lc.builder.bitcast(v, I64 if isinstance(v.type, ir.DoubleType) else I32)


@lowerings.call(api.match_any_sync)
def _match_any(lc, node, args, info):
    mask, v = args
    v = _match_bits(lc, v)
    return call_intrinsic(lc, f"llvm.nvvm.match.any.sync.i{v.type.width}", I32, [mask, v])


@lowerings.call(api.match_all_sync)
def _match_all(lc, node, args, info):
    mask, v = args
    v = _match_bits(lc, v)
    ret = ir.LiteralStructType([I32, I1])
    return call_intrinsic(lc, f"llvm.nvvm.match.all.sync.i{v.type.width}p", ret, [mask, v])


@lowerings.call(api.activemask)
def _activemask(lc, node, args, info):
    return inline_asm(lc, I32, "activemask.b32 $0;", "=r")


@lowerings.call(api.lanemask_lt)
def _lanemask_lt(lc, node, args, info):
    return inline_asm(lc, I32, "mov.u32 $0, %lanemask_lt;", "=r", side_effect=False)
