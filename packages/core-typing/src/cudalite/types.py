"""Public type names, as in ``numba.types``: ``from cudalite import types``.

A facade over :mod:`cudalite.core.types`; scalar names (``int32``, ``float32``...),
``void``, ``CPointer``, ``UniTuple``, ``Tuple``, ``Array``, ``Record`` and aliases
such as ``b1``, ``i4``, ``f8``, ``intp``; ``from_dtype`` (a NumPy dtype -> its type).
"""

from cudalite.core.types import (  # noqa: F401
    TYPE_NAMES as _NAMES, Array, CPointer, NestedArray, Record, Signature, Tuple, Type, UniTuple, from_dtype,
    bfloat16, boolean, complex64, complex128, float16, float32, float64, int8, int16, int32,
    int64, intp, none, uint8, uint16, uint32, uint64, uintp, void,
)

bool_ = boolean
b1 = boolean
i1, i2, i4, i8 = int8, int16, int32, int64
u1, u2, u4, u8 = uint8, uint16, uint32, uint64
f2, f4, f8 = float16, float32, float64
c8, c16 = complex64, complex128
byte = uint8
intc, uintc = int32, uint32
half = float16
float_ = float32  # numba's alias (not NumPy's float_)
double = float64

# ``bool`` is a signature-string name only: exporting it would shadow the builtin
__all__ = sorted((set(_NAMES) | {
    "Array", "CPointer", "NestedArray", "Record", "Signature", "Tuple", "Type", "UniTuple",
    "bool_", "b1", "half", "double", "from_dtype",
}) - {"bool"})
