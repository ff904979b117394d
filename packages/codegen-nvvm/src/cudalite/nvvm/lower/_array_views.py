"""Lowering of element-reinterpreting array views: ``arr.real`` / ``arr.imag`` of
a complex array (float views into the same memory, same byte strides) and
``arr.view(dtype)`` (the same memory read as another scalar type)."""

from __future__ import annotations

import builtins

from llvmlite import ir

from cudalite.core.types import Array, Complex

from ._abi import itemsize
from ._constants import array_struct
from ._exceptions import _record
from ._irtypes import I64, memory_type, ptr
from ._registry import lowerings

__all__ = []

VIEW_ERROR = "new type not compatible with array"


def _recast(b, arr, aty: Array, dtype, byte_offset=0):
    data = b.extract_value(arr, 0)
    raw = b.bitcast(data, ptr(ir.IntType(8), data.type.addrspace))
    if byte_offset:
        raw = b.gep(raw, [ir.Constant(I64, byte_offset)], inbounds=True)
    return b.bitcast(raw, ptr(memory_type(dtype), data.type.addrspace))


def _component(lc, arr, info, imag):
    b = lc.builder
    aty = info.sig.args[0]
    rt = info.sig.return_type
    if not isinstance(aty.dtype, Complex):  # .real of a real array: the array itself
        return arr
    offset = itemsize(aty.dtype.underlying) if imag else 0
    data = _recast(b, arr, aty, rt.dtype, offset)
    shape = [b.extract_value(arr, [1, k]) for k in range(aty.ndim)]
    strides = [b.extract_value(arr, [2, k]) for k in range(aty.ndim)]
    return array_struct(b, rt, data, shape, strides)


@lowerings.attr(Array, "real")
def _real(lc, arr, info):
    return _component(lc, arr, info, imag=False)


@lowerings.attr(Array, "imag")
def _imag(lc, arr, info):
    return _component(lc, arr, info, imag=True)


def _fail(lc, loc):
    """A view that does not fit: ValueError under debug=True, else the function
    returns (numba's behaviour for exceptions without debug)."""
    if lc.module.options.debug:
        _record(lc, builtins.ValueError, (VIEW_ERROR,), loc)
        lc.builder.unreachable()  # the block _record leaves after its return
    else:
        lc.ret_default()


@lowerings.method(Array, "view")
def _view(lc, node, args, info):
    b = lc.builder
    arr = args[0]
    aty = info.recv
    rt = info.sig.return_type
    old, new = itemsize(aty.dtype), itemsize(rt.dtype)
    data = _recast(b, arr, aty, rt.dtype)
    shape = [b.extract_value(arr, [1, k]) for k in range(aty.ndim)]
    strides = [b.extract_value(arr, [2, k]) for k in range(aty.ndim)]
    if old != new:  # the last dimension must be contiguous and its bytes a multiple of `new`
        nbytes = b.mul(shape[-1], ir.Constant(I64, old))
        contiguous = b.or_(b.icmp_signed("==", strides[-1], ir.Constant(I64, old)),
                           b.icmp_signed("<=", shape[-1], ir.Constant(I64, 1)))
        fits = b.icmp_signed("==", b.srem(nbytes, ir.Constant(I64, new)), ir.Constant(I64, 0))
        ok = b.and_(contiguous, fits)
        good = lc.fn.append_basic_block("view.ok")
        bad = lc.fn.append_basic_block("view.bad")
        b.cbranch(ok, good, bad)
        b.position_at_end(bad)
        _fail(lc, node.loc)
        b.position_at_end(good)
        shape[-1] = b.sdiv(nbytes, ir.Constant(I64, new))
        strides[-1] = ir.Constant(I64, new)
    return array_struct(b, rt, data, shape, strides)
