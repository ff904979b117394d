"""Calls to foreign device functions and ``ffi.from_buffer``.

A call to a :class:`~cudalite.core.ffi.ForeignFunction` declares the external
symbol with the ABI it names (arguments flattened as in docs/abi.md) and records
its link items on the module, so every kernel that reaches the call -- through
any depth of device functions -- links the code that defines it.
"""

from __future__ import annotations

import types as _pytypes

from llvmlite import ir

from cudalite.core.errors import CompilerError, LoweringError
from cudalite.core.ffi import ForeignFunction
from cudalite.core.types import Array, Boolean, Complex, Tuple, VectorType

from ._abi import flat_params
from ._irtypes import I8, I32, ptr, value_type
from ._registry import lowerings
from ._vectors import abi_type, annotate_alignment, from_abi, to_abi

__all__ = []


def _params(module, t) -> list:
    """The parameter types of one argument: a vector is CUDA C's struct, by value."""
    if isinstance(t, VectorType):
        return [abi_type(module, t)]
    return flat_params(t)


def _flatten_value(b, module, v, t):
    """Split a value into the ABI's scalar parameters (bool as i8; a vector: one struct)."""
    if isinstance(t, VectorType):
        return [to_abi(b, module, v, t)]
    if isinstance(t, Boolean):
        return [b.zext(v, I8)]
    if isinstance(t, Array):
        raise TypeError("arrays are passed to foreign functions as pointers: use ffi.from_buffer(array)")
    if isinstance(t, Tuple):
        return [p for i, sub in enumerate(t.types) for p in _flatten_value(b, module, b.extract_value(v, i), sub)]
    if isinstance(t, Complex):
        return [b.extract_value(v, 0), b.extract_value(v, 1)]
    return [v]


@lowerings.call_class(ForeignFunction)
def _call_foreign(lc, node, args, info):
    decl = info.key
    b = lc.builder
    mb = lc.module
    mb.add_links(decl.link)
    if decl.use_cooperative:  # the foreign code syncs the grid: a cooperative launch
        mb.uses_grid_sync = True
    try:
        params = [p for t in decl.argtypes for p in _params(mb.ir_module, t)]
        values = [p for v, t in zip(args, decl.argtypes) for p in _flatten_value(b, mb.ir_module, v, t)]
    except (TypeError, CompilerError) as e:  # arrays; a tuple holding a vector
        raise LoweringError(str(e), node.loc) from None
    rt = decl.return_type
    ret_lty = I8 if isinstance(rt, Boolean) else value_type(rt)
    if isinstance(rt, VectorType):
        ret_lty = abi_type(mb.ir_module, rt)
    if decl.abi == "c":
        fnty = ir.FunctionType(ir.VoidType() if not decl.returns_value else ret_lty, params)
    else:
        fnty = ir.FunctionType(I32, [ptr(ret_lty if decl.returns_value else I8)] + params)
    fn = mb.ir_module.globals.get(decl.name)
    if fn is None:
        fn = ir.Function(mb.ir_module, fnty, decl.name)
        _annotate_vectors(mb.ir_module, fn, decl)
    elif fn.function_type != fnty:
        raise LoweringError(f"the device function {decl.name!r} is declared twice with different signatures "
                            f"({fn.function_type} and {fnty})", node.loc)
    if decl.abi == "c":
        res = b.call(fn, values)
        if not decl.returns_value:
            return ir.Constant(value_type(rt), None)
    else:
        slot = lc.alloca(ret_lty if decl.returns_value else I8)
        b.call(fn, [slot] + values)
        if not decl.returns_value:
            return ir.Constant(value_type(rt), None)
        res = b.load(slot)
    if isinstance(rt, Boolean):
        res = b.icmp_unsigned("!=", res, ir.Constant(I8, 0))
    elif isinstance(rt, VectorType):
        res = from_abi(b, res, rt)
    return res


def _annotate_vectors(module, fn, decl):
    """CUDA C's alignment for vector parameters (and a C-ABI vector result)."""
    first = 1 if decl.abi == "c" else 2  # the numba ABI's first parameter is the result pointer
    index = first
    for t in decl.argtypes:
        if isinstance(t, VectorType):
            annotate_alignment(module, fn, index, t)
        index += len(_params(module, t))
    if decl.abi == "c" and isinstance(decl.return_type, VectorType):
        annotate_alignment(module, fn, 0, decl.return_type)


@lowerings.call_class(_pytypes.MethodType, _pytypes.BuiltinMethodType)
def _from_buffer(lc, node, args, info):
    """``ffi.from_buffer(array)``: the array's data pointer, typed from its dtype."""
    arr = args[-1]
    data = lc.builder.extract_value(arr, 0)
    return lc.builder.bitcast(data, value_type(info.sig.return_type))
