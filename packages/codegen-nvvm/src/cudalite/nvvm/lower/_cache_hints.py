"""Lowering of the loads and stores with a cache operator (``cuda.ldcg(a, i)``
is ``ld.global.cg.b32`` ...): the element's address (negative indices wrap, as
``a[i]``) is converted to the global space and used by one inline PTX
instruction; floats travel as their bits, 8-bit values in 16-bit registers.  Every one is
emitted with side effects, so the optimizer never merges or moves a load across
a store or a barrier."""

from __future__ import annotations

from llvmlite import ir

from cudalite.core import device_api as api
from cudalite.core.types import CPointer, Float, Tuple

from ._boundscheck import check_indices
from ._elements import element_pointer
from ._intrinsics import inline_asm
from ._irtypes import I64
from ._registry import lowerings

__all__ = []

# bit width -> (LLVM integer type of the asm operand, its constraint letter)
_REGS = {8: (ir.IntType(16), "h"), 16: (ir.IntType(16), "h"), 32: (ir.IntType(32), "r"),
         64: (ir.IntType(64), "l")}


def _address(lc, args, info, loc):
    """The element's address in the global space, as an i64 (array indices checked
    under ``boundscheck``, at ``loc``)."""
    b = lc.builder
    aty, ity = info.sig.args[0], info.sig.args[1]
    arr, idx = args[0], args[1]
    if isinstance(aty, CPointer):  # ptr[i]: no wraparound (a pointer has no extent)
        i = idx if idx.type.width == 64 else (b.sext if ity.signed else b.zext)(idx, I64)
        p = b.gep(arr, [i])
        if p.type.addrspace == 1:
            return b.ptrtoint(p, I64)
        return b.ptrtoint(b.addrspacecast(p, p.type.pointee.as_pointer(1)), I64)
    items = ([(b.extract_value(idx, i), t) for i, t in enumerate(ity.types)] if isinstance(ity, Tuple)
             else [(idx, ity)])
    check_indices(lc, aty, arr, items, loc)
    p = element_pointer(b, aty, arr, items)
    return b.ptrtoint(b.addrspacecast(p, p.type.pointee.as_pointer(1)), I64)


def _load(op):
    def lower(lc, node, args, info):
        b = lc.builder
        dt = info.sig.return_type
        bits = dt.bitwidth
        reg, con = _REGS[bits]
        raw = inline_asm(lc, reg, f"ld.global.{op}.b{bits} $0, [$1];", f"={con},l",
                         [_address(lc, args, info, node.loc)])
        elem = ir.IntType(bits)
        if reg != elem:
            raw = b.trunc(raw, elem)
        if not isinstance(dt, Float):
            return raw
        return b.bitcast(raw, {16: ir.HalfType(), 32: ir.FloatType(), 64: ir.DoubleType()}[bits])

    return lower


def _store(op):
    def lower(lc, node, args, info):
        b = lc.builder
        value = args[2]
        bits = info.sig.args[2].bitwidth
        reg, con = _REGS[bits]
        v = value if isinstance(value.type, ir.IntType) else b.bitcast(value, ir.IntType(bits))
        if v.type != reg:
            v = b.zext(v, reg)
        inline_asm(lc, ir.VoidType(), f"st.global.{op}.b{bits} [$0], $1;", f"l,{con},~{{memory}}",
                   [_address(lc, args, info, node.loc), v])

    return lower


for _n in api.CACHE_LOADS:
    lowerings.call(getattr(api, _n))(_load(_n[2:]))
for _n in api.CACHE_STORES:
    lowerings.call(getattr(api, _n))(_store(_n[2:]))
