"""NumPy's fixed-width string and date/time dtypes as cudalite types (numba's names).

* :class:`CharSeq` (``S<n>``: ``n`` bytes) and :class:`UnicodeCharSeq` (``U<n>``: ``n``
  UCS-4 code points, 4 bytes each): elements of arrays and record fields; a
  constant ``str`` / ``bytes`` is stored into them zero-padded (truncated when
  longer), as NumPy does.  In registers a value is ``[n x i8]`` / ``[n x i32]``.
* :class:`NPDatetime` (``datetime64[unit]``) and :class:`NPTimedelta`
  (``timedelta64[unit]``): 64-bit signed integers underneath (they subclass
  :class:`Integer` for their representation: ABI, loads, stores, kernel
  parameters), with their own typing rules (``typing/rules/datetimes.py``): no
  implicit conversion to or from numbers.

``numpy_dtype`` is the dtype string of each (``dtype_of`` uses it).
"""

from __future__ import annotations

from ._base import Type
from ._scalar import Integer

__all__ = ["BytesLiteral", "CharSeq", "UnicodeCharSeq", "NPDatetime", "NPTimedelta", "DATETIME_UNITS"]

DATETIME_UNITS = ("Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", "")


class BytesLiteral(Type):
    """A compile-time ``bytes`` constant (stored into ``S<n>`` elements)."""

    __slots__ = ("value",)

    def __init__(self, value: bytes):
        super().__init__(value, "bytes")
        self.value = value


class CharSeq(Type):
    """``count`` bytes (NumPy ``S<count>``)."""

    __slots__ = ("count", "bitwidth")

    def __init__(self, count: int):
        super().__init__(count, f"[char x {count}]")
        self.count, self.bitwidth = count, 8 * count

    @property
    def numpy_dtype(self) -> str:
        return f"S{self.count}"

    @property
    def is_scalar(self) -> bool:
        return True


class UnicodeCharSeq(Type):
    """``count`` UCS-4 code points (NumPy ``U<count>``)."""

    __slots__ = ("count", "bitwidth")

    def __init__(self, count: int):
        super().__init__(count, f"[unichr x {count}]")
        self.count, self.bitwidth = count, 32 * count

    @property
    def numpy_dtype(self) -> str:
        return f"<U{self.count}"

    @property
    def is_scalar(self) -> bool:
        return True


class _DateTimeBase(Integer):
    __slots__ = ("unit",)
    _kind = ""

    def __init__(self, unit: str = ""):
        if unit not in DATETIME_UNITS:
            raise ValueError(f"unknown {self._kind} unit {unit!r}")
        Type.__init__(self, unit, f"{self._kind}[{unit}]" if unit else self._kind)
        self.bitwidth, self.signed, self.unit = 64, True, unit

    @property
    def numpy_dtype(self) -> str:
        return self.name


class NPDatetime(_DateTimeBase):
    """``datetime64[unit]``."""

    __slots__ = ()
    _kind = "datetime64"


class NPTimedelta(_DateTimeBase):
    """``timedelta64[unit]``."""

    __slots__ = ()
    _kind = "timedelta64"
