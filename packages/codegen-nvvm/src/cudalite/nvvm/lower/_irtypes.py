"""The NVVM IR dialect in one place: cudalite types -> llvmlite IR types.

libNVVM reads LLVM 7 text with typed pointers, so pointers are built with
``ir.PointerType(elem, addrspace)``; nothing here loads a native library.

Value representations:

* bool -> ``i1`` in registers, ``i8`` in memory and kernel parameters
* intN -> ``iN``; float16/32/64 -> ``half``/``float``/``double``
* complex -> ``{float, float}`` / ``{double, double}``
* tuple -> a literal struct of its items; a uniform tuple of two or more items
  (``UniTuple``) -> an array ``[n x T]`` (as numba's data model: its IR text stays
  short however many items it has, so a large tuple makes linear-size IR); a
  heterogeneous tuple of ``NAMED_TUPLE_MIN`` or more items -> an identified struct
  ``%tuple.<hash of its body>`` (a literal struct is spelled out in full in every
  instruction that uses it: quadratic IR).  Identified types live in a private
  context; :func:`declare_identified` declares the ones a module uses.
* array -> ``{T* data, [n x i64] shape, [n x i64] strides}`` (strides in bytes)
* record -> ``i8*`` pointing at the record (records have reference semantics)
* vector type (``float32x4``) -> ``{float, float, float, float}`` (foreign calls use a
  named struct of CUDA C's alignment: ``lower/_vectors.py``)
* CPointer(T) -> ``T*``; compile-time objects -> ``{}`` (no runtime value)
* an extension type -> what its data model says (``cudalite.nvvm.extending.models``)

:func:`type_from_text` reads the IR text of a type (as printed by llvmlite) back into
an llvmlite type: the kernel ABI (:mod:`cudalite.core.abi`) spells parameter types
as text, since core does not import llvmlite.
"""

from __future__ import annotations

import functools
import hashlib
import re

from llvmlite import ir

from cudalite.core.datamodel import data_models
from cudalite.core.types import (
    Array, ArrayCTypes, BFloat16, BFloat16Raw, Boolean, CharSeq, Complex, CPointer, Float, Fp8, Integer, NoneType,
    Record, SliceType, Tuple, UnicodeCharSeq, VectorType,
)

__all__ = [
    "value_type", "memory_type", "EMPTY", "I1", "I8", "I32", "I64", "ptr", "const_int",
    "DATA_LAYOUT", "TRIPLE", "ADDRSPACE_GENERIC", "ADDRSPACE_GLOBAL", "ADDRSPACE_SHARED",
    "ADDRSPACE_CONST", "ADDRSPACE_LOCAL", "type_from_text", "declare_identified", "NAMED_TUPLE_MIN",
]

TRIPLE = "nvptx64-nvidia-cuda"
DATA_LAYOUT = (
    "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-"
    "f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
)
ADDRSPACE_GENERIC, ADDRSPACE_GLOBAL, ADDRSPACE_SHARED, ADDRSPACE_CONST, ADDRSPACE_LOCAL = 0, 1, 3, 4, 5

I1, I8, I32, I64 = ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64)
EMPTY = ir.LiteralStructType([])
NAMED_TUPLE_MIN = 16
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
    if isinstance(t, BFloat16):
        return ir.IntType(16)  # libNVVM's IR has no ``bfloat``: its bits
    if isinstance(t, Fp8):
        return ir.IntType(8)  # nor 8-bit floats: their byte
    if isinstance(t, BFloat16Raw):
        return ir.IntType(16)
    if isinstance(t, Complex):
        f = _FLOATS[t.underlying.bitwidth]
        return ir.LiteralStructType([f, f])
    if isinstance(t, Tuple):
        return _tuple_value_type(t)
    if isinstance(t, Array):
        return ir.LiteralStructType([
            ptr(memory_type(t.dtype)), ir.ArrayType(I64, t.ndim), ir.ArrayType(I64, t.ndim),
        ])
    if isinstance(t, CPointer):  # voidptr (a pointer to none/void) is i8*, as C's void*
        return ptr(I8 if isinstance(t.dtype, NoneType) else memory_type(t.dtype), t.addrspace)
    if isinstance(t, Record):
        return ptr(I8)
    if isinstance(t, ArrayCTypes):  # arr.ctypes: the data address
        return I64
    if isinstance(t, (CharSeq, UnicodeCharSeq)):  # S<n> / U<n>: bytes / UCS-4 code points
        return ir.ArrayType(ir.IntType(t.bitwidth // t.count), t.count)
    if isinstance(t, SliceType):
        return ir.LiteralStructType([I64, I64, I64])
    if isinstance(t, VectorType):
        return ir.LiteralStructType([value_type(t.base_type)] * t.count)
    if isinstance(t, NoneType):
        return EMPTY
    model = data_models.lookup(t)  # an extension type: its registered data model
    if model is not None:
        return model.get_value_type()
    return EMPTY


@functools.lru_cache(maxsize=4096)
def _tuple_value_type(t):
    """A tuple's LLVM type, one object per tuple type: nested tuples are then built
    once per level (linear in the depth; llvmlite caches each type's text too)."""
    if len(t.types) > 1 and t.is_uniform:
        return ir.ArrayType(value_type(t.types[0]), len(t.types))
    elems = tuple(value_type(i) for i in t.types)
    if len(elems) >= NAMED_TUPLE_MIN:
        return _named_struct(elems)
    return ir.LiteralStructType(elems)


@functools.lru_cache(maxsize=1024)
def _named_struct(elems: tuple) -> ir.IdentifiedStructType:
    """The identified struct type of these elements: one object per body, named by
    a hash of the body's text (so equal bodies are the same type in any module)."""
    body = str(ir.LiteralStructType(elems))
    ty = ir.IdentifiedStructType(ir.Context(), "tuple." + hashlib.sha256(body.encode()).hexdigest()[:16])
    ty.set_body(*elems)
    return ty


def declare_identified(module: ir.Module) -> None:
    """Declare in ``module`` (which must have its own ``ir.Context``) every identified
    struct type its globals, functions and instructions use, nested ones included."""
    found, seen = {}, set()

    def visit(ty):
        if id(ty) in seen:
            return
        seen.add(id(ty))
        if isinstance(ty, ir.IdentifiedStructType):
            found[ty.name] = ty
            for e in ty.elements or ():
                visit(e)
        elif isinstance(ty, ir.PointerType):
            visit(ty.pointee)
        elif isinstance(ty, (ir.ArrayType, ir.VectorType)):
            visit(ty.element)
        elif isinstance(ty, ir.LiteralStructType):
            for e in ty.elements:
                visit(e)
        elif isinstance(ty, ir.FunctionType):
            visit(ty.return_type)
            for a in ty.args:
                visit(a)

    for gv in module.global_values:
        visit(gv.type)
        for block in getattr(gv, "blocks", ()):
            for instr in block.instructions:
                visit(instr.type)
                for op in getattr(instr, "operands", ()):
                    visit(getattr(op, "type", None))
    known = module.context.identified_types
    for name, ty in sorted(found.items()):
        known.setdefault(name, ty)


def memory_type(t):
    """LLVM type of ``t`` stored in memory (array elements, globals)."""
    if isinstance(t, Boolean):
        return I8
    if isinstance(t, Record):
        return ir.ArrayType(I8, t.size)
    if type(t).__module__.startswith("cudalite.core."):
        return value_type(t)
    model = data_models.lookup(t)
    return model.get_data_type() if model is not None else value_type(t)


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
