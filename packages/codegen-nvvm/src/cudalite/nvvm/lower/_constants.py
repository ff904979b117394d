"""Compile-time constants as IR values: numbers, tuples, global NumPy arrays
(placed in constant memory, ``addrspace(4)``, read-only) and global device arrays
(captured by reference: their pointer, shape and strides baked in)."""

from __future__ import annotations

from llvmlite import ir

from cudalite.core.errors import LoweringError
from cudalite.core.numpy_support import is_ndarray, numpy
from cudalite.core.types import (
    Array, BFloat16, Boolean, Complex, DeviceArrayRef, Float, Fp8, Integer, NoneType, Tuple, bfloat16_bits, fp8_bits,
)

from ._ext_tables import constants as ext_constants
from ._irtypes import ADDRSPACE_CONST, ADDRSPACE_GLOBAL, I8, I64, memory_type, ptr, value_type

__all__ = ["lower_constant", "constant_array_global", "array_struct"]


def _scalar_const(value, ty):
    lty = value_type(ty)
    if isinstance(ty, Boolean):
        return ir.Constant(lty, int(bool(value)))
    if isinstance(ty, Integer):
        v = int(value)
        return ir.Constant(lty, v & ((1 << ty.bitwidth) - 1) if v < 0 and not ty.signed else v)
    if isinstance(ty, Float):
        return ir.Constant(lty, float(value))
    if isinstance(ty, BFloat16):
        return ir.Constant(lty, bfloat16_bits(value))
    if isinstance(ty, Fp8):
        return ir.Constant(lty, fp8_bits(value, ty))
    if isinstance(ty, Complex):
        c = complex(value)
        f = value_type(ty.underlying)
        return ir.Constant(lty, [ir.Constant(f, c.real), ir.Constant(f, c.imag)])
    return None


def lower_constant(lc, value, ty, in_tuple=False):
    c = _scalar_const(value, ty)
    if c is not None:
        return c
    if isinstance(ty, Tuple):
        items = [lower_constant(lc, v, t, in_tuple=True) for v, t in zip(value, ty.types)]
        if all(isinstance(i, ir.Constant) for i in items):
            return ir.Constant(value_type(ty), items)
        out = ir.Constant(value_type(ty), ir.Undefined)  # items computed in code (global arrays)
        for k, item in enumerate(items):
            out = lc.builder.insert_value(out, item, k)
        return out
    if isinstance(ty, Array) and isinstance(value, DeviceArrayRef):
        data = ir.Constant(I64, value.ptr).inttoptr(ptr(memory_type(ty.dtype)))
        return array_struct(lc.builder, ty, data, [ir.Constant(I64, n) for n in value.shape],
                            [ir.Constant(I64, s) for s in value.strides])
    if isinstance(ty, Array) and is_ndarray(value):
        # Arrays inside a tuple live in read-only global memory: indexed through the
        # tuple, NVVM turns a constant-memory pointer's loads into ld.global at the
        # symbol's const-bank offset (an immediate address ptxas rejects).
        elem_ptr = constant_array_global(lc.module, value, ty, ADDRSPACE_GLOBAL if in_tuple else ADDRSPACE_CONST)
        data = lc.builder.addrspacecast(elem_ptr, ptr(memory_type(ty.dtype)))
        strides = [int(s) for s in value.strides]
        return array_struct(lc.builder, ty, data, [ir.Constant(I64, int(n)) for n in value.shape],
                            [ir.Constant(I64, s) for s in strides])
    if isinstance(ty, NoneType):
        return ir.Constant(value_type(ty), None)
    if not type(ty).__module__.startswith("cudalite.core."):
        run = ext_constants.find(ty)  # an extension type's lower_constant
        if run is not None:
            return run(lc, lc.builder, ty, value)
        if value_type(ty) != ir.LiteralStructType([]):  # a value with a representation: never guess it
            raise LoweringError(f"the value {value!r} of extension type {ty} cannot be frozen into device code: "
                                f"register its conversion with @lower_constant({type(ty).__name__})")
    return ir.Constant(value_type(ty), None)  # compile-time objects carry no runtime value


# CUDA's constant bank for a module's data (ptxas refuses more), and a bound on what is
# embedded in global memory (the copy is written out as IR text: beyond this the
# compile takes minutes and the process gigabytes, so it is refused with the reason)
CONST_BANK_BYTES = 64 * 1024
MAX_EMBEDDED_BYTES = 256 * 1024 * 1024


class ConstantTooLarge(ValueError):
    """A global array too large to copy into the kernel (the message says why)."""


def _check_embeddable(arr, space):
    nbytes = int(arr.size) * int(arr.dtype.itemsize)  # the array's elements, whatever its strides
    if space == ADDRSPACE_CONST and nbytes > CONST_BANK_BYTES:
        raise ConstantTooLarge(
            f"is a NumPy array of {nbytes:,} bytes: a global array is copied into the kernel's constant memory, "
            f"which holds {CONST_BANK_BYTES // 1024} KiB; pass it as a kernel argument (cuda.to_device) instead")
    if nbytes > MAX_EMBEDDED_BYTES:
        raise ConstantTooLarge(
            f"is a NumPy array of {nbytes:,} bytes: too large to copy into the kernel (at most "
            f"{MAX_EMBEDDED_BYTES // 2**20} MiB); pass it as a kernel argument (cuda.to_device) instead")


def constant_array_global(mb, arr, ty, space=ADDRSPACE_CONST):
    """Pointer (``T addrspace(space)*``) to a read-only copy of ``arr`` in constant
    (default) or global memory, emitted once per array, space and module;
    :class:`ConstantTooLarge` when it cannot be (constant memory's 64 KiB, or
    :data:`MAX_EMBEDDED_BYTES`)."""
    key = (id(arr), ty, space)
    hit = mb.const_arrays.get(key)
    if hit is not None:
        return hit[0]
    _check_embeddable(arr, space)
    elem = memory_type(ty.dtype)
    np = numpy()
    flat = np.ascontiguousarray(arr).reshape(-1)
    if isinstance(ty.dtype, (Integer, Float, Boolean)) and not isinstance(ty.dtype, Boolean):
        init = ir.Constant(ir.ArrayType(elem, flat.size), [_scalar_const(v, ty.dtype) for v in flat.tolist()])
        lty = init.type
    else:  # records, complex, bool: raw bytes
        raw = bytearray(np.ascontiguousarray(arr).tobytes())
        lty = ir.ArrayType(I8, len(raw))
        init = ir.Constant(lty, raw)
    gv = ir.GlobalVariable(mb.ir_module, lty, mb.unique("cudalite.const"), addrspace=space)
    gv.global_constant = True
    gv.initializer = init
    gv.linkage = "internal"
    gv.align = max(16, arr.dtype.alignment)
    zero = ir.Constant(ir.IntType(32), 0)
    first = gv.gep([zero, zero])
    if first.type != ptr(elem, space):
        first = first.bitcast(ptr(elem, space))
    mb.const_arrays[key] = (first, arr)  # keeps arr alive so its id() stays unique
    return first


def array_struct(b, ty, data, shape, strides):
    """Build the array value ``{data, shape, strides}``."""
    v = ir.Constant(value_type(ty), ir.Undefined)
    v = b.insert_value(v, data, 0)
    for i, s in enumerate(shape):
        v = b.insert_value(v, s, [1, i])
    for i, s in enumerate(strides):
        v = b.insert_value(v, s, [2, i])
    return v
