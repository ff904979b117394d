"""Reference fp8 conversions for the tests, independent of cudalite's code: ml_dtypes'
round to nearest even inside each format's range, CUDA's (cuda_fp8.h's) saturation rules
outside it, exact arithmetic for e8m0; and the float32 values worth checking."""

import bisect
import math
from fractions import Fraction

import ml_dtypes
import numpy as np

DTYPES = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2, "e8m0": ml_dtypes.float8_e8m0fnu}
# format -> (largest finite code, overflow code without saturation, the midpoint between the largest
# finite value and the next power of the format, whether that midpoint itself overflows): a tie goes to
# the even neighbour, 448 (0x7e) for e4m3 but 65536 (overflow) for e5m2, whose largest code 0x7b is odd
LIMITS = {"e4m3": (0x7E, 0x7F, 464.0, False), "e5m2": (0x7B, 0x7C, 61440.0, True)}


def float32_sweep():
    """Every 128th float32 bit pattern (both signs, zeros, subnormals, infinities, NaNs) and
    each format's rounding boundaries: every midpoint between neighbours, one ulp either side."""
    spread = np.arange(0, 2**32, 128, dtype=np.uint64).astype(np.uint32).view(np.float32)
    edges = []
    for fmt in ("e4m3", "e5m2"):
        vals = np.arange(256, dtype=np.uint8).view(DTYPES[fmt]).astype(np.float64)
        vals = np.unique(vals[np.isfinite(vals)])
        mids = np.concatenate([(vals[1:] + vals[:-1]) / 2, vals, [LIMITS[fmt][2], -LIMITS[fmt][2]]])
        m32 = mids.astype(np.float32)
        edges += [m32, np.nextafter(m32, np.float32(np.inf)), np.nextafter(m32, np.float32(-np.inf))]
    return np.concatenate([spread, *edges, np.array([np.inf, -np.inf, np.nan, 0.0, -0.0], np.float32)])


def reference_encode(x, fmt, sat):
    """CUDA's conversion of float32 ``x``: ml_dtypes' round to nearest even where the
    value is in range; saturation or the overflow code past it; NaN -> 0x7f."""
    maxcode, ovf, mid, tie_overflows = LIMITS[fmt]
    a = np.abs(x)
    over = (a >= mid) if tie_overflows else (a > mid)
    with np.errstate(all="ignore"):
        inside = np.where(a < mid, x, np.float32(0))
        out = inside.astype(DTYPES[fmt]).view(np.uint8).copy()
    sign = np.where(np.signbit(x), 0x80, 0).astype(np.uint8)
    out[a == mid] = (sign | maxcode)[a == mid]  # the tie, unless it overflows (next line)
    out[over] = (sign | (maxcode if sat else ovf))[over]
    out[np.isnan(x)] = 0x7F
    return out


def exact_e8m0(x, sat, up):
    """The e8m0 code of float32 ``x`` by exact arithmetic (CUDA's rules)."""
    if math.isnan(x):
        return 255
    a = abs(float(x))
    if math.isinf(a):
        return 254 if sat else 255
    if a <= 2.0 ** -127:
        return 0
    k = math.frexp(a)[1] - 1
    if up and a != 2.0 ** k:
        k += 1
    code = k + 127
    return (254 if sat else 255) if code >= 255 else code


def _nearest_code(a, fmt):
    """The code of the finite value nearest the non-negative number ``a`` (exact, by
    Fractions), ties to the even code; past the largest finite value: None."""
    table = _TABLES.get(fmt)
    if table is None:
        codes = [c for c in range(0x80) if np.isfinite(float(np.uint8(c).view(DTYPES[fmt])))]
        table = _TABLES[fmt] = ([Fraction(float(np.uint8(c).view(DTYPES[fmt]))) for c in codes], codes)
    vals, codes = table
    a = Fraction(a)
    k = bisect.bisect_left(vals, a)
    if k < len(vals) and vals[k] == a:
        return codes[k]
    if k == len(vals):  # past the largest: the next step of the format would be one more ulp up
        step = vals[-1] - vals[-2]
        lo, hi = vals[-1], vals[-1] + step
        if a - lo < hi - a or (a - lo == hi - a and codes[-1] % 2 == 0):
            return codes[-1]
        return None
    lo, hi = vals[k - 1], vals[k]
    if a - lo < hi - a or (a - lo == hi - a and codes[k - 1] % 2 == 0):
        return codes[k - 1]
    return codes[k]


_TABLES: dict = {}


def reference_encode64(x, fmt, sat):
    """CUDA's conversion of float64 ``x`` (``__nv_cvt_double_to_fp8``): rounded once, by
    exact arithmetic (ml_dtypes goes through float32 and can round twice), and a NaN
    keeps its sign (e5m2: and the top two payload bits)."""
    maxcode, ovf, _mid, _tie = LIMITS[fmt]
    x = np.asarray(x, np.float64)
    out = np.empty(x.size, np.uint8)
    for i, v in enumerate(x.tolist()):
        if math.isnan(v):
            continue
        code = None if math.isinf(v) else _nearest_code(abs(v), fmt)
        if code is None:
            code = maxcode if sat else ovf
        out[i] = (0x80 if math.copysign(1.0, v) < 0 else 0) | code
    nan = np.isnan(x)
    bits = x.view(np.uint64)
    sign = ((bits >> np.uint64(56)) & np.uint64(0x80)).astype(np.uint8)
    top = ((bits >> np.uint64(50)) & np.uint64(3)).astype(np.uint8)
    out[nan] = (sign | (0x7F if fmt == "e4m3" else (0x7E | top)))[nan]
    return out


def reference_to_int(values, bits, signed):
    """CUDA's fp8 -> integer conversions: truncate toward zero, saturate to the range; NaN
    -> 0, but ``1 << 63`` for a 64-bit result (PTX's cvt rule)."""
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    out = []
    for v in values:
        if math.isnan(v):
            out.append(0 if bits < 64 else (lo if signed else 1 << 63))
        elif math.isinf(v):
            out.append(hi if v > 0 else lo)
        else:
            out.append(min(max(math.trunc(v), lo), hi))
    return out
