"""Lowering of ``arr.reshape(shape)`` (typing: ``rules/array_reshape.py``): the new
C-contiguous array value over the same data; a ``-1`` extent is the array's size
divided by the product of the others; a size mismatch is ValueError under
``debug=True``, else the function returns (numba's behaviour without debug)."""

from __future__ import annotations

import builtins

from llvmlite import ir

from cudalite.core.types import Array, Tuple, int64

from ._abi import itemsize
from ._casts import cast
from ._constants import array_struct
from ._exceptions import _record
from ._irtypes import I64
from ._registry import lowerings

__all__ = []

RESHAPE_ERROR = "total size of new array must be unchanged"


def _extents(b, args, argtypes):
    if len(argtypes) == 1 and isinstance(argtypes[0], Tuple):
        return [cast(b, b.extract_value(args[0], k), t, int64) for k, t in enumerate(argtypes[0].types)]
    return [cast(b, v, t, int64) for v, t in zip(args, argtypes)]


@lowerings.method(Array, "reshape")
def _reshape(lc, node, args, info):
    b = lc.builder
    arr, aty, rt = args[0], info.recv, info.sig.return_type
    zero, one = ir.Constant(I64, 0), ir.Constant(I64, 1)
    size = one
    for k in range(aty.ndim):
        size = b.mul(size, b.extract_value(arr, [1, k]))
    dims = _extents(b, args[1:], info.sig.args)
    known, unknown = one, zero
    for d in dims:
        neg = b.icmp_signed("<", d, zero)
        known = b.mul(known, b.select(neg, one, d))
        unknown = b.add(unknown, b.zext(neg, I64))
    inferred = b.sdiv(size, b.select(b.icmp_signed("==", known, zero), one, known))
    dims = [b.select(b.icmp_signed("<", d, zero), inferred, d) for d in dims]
    total = one
    for d in dims:
        total = b.mul(total, d)
    ok = b.and_(b.icmp_signed("==", total, size), b.icmp_unsigned("<=", unknown, one))
    good, bad = lc.fn.append_basic_block("reshape.ok"), lc.fn.append_basic_block("reshape.bad")
    b.cbranch(ok, good, bad)
    b.position_at_end(bad)
    if lc.module.options.debug:
        _record(lc, builtins.ValueError, (RESHAPE_ERROR,), node.loc)
        b.unreachable()
    else:
        lc.ret_default()
    b.position_at_end(good)
    strides, acc = [None] * len(dims), ir.Constant(I64, itemsize(aty.dtype))
    for k in range(len(dims) - 1, -1, -1):
        strides[k] = acc
        acc = b.mul(acc, dims[k])
    return array_struct(b, rt, b.extract_value(arr, 0), dims, strides)
