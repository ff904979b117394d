"""Lowering of ``carray`` / ``farray`` (typing: ``rules/pointer_arrays.py``): the
array value ``{ptr, shape, strides}`` over a pointer, strides computed at run time
for C or Fortran order from the (possibly run-time) shape."""

from __future__ import annotations

from llvmlite import ir

from cudalite.core.pointer_arrays import carray, farray
from cudalite.core.types import Tuple, int64

from ._abi import itemsize
from ._casts import cast
from ._constants import array_struct
from ._irtypes import I64, memory_type, ptr
from ._registry import lowerings

__all__ = []


@lowerings.call(carray)
@lowerings.call(farray)
def _pointer_array(lc, node, args, info):
    b = lc.builder
    aty = info.sig.return_type
    p, shape_val = args[0], args[1]
    sty = info.sig.args[1]
    if isinstance(sty, Tuple):
        dims = [cast(b, b.extract_value(shape_val, k), t, int64) for k, t in enumerate(sty.types)]
    else:
        dims = [cast(b, shape_val, sty, int64)]
    order = range(len(dims) - 1, -1, -1) if aty.layout == "C" else range(len(dims))
    strides = [None] * len(dims)
    acc = ir.Constant(I64, itemsize(aty.dtype))
    for k in order:
        strides[k] = acc
        acc = b.mul(acc, dims[k])
    data = p
    want = ptr(memory_type(aty.dtype))
    if data.type.addrspace != want.addrspace:
        data = b.addrspacecast(b.bitcast(data, ptr(memory_type(aty.dtype), data.type.addrspace)), want)
    elif data.type != want:
        data = b.bitcast(data, want)
    return array_struct(b, aty, data, dims, strides)

