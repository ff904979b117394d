"""Lowering of ``cuda.inline_ptx(ptx, constraints, result_type, *operands)``: one
LLVM inline-asm call with the user's PTX and constraints (typing checked that every
operand has its constraint's type), marked as having side effects so that the
optimizer never removes, merges or reorders it."""

from __future__ import annotations

from llvmlite import ir

from cudalite.core import device_api as api
from cudalite.core.types import NoneType

from ._intrinsics import inline_asm
from ._irtypes import value_type
from ._registry import lowerings

__all__ = []


@lowerings.call(api.inline_ptx)
def _inline_ptx(lc, node, args, info):
    sig = info.sig
    ptx, cons = sig.args[0].value, sig.args[1].value
    ret = ir.VoidType() if isinstance(sig.return_type, NoneType) else value_type(sig.return_type)
    result = inline_asm(lc, ret, ptx, cons, list(args[3:]))
    return None if isinstance(ret, ir.VoidType) else result
