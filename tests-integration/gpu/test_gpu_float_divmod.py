"""Float ``//`` and ``%`` follow CPython's float_divmod bit for bit, NaN and
infinities included (numba-cuda uses the same algorithm): ``x // nan`` is nan,
not 0 (a NaN remainder counts as non-zero, as C's ``if (mod)``)."""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

# Finite divisors only, and quotients below 2**53: float % is LLVM's frem, which NVPTX
# expands as fma(-trunc(a/b), b, a) (as in numba-cuda): inexact beyond that, and NaN
# for an infinite divisor (docs/language.md).
_A = [1.5, -1.5, 7.0, -7.0, 0.0, -0.0, 3e14, -2.5e13, math.inf, -math.inf, math.nan]
_B = [2.0, -2.0, 0.25, -3.5, 1e25, -3e27, math.nan]


def _bits(x: float) -> int:
    return struct.unpack("<q", struct.pack("<d", x))[0]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_floordiv_and_mod_match_cpython(gpu, dtype):
    from cudalite import cuda

    @cuda.jit
    def k(a, b, q, r):
        i = cuda.grid(1)
        if i < a.size:
            q[i] = a[i] // b[i]
            r[i] = a[i] % b[i]

    pairs = [(x, y) for x in _A for y in _B]
    a = np.array([p[0] for p in pairs], dtype)
    b = np.array([p[1] for p in pairs], dtype)
    q, r = np.zeros_like(a), np.zeros_like(a)
    k[1, len(pairs)](a, b, q, r)
    checked = 0
    for i, (x, y) in enumerate(zip(a.tolist(), b.tolist())):
        exact_q, exact_r = x // y, x % y   # CPython, in double precision
        want_q, want_r = dtype(exact_q), dtype(exact_r)
        if dtype is np.float32 and not all(math.isnan(v) or float(dtype(v)) == v for v in (exact_q, exact_r)):
            continue  # not representable in float32: a float32 computation may round differently
        checked += 1
        for got, want, op in ((q[i], want_q, "//"), (r[i], want_r, "%")):
            if math.isnan(want):
                assert math.isnan(got), (x, op, y, got)
            else:
                assert _bits(float(got)) == _bits(float(want)), (x, op, y, float(got), float(want))
    assert checked >= 60, checked
