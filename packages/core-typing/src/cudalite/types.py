"""Public type names, as in ``numba.types``: ``from cudalite import types``.

A facade over :mod:`cudalite.core.types`; scalar names (``int32``, ``float32``...),
``void``, ``voidptr``, ``CPointer``, ``UniTuple``, ``Tuple``, ``Array``, ``Record`` and aliases
such as ``b1``, ``i4``, ``f8``, ``intp``; ``from_dtype`` (a NumPy dtype -> its type),
``as_dtype`` (a type -> its NumPy dtype) and ``signature(return_type, *args)``.
"""

from __future__ import annotations

import typing as _typing

from cudalite.core.types import (  # noqa: F401
    TYPE_NAMES as _NAMES, Array, CPointer, NestedArray, Record, Signature, Tuple, Type, UniTuple, from_dtype,
    bfloat16, boolean, complex64, complex128, float16, float32, float64, fp8_e4m3, fp8_e5m2, fp8_e8m0, int8, int16,
    int32, int64, intp, none, uint8, uint16, uint32, uint64, uintp, void, voidptr,
)
from cudalite.core.types import BFloat16 as _BFloat16, Fp8 as _Fp8
from cudalite.core.types import Boolean as _Boolean, Complex as _Complex, Float as _Float, Integer as _Integer
from cudalite.core.types import dtype_of as _dtype_of

if _typing.TYPE_CHECKING:  # annotations only
    import numpy as _np
# numba's type classes, for extension code (``isinstance(x, types.Float)``, lower_builtin patterns)
from cudalite.core.types import (  # noqa: F401
    Any, BFloat16, Boolean, BoundFunction, Complex, Dummy, EnumMember, Float, Function, Integer, Literal, NamedTuple,
    NoneType, Number,
    VarArg,
)
from cudalite.core.types import Tuple as BaseTuple  # noqa: F401  (numba's base of Tuple and UniTuple)
from cudalite.core.types import ExtOpaque as Opaque  # noqa: F401  (numba's types.Opaque, for extension types)

bool_ = boolean
b1 = boolean
i1, i2, i4, i8 = int8, int16, int32, int64
u1, u2, u4, u8 = uint8, uint16, uint32, uint64
f2, f4, f8 = float16, float32, float64
c8, c16 = complex64, complex128
byte = uint8
intc, uintc = int32, uint32
# numba's C-name aliases (LP64: long is 64 bits)
char, uchar = int8, uint8
short, ushort = int16, uint16
int_, uint = int64, uint64
long_, ulong = int64, uint64
longlong, ulonglong = int64, uint64
# numba's type sets
signed_domain = frozenset([int8, int16, int32, int64])
unsigned_domain = frozenset([uint8, uint16, uint32, uint64])
integer_domain = signed_domain | unsigned_domain
real_domain = frozenset([float32, float64])
complex_domain = frozenset([complex64, complex128])
number_domain = real_domain | integer_domain | complex_domain
half = float16
float_ = float32  # numba's alias (not NumPy's float_)
double = float64



def signature(return_type: Type, *args: Type) -> Signature:
    """numba's ``signature(return_type, *argtypes)``: the same as ``return_type(*argtypes)``."""
    for t in (return_type, *args):
        if not isinstance(t, Type):
            raise TypeError(f"signature() takes cudalite types, not {t!r}")
    return Signature(return_type, args)


def as_dtype(t: Type) -> _np.dtype:
    """numba's ``as_dtype``: the NumPy dtype of a scalar or record type (``float32`` ->
    ``dtype('float32')``).  ``NotImplementedError`` naming the type for a type with no
    NumPy dtype (arrays, tuples, ``void``...)."""
    if isinstance(t, Record) or isinstance(t, (_Boolean, _Integer, _Float, _Complex, _BFloat16, _Fp8)):
        return _dtype_of(t)
    if not isinstance(t, Type):
        raise TypeError(f"as_dtype() takes a cudalite type, not {t!r}")
    raise NotImplementedError(f"{t} cannot be represented as a NumPy dtype")


# ``bool`` is a signature-string name only: exporting it would shadow the builtin
__all__ = sorted((set(_NAMES) | {
    "Array", "CPointer", "NestedArray", "Record", "Signature", "Tuple", "Type", "UniTuple",
    "bool_", "b1", "half", "double", "from_dtype", "as_dtype", "signature",
    "char", "uchar", "short", "ushort", "int_", "uint", "long_", "ulong", "longlong", "ulonglong",
    "Any", "BFloat16", "BaseTuple", "Boolean", "BoundFunction", "Complex", "Dummy", "EnumMember", "Float", "Function",
    "Integer",
    "Literal",
    "NamedTuple",
    "NoneType", "Number", "Opaque", "VarArg",
    "signed_domain", "unsigned_domain", "integer_domain", "real_domain", "complex_domain", "number_domain",
}) - {"bool"})
