"""Signature parsing: ``"float32(float32, float32)"``, ``"void(float32[:], int32)"``,
type objects, ``Signature`` objects and tuples of argument types."""

from __future__ import annotations

import ast

from ..errors import SignatureError
from . import _fp8 as F, _scalar as S
from ._base import Signature, Type
from ._containers import CPointer, Tuple, UniTuple
from ._vector import vector_type_named

__all__ = ["as_type", "parse_signature", "parse_type", "TYPE_NAMES"]

# numba's ``types.voidptr``: a pointer to untyped memory (``void*``, ``i8*`` in NVVM IR).
# It cannot be indexed; ``cuda.carray(p, shape, dtype)`` views the memory as an array of
# ``dtype``, and any ``CPointer(T)`` converts to it.
voidptr = CPointer(S.void)

TYPE_NAMES = {
    "bool": S.boolean, "boolean": S.boolean, "b1": S.boolean, "bool_": S.boolean,
    "int8": S.int8, "int16": S.int16, "int32": S.int32, "int64": S.int64,
    "uint8": S.uint8, "uint16": S.uint16, "uint32": S.uint32, "uint64": S.uint64,
    "i1": S.int8, "i2": S.int16, "i4": S.int32, "i8": S.int64,
    "u1": S.uint8, "u2": S.uint16, "u4": S.uint32, "u8": S.uint64,
    "byte": S.uint8, "intp": S.intp, "uintp": S.uintp, "intc": S.int32, "uintc": S.uint32,
    "float16": S.float16, "float32": S.float32, "float64": S.float64,
    "f2": S.float16, "f4": S.float32, "f8": S.float64, "half": S.float16,
    "float_": S.float32, "double": S.float64, "bfloat16": S.bfloat16,
    "fp8_e4m3": F.fp8_e4m3, "fp8_e5m2": F.fp8_e5m2, "fp8_e8m0": F.fp8_e8m0,
    "complex64": S.complex64, "complex128": S.complex128, "c8": S.complex64, "c16": S.complex128,
    "void": S.void, "none": S.none, "voidptr": voidptr,
}

def _tuple_type(*items):
    """``Tuple((int32, float32))`` (numba's spelling) or ``Tuple(int32, float32)``."""
    if len(items) == 1 and isinstance(items[0], tuple):
        items = items[0]
    return Tuple(as_type(t) for t in items)


_CALLABLES = {"CPointer": CPointer, "UniTuple": UniTuple, "Tuple": _tuple_type}


_NONE_HINT = ("None is not a type (NumPy would read it as float64); a parameter needs a type such as "
              "float32, and a function that returns nothing is declared void(...)")


def as_type(obj) -> Type:
    """Accept a cudalite type, a type name string, or a NumPy dtype/scalar class
    (never ``None``: NumPy's ``dtype(None)`` is float64, which is never what is meant)."""
    if isinstance(obj, Type):
        return obj
    if obj is None:
        raise SignatureError(_NONE_HINT)
    if isinstance(obj, str):
        return parse_type(obj)
    vector = getattr(obj, "vector_type", None)  # a vector type's constructor (cuda.float32x4)
    if isinstance(vector, Type):
        return vector
    from ._typeof import type_from_dtype

    t = type_from_dtype(obj)
    if t is None:
        raise SignatureError(f"{obj!r} is not a type")
    return t


def parse_type(text: str) -> Type:
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError) as e:  # ValueError: a NUL byte (Python < 3.11.4)
        raise SignatureError(f"cannot parse type {text!r}: {getattr(e, 'msg', e)}") from None
    t = _eval_checked(node, text)
    if not isinstance(t, Type):
        raise SignatureError(f"{text!r} is not a type")
    return t


def _eval_checked(node, text):
    """``_eval`` with the type constructors' own errors (a bad array spec such as
    ``float32[::2]``, 9 dimensions, calling a non-type) turned into SignatureError."""
    try:
        return _eval(node, text)
    except SignatureError:
        raise
    except (TypeError, ValueError) as e:
        raise SignatureError(f"invalid type in signature {text!r}: {e}") from None


