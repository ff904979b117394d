"""Lowering of the memory-space arrays: ``cuda.shared.array`` (an
``addrspace(3)`` global per call site; ``shape=0`` is the module's one extern
dynamic shared array, sized at launch), ``cuda.local.array`` (an entry-block
``alloca``) and ``cuda.const.array_like`` (an ``addrspace(4)`` constant copy).
Each yields a C-contiguous array value whose data pointer is generic.  The IR names
are numba-cuda's (``@_cudapy_smem_N`` globals, ``%_cudapy_lmem`` allocas), so tools
that inspect the LLVM IR of numba kernels read cudalite's alike.
"""

from __future__ import annotations

import math

from llvmlite import ir

from cudalite.core.errors import LoweringError
from cudalite.core import device_api as api
from cudalite.core.numpy_support import numpy
from cudalite.core.types import Record

from ._abi import itemsize
from ._constants import ConstantTooLarge, array_struct, constant_array_global
from ._intrinsics import inline_asm
from ._irtypes import ADDRSPACE_SHARED, I8, I32, I64, memory_type, ptr
from ._registry import lowerings

__all__ = ["c_strides", "DYNAMIC_SHARED_NAME"]

DYNAMIC_SHARED_NAME = "cudalite_dynshared"
_ALIGN = 16


def _natural_align(dtype):
    """A power-of-two alignment enough for an element of ``dtype``: 8 for a record (its
    widest field), else the largest power of two dividing into its size, at most 16
    (a ``float32x3`` of 12 bytes: 8)."""
    if isinstance(dtype, Record):
        return 8
    return 1 << (min(itemsize(dtype), 16).bit_length() - 1)


def c_strides(shape, size):
    """Byte strides of a C-contiguous array."""
    strides, acc = [], size
    for n in reversed(shape):
        strides.append(acc)
        acc *= n
    return list(reversed(strides))


def _static_array(lc, aty, data, shape):
    consts = [ir.Constant(I64, n) for n in shape]
    strides = [ir.Constant(I64, s) for s in c_strides(shape, itemsize(aty.dtype))]
    return array_struct(lc.builder, aty, data, consts, strides)


def _dynamic_shared(lc, aty, alignment=None):
    """The extern dynamic shared array; its length is ``%dynamic_smem_size // itemsize``.
    ``alignment=`` raises the alignment of the one extern array (every view of the dynamic
    shared memory starts there): the largest asked for in the module, at least 16 (a
    128-byte-swizzled TMA/wgmma tile wants 1024)."""
    b = lc.builder
    m = lc.module.ir_module
    gv = m.globals.get(DYNAMIC_SHARED_NAME)
    if gv is None:
        gv = ir.GlobalVariable(m, ir.ArrayType(I8, 0), DYNAMIC_SHARED_NAME, addrspace=ADDRSPACE_SHARED)
        gv.linkage = "external"
        gv.align = _ALIGN
    if alignment and alignment > gv.align:
        gv.align = alignment
    elem = memory_type(aty.dtype)
    data = b.addrspacecast(b.bitcast(gv, ptr(elem, ADDRSPACE_SHARED)), ptr(elem))
    nbytes = inline_asm(lc, I32, "mov.u32 $0, %dynamic_smem_size;", "=r", side_effect=False)
    size = itemsize(aty.dtype)
    n = b.udiv(b.zext(nbytes, I64), ir.Constant(I64, size))
    return array_struct(b, aty, data, [n], [ir.Constant(I64, size)])


@lowerings.call(api.shared.array)
def _shared_array(lc, node, args, info):
    aty = info.sig.return_type
    shape = info.payload.shape
    if not shape:
        return _dynamic_shared(lc, aty, info.payload.alignment)
    elem = memory_type(aty.dtype)
    lty = ir.ArrayType(elem, math.prod(shape))
    gv = ir.GlobalVariable(lc.module.ir_module, lty, lc.module.unique("_cudapy_smem").replace(".", "_"),
                           addrspace=ADDRSPACE_SHARED)
    gv.linkage = "internal"
    gv.initializer = ir.Constant(lty, ir.Undefined)
    natural = _natural_align(aty.dtype)  # alignment= exactly (never below the element's), else 16
    gv.align = max(info.payload.alignment, natural) if info.payload.alignment else max(_ALIGN, natural)
    zero = ir.Constant(I32, 0)
    first = lc.builder.gep(gv, [zero, zero], inbounds=True)
    data = lc.builder.addrspacecast(first, ptr(elem))
    return _static_array(lc, aty, data, shape)


@lowerings.call(api.local.array)
def _local_array(lc, node, args, info):
    aty = info.sig.return_type
    shape = info.payload.shape
    elem = memory_type(aty.dtype)
    slot = lc.alloca(ir.ArrayType(elem, math.prod(shape)), name="_cudapy_lmem")
    if info.payload.alignment:  # never below the element's own alignment
        slot.align = max(info.payload.alignment, _natural_align(aty.dtype))
    zero = ir.Constant(I32, 0)
    data = lc.builder.gep(slot, [zero, zero], inbounds=True)
    return _static_array(lc, aty, data, shape)


@lowerings.call(api.const.array_like)
def _const_array_like(lc, node, args, info):
    aty = info.sig.return_type
    try:
        first = constant_array_global(lc.module, info.payload.value, aty)
    except ConstantTooLarge as err:
        raise LoweringError(f"cuda.const.array_like(): the array {err}", node.loc) from None
    value = numpy().ascontiguousarray(info.payload.value)
    data = lc.builder.addrspacecast(first, ptr(memory_type(aty.dtype)))
    return _static_array(lc, aty, data, value.shape)
