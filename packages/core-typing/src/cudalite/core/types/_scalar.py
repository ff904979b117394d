"""Scalar types: booleans, integers, floats (incl. float16), bfloat16, complex, void and none."""

from __future__ import annotations

import math
import sys

from ._base import Type

__all__ = [
    "Boolean", "Integer", "Float", "BFloat16", "Complex", "NoneType", "Void",
    "boolean", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "bfloat16", "float16", "float32", "float64", "complex64", "complex128", "void",
    "none", "intp", "uintp", "integer_types", "float_types", "complex_types",
    "number_types", "INTEGER_BY_NAME", "bfloat16_bits",
]


class _Number(Type):
    __slots__ = ("bitwidth",)

    @property
    def is_scalar(self) -> bool:
        return True

    def __getitem__(self, spec):
        from ._containers import array_from_subscript

        return array_from_subscript(self, spec)

    def __call__(self, *args):
        """``int32(float32, float32)`` builds a signature; ``int16(500)`` (a number, as
        numba's types in host code) converts the value: a NumPy scalar of this type
        (``bool`` for ``boolean``)."""
        if len(args) == 1 and _is_number_value(args[0]):
            return self.cast_python_value(args[0])
        return super().__call__(*args)

    def cast_python_value(self, value):
        if isinstance(self, Boolean):
            return bool(value)
        if isinstance(self, BFloat16):  # ml_dtypes' scalar, when the program imported ml_dtypes
            ml_dtypes = sys.modules.get("ml_dtypes")
            if ml_dtypes is None:
                raise TypeError("bfloat16(value) on the host makes an ml_dtypes.bfloat16: import ml_dtypes first")
            return ml_dtypes.bfloat16(value)
        from ..numpy_support import numpy

        return getattr(numpy(), self.name)(value)


def _is_number_value(a) -> bool:
    """A number (not a type, class, string or dtype): ``5``, ``2.5``, an ``IntEnum``
    member, a NumPy scalar."""
    if isinstance(a, (bool, int, float, complex)):
        return True
    from ..numpy_support import loaded, numpy

    return loaded() and isinstance(a, numpy().generic)


class Boolean(_Number):
    __slots__ = ()

    def __init__(self):
        super().__init__("bool", "bool")
        self.bitwidth = 1


class Integer(_Number):
    __slots__ = ("signed",)

    def __init__(self, bitwidth: int, signed: bool):
        name = f"{'int' if signed else 'uint'}{bitwidth}"
        super().__init__((bitwidth, signed), name)
        self.bitwidth = bitwidth
        self.signed = signed

    @property
    def minval(self) -> int:
        return -(1 << (self.bitwidth - 1)) if self.signed else 0

    @property
    def maxval(self) -> int:
        return (1 << (self.bitwidth - (1 if self.signed else 0))) - 1


class Float(_Number):
    __slots__ = ()

    def __init__(self, bitwidth: int):
        super().__init__(bitwidth, f"float{bitwidth}")
        self.bitwidth = bitwidth


class BFloat16(_Number):
    """bfloat16 (``numba.cuda.bf16.bfloat16``): 1 sign, 8 exponent, 7 mantissa bits.

    Not a :class:`Float`: the float rules (promotion, ``fadd``...) do not apply; its
    own rules (``cudalite.core.typing.rules.bf16``) convert it to and from numbers and
    compute through float32.  Its NumPy dtype is ``ml_dtypes.bfloat16``."""

    __slots__ = ()

    def __init__(self):
        super().__init__("bfloat16", "bfloat16")
        self.bitwidth = 16


def bfloat16_bits(value) -> int:
    """The 16 bits of ``value`` (any real number, e.g. an ``ml_dtypes.bfloat16``
    scalar) rounded once to bfloat16, to nearest even; NaN -> ``0x7fff``."""
    x = float(value)
    if math.isnan(x):
        return 0x7FFF
    sign = 0x8000 if math.copysign(1.0, x) < 0 else 0
    x = abs(x)
    if x == 0.0:
        return sign
    if math.isinf(x):
        return sign | 0x7F80
    exp = max(math.frexp(x)[1] - 1, -126)  # subnormals share the smallest exponent
    r = round(math.ldexp(x, 7 - exp))  # 8 significant bits, ties to even (exact)
    return sign | min(((exp + 127) << 7) + r - 128, 0x7F80)


class Complex(_Number):
    __slots__ = ("underlying",)

    def __init__(self, bitwidth: int, underlying: Float):
        super().__init__(bitwidth, f"complex{bitwidth}")
        self.bitwidth = bitwidth
        self.underlying = underlying

    @property
    def underlying_float(self) -> Float:
        """numba's name for the component type (``complex128 -> float64``)."""
        return self.underlying


class NoneType(Type):
    __slots__ = ()

    def __init__(self, name="none"):
        super().__init__(name, name)


class Void(NoneType):
    """The return type of kernels and procedures (``types.void``).  It equals
    ``none`` (numba's ``types.void`` *is* ``types.none``): a device function with no
    ``return`` value compiles to ``none`` either way; only the name differs."""

    __slots__ = ()

    def __init__(self):
        super().__init__("void")
        self._key = ("NoneType", "none")


boolean = Boolean()
int8, int16, int32, int64 = (Integer(b, True) for b in (8, 16, 32, 64))
uint8, uint16, uint32, uint64 = (Integer(b, False) for b in (8, 16, 32, 64))
float16, float32, float64 = Float(16), Float(32), Float(64)
bfloat16 = BFloat16()
complex64, complex128 = Complex(64, float32), Complex(128, float64)
void = Void()
none = NoneType()
intp, uintp = int64, uint64

integer_types = (int8, int16, int32, int64, uint8, uint16, uint32, uint64)
float_types = (float16, float32, float64)
complex_types = (complex64, complex128)
number_types = integer_types + float_types + complex_types

INTEGER_BY_NAME = {t.name: t for t in integer_types}
