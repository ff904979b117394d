"""8-bit floating-point types (CUDA's ``cuda_fp8.h``): ``fp8_e4m3``, ``fp8_e5m2``, ``fp8_e8m0``.

Each is a value of 8 bits with CUDA's encodings (OCP's FP8 and MX scale formats):

* ``fp8_e4m3``: 1 sign, 4 exponent (bias 7), 3 mantissa bits; no infinity, NaN is
  ``S.1111.111``; largest finite 448 (``ml_dtypes.float8_e4m3fn``);
* ``fp8_e5m2``: 1 sign, 5 exponent (bias 15), 2 mantissa bits, IEEE-like with
  infinities; largest finite 57344 (``ml_dtypes.float8_e5m2``);
* ``fp8_e8m0``: an unsigned power of two, ``2**(code - 127)``; code 255 is NaN
  (``ml_dtypes.float8_e8m0fnu``).  A block scale of the MX formats.

They are not :class:`Float`: there is no arithmetic on them (as in CUDA C++, whose
``__nv_fp8_*`` types have none); a program converts explicitly, ``fp8_e4m3(x)`` and
``float32(v)``.  Converting to fp8 rounds as ``cuda_fp8.h``'s constructors: e4m3/e5m2
to nearest even and saturating to the largest finite value (NaN stays NaN); e8m0 up
(toward +infinity) on the magnitude, saturating.  The host functions here give the same
bits as the device code (scalar arguments, constants, ``fp8_e4m3(2.5)`` on the host).
"""

from __future__ import annotations

import enum
import math
import struct
import sys

from ._base import Type
from ._scalar import _Number

__all__ = ["Fp8", "BFloat16Raw", "bfloat16_raw", "fp8_e4m3", "fp8_e5m2", "fp8_e8m0", "FP8_TYPES", "fp8_bits",
           "fp8_encode", "fp8_decode", "saturation_t", "fp8_interpretation_t", "ROUND_ZERO", "ROUND_POS_INF"]


class saturation_t(enum.IntEnum):
    """``__nv_saturation_t``: what an out-of-range conversion to fp8 gives."""

    NOSAT = 0  # e4m3: NaN, e5m2: infinity, e8m0: NaN
    SATFINITE = 1  # the largest finite value of the sign


class fp8_interpretation_t(enum.IntEnum):
    """``__nv_fp8_interpretation_t``: which 8-bit format a storage byte holds."""

    E4M3 = 0
    E5M2 = 1


# cudaRoundMode's values (cuda.bindings.runtime.cudaRoundMode) the e8m0 conversions accept
ROUND_ZERO, ROUND_POS_INF = 1, 2


class Fp8(_Number):
    """One of the three 8-bit float formats (``fmt``: ``"e4m3"``, ``"e5m2"``, ``"e8m0"``)."""

    __slots__ = ("fmt",)

    def __init__(self, fmt: str):
        super().__init__(("fp8", fmt), f"fp8_{fmt}")
        self.fmt = fmt
        self.bitwidth = 8

    @property
    def __name__(self) -> str:  # numba-cuda's fp8 types are classes; programs print their names
        return self.name

    @property
    def ml_dtypes_name(self) -> str:
        """The name of its NumPy dtype in ml_dtypes."""
        return {"e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2", "e8m0": "float8_e8m0fnu"}[self.fmt]

    @property
    def c_name(self) -> str:
        """CUDA C++'s name of the type (``__nv_fp8_e4m3``)."""
        return f"__nv_fp8_{self.fmt}"

    def cast_python_value(self, value):
        """``fp8_e4m3(2.5)`` on the host: an ml_dtypes scalar holding the bits the device
        constructor makes (saturating, unlike ml_dtypes' own conversion)."""
        ml = sys.modules.get("ml_dtypes")
        if ml is None:
            raise TypeError(f"{self.name}(value) on the host makes an ml_dtypes.{self.ml_dtypes_name}: "
                            "import ml_dtypes first")
        from ..numpy_support import numpy

        np = numpy()
        return np.array([fp8_encode(value, self.fmt)], np.uint8).view(getattr(ml, self.ml_dtypes_name))[0]


class BFloat16Raw(Type):
    """CUDA's ``__nv_bfloat16_raw``: the 16 bits of a bfloat16, read as ``.x`` (uint16);
    what ``cvt_e8m0_to_bf16raw`` returns and ``cvt_bfloat16raw_to_fp8`` takes."""

    __slots__ = ()

    def __init__(self):
        super().__init__("bfloat16_raw", "bfloat16_raw")


