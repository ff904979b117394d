"""Argument kinds of values without a device: numbers, datetimes, enum members.

A number is converted to its parameter as numba converts it -- integers wrapped to
the parameter's width (C's modular conversion: ``0xFFFFFFFF`` for an int32 parameter
is -1), bool as 0/1, complex as its real and imaginary halves, bfloat16 and fp8 as
their bits -- by one expression per parameter (:meth:`NumberKind.source`), which the
generated launcher inlines and the slow path compiles.
"""

from __future__ import annotations

import enum
import functools
import struct

from cudalite.core.abi import Role
from cudalite.core.numpy_support import lazy_numpy as np
from cudalite.core.types import BFloat16, Fp8, bfloat16_bits, fp8_bits, type_from_dtype

from .keys import SCALAR_CLASSES
from .kinds import ArgKind

__all__ = ["NumberKind", "DateTimeKind", "IntEnumKind", "EnumMemberKind", "KINDS"]

_INT_CODES = frozenset("bBhHiIlLqQnN")  # struct codes of integer parameters


@functools.lru_cache(maxsize=None)  # a handful of format codes
def _int_wrap(code):
    """``(half, mask)`` of the integer parameter ``code``: an int becomes the parameter's
    value with ``((v + half) & mask) - half`` (signed; ``half`` 0: unsigned)."""
    bits = 8 * struct.calcsize("@" + code)
    return (1 << (bits - 1)) if code.islower() else 0, (1 << bits) - 1


class _NoDevice:
    """Mixin of the kinds of values that have no device."""

    def device_guard(self, i, a, ns):
        return None


class NumberKind(_NoDevice, ArgKind):
    """Python and NumPy numbers (bool, int, float, complex, every NumPy scalar type
    with a cudalite type): keyed by their class."""

    order = 20

    @classmethod
    def recognise(cls, pycls, sample):
        return pycls in SCALAR_CLASSES or (issubclass(pycls, np.generic) and not issubclass(pycls, np.void)
                                           and not issubclass(pycls, (np.datetime64, np.timedelta64)))

    @classmethod
    def make(cls, pycls, sample, resolve):
        if pycls not in SCALAR_CLASSES and type_from_dtype(pycls) is None:
            raise TypeError(f"a {pycls.__name__} scalar cannot be passed to a kernel")
        return cls(pycls)

    def __init__(self, cls):
        self.cls = cls

    def key(self, arg):
        return self.cls

    def source(self, i, a, spec, key, ns):
        """The one conversion of a number to its parameter ``spec``."""
        ns[f"C{i}"] = self.cls
        first = spec.slots[0]
        if first.role is Role.REAL:
            val = f"{a}.real, {a}.imag" if self.cls is not bool else f"(1.0 if {a} else 0.0), 0.0"
        elif isinstance(spec.type, BFloat16):
            ns[f"B{i}"] = bfloat16_bits
            val = f"B{i}({a})"
        elif isinstance(spec.type, Fp8):
            ns[f"B{i}"], ns[f"T{i}"] = fp8_bits, spec.type
            val = f"B{i}({a}, T{i})"
        elif first.role is Role.BOOL or self.cls is bool or issubclass(self.cls, np.bool_):
            val = f"(1 if {a} else 0)"
        elif first.code in _INT_CODES:  # wrapped to the parameter's width, as numba converts
            half, mask = _int_wrap(first.code)
            v = f"int({a})" if not issubclass(self.cls, int) or issubclass(self.cls, np.generic) else a
            val = f"((({v} + {half}) & {mask}) - {half})" if half else f"({v} & {mask})"
        else:  # a float parameter: struct packs any real number (its __float__)
            val = a
        return f"type({a}) is C{i}", [], val

    def checked(self, spec, key):
        """The number as it is, checked and converted by the driver's checked launch --
        the conversions of :meth:`source` with one parameter slot: an integer wrapped
        to the parameter's width (``"wrap"``), a bool as 0/1 (``"truth"``), a float as
        struct packs it; None for complex, bfloat16 and fp8 (:meth:`source`)."""
        first = spec.slots[0]
        if spec.count != 1 or first.role is Role.REAL or isinstance(spec.type, (BFloat16, Fp8)):
            return None
        if first.role is Role.BOOL or self.cls is bool or issubclass(self.cls, np.bool_):
            mode = "truth"
        elif first.code in _INT_CODES:
            mode = "wrap"
        elif first.code in ("f", "d", "e"):
            mode = "struct"
        else:
            return None
        if mode != "struct" and first.code not in _INT_CODES and first.code != "?":
            return None
        return ((self.cls, mode),)


class DateTimeKind(_NoDevice, ArgKind):
    """A ``numpy.datetime64`` / ``timedelta64`` scalar: keyed by its dtype (the unit is
    part of the type), passed as its int64 value (NaT: the smallest int64)."""

    order = 10

    @classmethod
    def recognise(cls, pycls, sample):
        return issubclass(pycls, (np.datetime64, np.timedelta64))

    @classmethod
    def make(cls, pycls, sample, resolve):
        return cls(pycls)

    def __init__(self, cls):
        self.cls = cls

    def key(self, arg):
        return arg.dtype

    def source(self, i, a, spec, key, ns):
        ns[f"C{i}"], ns[f"K{i}"], ns["INT64"] = self.cls, key, np.int64
        return f"type({a}) is C{i} and {a}.dtype == K{i}", [], f"int({a}.view(INT64))"


class IntEnumKind(NumberKind):
    """An ``IntEnum`` member: passed as the int it is (numba's ``IntEnumMember``)."""

    order = 30

    @classmethod
    def recognise(cls, pycls, sample):
        return issubclass(pycls, int) and issubclass(pycls, enum.Enum)

    @classmethod
    def make(cls, pycls, sample, resolve):
        return cls(pycls)

    def key(self, arg):
        return int


class EnumMemberKind(_NoDevice, ArgKind):
    """A plain ``Enum`` member: the kernel is specialized on the member, a compile-time
    constant in device code as a global member is (its type key is the member), so it
    takes no parameter slots; numba passes the member's value instead, with the same
    results for what device code can do with a member (compare it)."""

    order = 40

    @classmethod
    def recognise(cls, pycls, sample):
        return issubclass(pycls, enum.Enum)

    def key(self, arg):
        return arg

    def source(self, i, a, spec, key, ns):
        ns[f"K{i}"] = key
        return f"{a} is K{i}", [], ""


KINDS = (DateTimeKind, NumberKind, IntEnumKind, EnumMemberKind)
