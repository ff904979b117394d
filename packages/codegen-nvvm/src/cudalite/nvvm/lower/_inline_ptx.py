"""Lowering of ``cuda.inline_ptx(ptx, constraints, result_type, *operands)``: one
LLVM inline-asm call with the user's PTX and constraints (typing checked that every
operand has its constraint's type), marked as having side effects so that the
optimizer never removes, merges or reorders it."""

from __future__ import annotations

from llvmlite import ir

from cudalite.core import device_api as api
from cudalite.core.types import NoneType, Tuple

from ._intrinsics import inline_asm, inline_asm_outputs, tuple_value
from ._irtypes import value_type
from ._registry import lowerings

__all__ = []


@lowerings.call(api.inline_ptx)
def _inline_ptx(lc, node, args, info):
    sig = info.sig
    ptx, cons = sig.args[0].value, sig.args[1].value
    rt = sig.return_type
    if isinstance(rt, NoneType):
        inline_asm(lc, ir.VoidType(), ptx, cons, list(args[3:]))
        return None
    if not isinstance(rt, Tuple):
        return inline_asm(lc, value_type(rt), ptx, cons, list(args[3:]))
    outs = inline_asm_outputs(lc, [value_type(t) for t in rt.types], ptx, cons, list(args[3:]))
    return tuple_value(lc, rt, outs)