def parse_signature(sig) -> tuple[Type | None, tuple[Type, ...]]:
    """Normalise any accepted signature form to ``(return_type or None, argtypes)``."""
    if isinstance(sig, Signature):
        return sig.return_type, _arg_types(sig.args, sig)
    if isinstance(sig, str):
        try:
            node = ast.parse(sig.strip(), mode="eval").body
        except (SyntaxError, ValueError) as e:  # ValueError: a NUL byte (Python < 3.11.4)
            raise SignatureError(f"cannot parse signature {sig!r}: {getattr(e, 'msg', e)}") from None
        if isinstance(node, ast.Tuple):  # '(int32, float32)': argument types only
            for i, e in enumerate(node.elts, 1):
                if _is_none(e):
                    raise SignatureError(f"argument {i} of signature {sig!r} is None: {_NONE_HINT}")
        val = _eval_checked(node, sig)
        if isinstance(val, Signature):
            return val.return_type, val.args
        if isinstance(val, tuple):
            return None, _arg_types(val, sig)
        raise SignatureError(
            f"signature {sig!r} must look like 'rettype(argtypes...)', e.g. 'float32(float32, float32)'"
        )
    if isinstance(sig, (tuple, list)):
        return None, _arg_types(sig, sig)
    if isinstance(sig, Type):
        raise SignatureError(
            f"{sig} is a type, not a signature; write {sig}(argtypes...) or a tuple of argument types"
        )
    raise SignatureError(f"cannot use {sig!r} as a signature")


def _arg_types(items, sig) -> tuple:
    """The argument types of a sequence signature; a ``None`` item is refused by position."""
    out = []
    for i, a in enumerate(items, 1):
        if a is None:
            raise SignatureError(f"argument {i} of signature {sig!r} is None: {_NONE_HINT}")
        out.append(as_type(a))
    return tuple(out)


def _is_none(node) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _eval(node, text):
    if isinstance(node, ast.Name):
        if node.id in TYPE_NAMES:
            return TYPE_NAMES[node.id]
        if node.id in _CALLABLES:
            return _CALLABLES[node.id]
        vector = vector_type_named(node.id)  # float32x4, float4 ...
        if vector is not None:
            return vector
        raise SignatureError(f"unknown type name {node.id!r} in {text!r}")
    if isinstance(node, ast.Attribute):  # types.float32, np.float32, nb.types.int32
        return _eval(ast.Name(id=node.attr), text)
    if isinstance(node, ast.Call):
        if _is_none(node.func):
            raise SignatureError(f"the return type in signature {text!r} is None: write void(...) "
                                 "for a function that returns nothing")
        fn = _eval(node.func, text)
        for i, a in enumerate(node.args, 1):
            if _is_none(a):
                where = (f"argument {i} of signature {text!r}" if isinstance(fn, Type)
                         else f"item {i} of {ast.unparse(node)!r} in signature {text!r}")
                raise SignatureError(f"{where} is None: {_NONE_HINT}")
        args = [_eval(a, text) for a in node.args]
        if node.keywords:
            raise SignatureError(f"keyword arguments are not allowed in signature {text!r}")
        if isinstance(fn, Type):
            return fn(*args)
        return fn(*args)
    if isinstance(node, ast.Subscript):
        base = _eval(node.value, text)
        return base[_eval_slice(node.slice, text)]
    if isinstance(node, ast.Tuple):
        for i, e in enumerate(node.elts, 1):
            if _is_none(e):
                raise SignatureError(f"item {i} of {ast.unparse(node)!r} in signature {text!r} is None: "
                                     f"{_NONE_HINT}")
        return tuple(_eval(e, text) for e in node.elts)
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    raise SignatureError(f"cannot parse {ast.unparse(node)!r} in signature {text!r}")


def _eval_slice(node, text):
    if isinstance(node, ast.Tuple):
        return tuple(_eval_slice(e, text) for e in node.elts)
    if isinstance(node, ast.Slice):
        parts = [None if p is None else _eval(p, text) for p in (node.lower, node.upper, node.step)]
        return slice(*parts)
    return _eval(node, text)
