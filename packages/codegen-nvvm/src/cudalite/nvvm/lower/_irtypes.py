"""The NVVM IR dialect in one place: cudalite types -> llvmlite IR types.

libNVVM reads LLVM 7 text with typed pointers, so pointers are built with
``ir.PointerType(elem, addrspace)``; nothing here loads a native library.

Value representations:

* bool -> ``i1`` in registers, ``i8`` in memory and kernel parameters
* intN -> ``iN``; float16/32/64 -> ``half``/``float``/``double``
* complex -> ``{float, float}`` / ``{double, double}``
* tuple -> a literal struct of its items; a uniform tuple of two or more items
  (``UniTuple``) -> an array ``[n x T]`` (as numba's data model: its IR text stays
  short however many items it has, so a large tuple makes linear-size IR)
* array -> ``{T* data, [n x i64] shape, [n x i64] strides}`` (strides in bytes)
* record -> ``i8*`` pointing at the record (records have reference semantics)
* vector type (``float32x4``) -> ``{float, float, float, float}`` (foreign calls use a
  named struct of CUDA C's alignment: ``lower/_vectors.py``)
* CPointer(T) -> ``T*``; compile-time objects -> ``{}`` (no runtime value)

:func:`type_from_text` reads the IR text of a type (as printed by llvmlite) back into
an llvmlite type: the kernel ABI (:mod:`cudalite.core.abi`) spells parameter types
as text, since core does not import llvmlite.
"""

from __future__ import annotations

import re

from llvmlite import ir

from cudalite.core.types import (
    Array, Boolean, Complex, CPointer, Float, Integer, NoneType, Record, SliceType, Tuple, VectorType,
)

__all__ = [
    "value_type", "memory_type", "EMPTY", "I1", "I8", "I32", "I64", "ptr", "const_int",
    "DATA_LAYOUT", "TRIPLE", "ADDRSPACE_GENERIC", "ADDRSPACE_GLOBAL", "ADDRSPACE_SHARED",
    "ADDRSPACE_CONST", "ADDRSPACE_LOCAL", "type_from_text",
]

TRIPLE = "nvptx64-nvidia-cuda"
DATA_LAYOUT = (
    "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-"
    "f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
)
ADDRSPACE_GENERIC, ADDRSPACE_GLOBAL, ADDRSPACE_SHARED, ADDRSPACE_CONST, ADDRSPACE_LOCAL = 0, 1, 3, 4, 5

I1, I8, I32, I64 = ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64)
EMPTY = ir.LiteralStructType([])
_FLOATS = {16: ir.HalfType(), 32: ir.FloatType(), 64: ir.DoubleType()}


def ptr(t, addrspace=0):
    return ir.PointerType(t, addrspace)


def const_int(value, bits=64):
    return ir.Constant(ir.IntType(bits), value)


def value_type(t):
    """LLVM type of a value of cudalite type ``t`` in registers."""
    if isinstance(t, Boolean):
        return I1
    if isinstance(t, Integer):
        return ir.IntType(t.bitwidth)
    if isinstance(t, Float):
        return _FLOATS[t.bitwidth]
    if isinstance(t, Complex):
        f = _FLOATS[t.underlying.bitwidth]
        return ir.LiteralStructType([f, f])
    if isinstance(t, Tuple):
        if len(t.types) > 1 and t.is_uniform:
            return ir.ArrayType(value_type(t.types[0]), len(t.types))
        return ir.LiteralStructType([value_type(i) for i in t.types])
    if isinstance(t, Array):
        return ir.LiteralStructType([
            ptr(memory_type(t.dtype)), ir.ArrayType(I64, t.ndim), ir.ArrayType(I64, t.ndim),
        ])
    if isinstance(t, CPointer):
        return ptr(memory_type(t.dtype), t.addrspace)
    if isinstance(t, Record):
        return ptr(I8)
    if isinstance(t, SliceType):
        return ir.LiteralStructType([I64, I64, I64])
    if isinstance(t, VectorType):
        return ir.LiteralStructType([value_type(t.base_type)] * t.count)
    if isinstance(t, NoneType):
        return EMPTY
    return EMPTY


def memory_type(t):
    """LLVM type of ``t`` stored in memory (array elements, globals)."""
    if isinstance(t, Boolean):
        return I8
    if isinstance(t, Record):
        return ir.ArrayType(I8, t.size)
    return value_type(t)


_NAMED = {"half": _FLOATS[16], "float": _FLOATS[32], "double": _FLOATS[64], "void": ir.VoidType()}
_TOKEN = re.compile(r"\s*(addrspace\((\d+)\)|i\d+|half|float|double|void|\d+|x|[{}\[\],*])")


def type_from_text(text: str):
    """The llvmlite type whose IR text is ``text`` (integers, half/float/double,
    literal structs, arrays, pointers with address spaces); ``str()`` of the result
    is ``text`` again.  ValueError for anything else."""
    tokens, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or not m.group(1):
            raise ValueError(f"not an LLVM type: {text!r}")
        tokens.append(m.group(1))
        pos = m.end()
    ty, end = _parse_type(tokens, 0, text)
    if end != len(tokens) or str(ty) != text:
        raise ValueError(f"not an LLVM type: {text!r}")
    return ty


def _parse_type(tokens, k, text):
    def expect(k, tok):
        if k >= len(tokens) or tokens[k] != tok:
            raise ValueError(f"not an LLVM type: {text!r}")
        return k + 1

    if k >= len(tokens):
        raise ValueError(f"not an LLVM type: {text!r}")
    tok = tokens[k]
    if tok in _NAMED:
        ty, k = _NAMED[tok], k + 1
    elif tok[0] == "i" and tok[1:].isdigit():
        ty, k = ir.IntType(int(tok[1:])), k + 1
    elif tok == "{":
        elems, k = [], k + 1
        if k < len(tokens) and tokens[k] == "}":
            k += 1
        else:
            while True:
                elem, k = _parse_type(tokens, k, text)
                elems.append(elem)
                if k < len(tokens) and tokens[k] == ",":
                    k += 1
                    continue
                k = expect(k, "}")
                break
        ty = ir.LiteralStructType(elems)
    elif tok == "[":
        if k + 1 >= len(tokens) or not tokens[k + 1].isdigit():
            raise ValueError(f"not an LLVM type: {text!r}")
        count = int(tokens[k + 1])
        k = expect(k + 2, "x")
        elem, k = _parse_type(tokens, k, text)
        k = expect(k, "]")
        ty = ir.ArrayType(elem, count)
    else:
        raise ValueError(f"not an LLVM type: {text!r}")
    while k < len(tokens) and (tokens[k] == "*" or tokens[k].startswith("addrspace")):
        space = 0
        if tokens[k].startswith("addrspace"):
            space = int(tokens[k][len("addrspace("):-1])
            k += 1
        k = expect(k, "*")
        ty = ir.PointerType(ty, space)
    return ty, k