fp8_e4m3, fp8_e5m2, fp8_e8m0 = Fp8("e4m3"), Fp8("e5m2"), Fp8("e8m0")
bfloat16_raw = BFloat16Raw()
FP8_TYPES = {t.fmt: t for t in (fp8_e4m3, fp8_e5m2, fp8_e8m0)}

# format -> (mantissa bits, exponent bias, largest finite code, overflow code without saturation)
_FORMATS = {"e4m3": (3, 7, 0x7E, 0x7F), "e5m2": (2, 15, 0x7B, 0x7C)}


def fp8_bits(value, t: Fp8) -> int:
    """The byte of ``value`` as a ``t``: an ml_dtypes scalar of ``t``'s dtype is its own
    byte; any other real number is converted as the device constructor does."""
    dt = getattr(value, "dtype", None)
    if dt is not None and getattr(dt, "name", None) == t.ml_dtypes_name and dt.itemsize == 1:
        from ..numpy_support import numpy

        return int(numpy().asarray(value).view(numpy().uint8))
    return fp8_encode(value, t.fmt)


def fp8_decode(code: int, fmt: str) -> float:
    """The value of the fp8 byte ``code`` in format ``fmt`` (a Python float; NaN for NaN)."""
    code &= 0xFF
    if fmt == "e8m0":
        return math.nan if code == 0xFF else math.ldexp(1.0, code - 127)
    mbits, bias, _maxcode, _ovf = _FORMATS[fmt]
    sign = -1.0 if code & 0x80 else 1.0
    mag = code & 0x7F
    exp, man = mag >> mbits, mag & ((1 << mbits) - 1)
    if (fmt == "e4m3" and mag == 0x7F) or (fmt == "e5m2" and mag > 0x7C):
        return math.nan
    if fmt == "e5m2" and mag == 0x7C:
        return sign * math.inf
    if exp == 0:
        return sign * math.ldexp(man, 1 - bias - mbits)
    return sign * math.ldexp((1 << mbits) + man, exp - bias - mbits)


def fp8_encode(value, fmt: str, saturate: bool = True, round_up: bool = True) -> int:
    """The fp8 byte of the real number ``value``, as CUDA's conversions round it.

    e4m3/e5m2: to nearest, ties to even; beyond the largest finite value the largest
    finite value (``saturate``) or the overflow code (e4m3 NaN, e5m2 infinity); NaN ->
    ``0x7f``.  e8m0: the magnitude rounded up to a power of two (``round_up``) or
    truncated; ``2**-127`` and below -> code 0; NaN -> 255; beyond ``2**127`` ->
    254 (``saturate``) or 255."""
    x = float(value)
    if fmt == "e8m0":
        return _encode_e8m0(x, saturate, round_up)
    mbits, bias, maxcode, ovf = _FORMATS[fmt]
    sign = 0x80 if math.copysign(1.0, x) < 0 else 0
    if math.isnan(x):  # as CUDA's conversion of a double: the sign kept; e5m2 keeps the top payload bits
        top = (struct.unpack("<Q", struct.pack("<d", x))[0] >> 50) & 3
        return sign | (0x7F if fmt == "e4m3" else 0x7E | top)
    a = abs(x)
    if math.isinf(a):
        return sign | (maxcode if saturate else ovf)
    if a == 0.0:
        return sign
    e = max(math.frexp(a)[1] - 1, 1 - bias)  # the exponent of a's binade; subnormals share the smallest
    q = a / math.ldexp(1.0, e - mbits)  # a in units of the last place (exact: a power-of-two scale)
    n = math.floor(q)
    frac = q - n
    if frac > 0.5 or (frac == 0.5 and n % 2 == 1):
        n += 1
    if e == 1 - bias and n < (1 << mbits):  # subnormal result
        code = n
    else:
        code = ((e + bias) << mbits) + n - (1 << mbits)  # a carry into the next binade adds 1 to the exponent
    if code > maxcode:
        code = maxcode if saturate else ovf
    return sign | code


def _encode_e8m0(x: float, saturate: bool, round_up: bool) -> int:
    if math.isnan(x):
        return 0xFF
    a = abs(x)
    if math.isinf(a):
        return 0xFE if saturate else 0xFF
    if a <= math.ldexp(1.0, -127):
        return 0
    k = math.frexp(a)[1] - 1  # 2**k <= a < 2**(k+1)
    if not round_up:  # truncation: CUDA converts through float32, whose finite values stay below 2**128
        return min(k + 127, 0xFE)
    if a != math.ldexp(1.0, k):
        k += 1
    code = k + 127
    if code >= 0xFF:
        return 0xFE if saturate else 0xFF
    return code
