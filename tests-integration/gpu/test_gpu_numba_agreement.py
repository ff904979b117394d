"""cudalite agrees with numba-cuda bit for bit on the cases issue 11's differential fuzzer
found (tests-compat/difffuzz.py, seed 1; the repro files hold numba-cuda's outputs as
IEEE bit patterns).  Expected values are numba-cuda's:

* ``min``/``max`` of exactly two float32/float64 are libdevice ``fmin``/``fmax`` (a NaN
  operand loses: ``max(nan, -2.25) == -2.25``, programs 101, 123, 368, 50, 89);
  three or more arguments, a tuple, or mixed int/float keep Python's order
  (``max(nan, 1.5, 2.5)`` is nan, ``max(1.5, nan, 2.5) == 2.5``);
* ``math.floor/ceil/trunc`` return a float: ``float(math.ceil(-0.5))`` is -0.0
  (programs 108, 169, 30, 307);
* unary minus of an int32 is computed in 32 bits: ``-int32(-2**31) == -2**31``
  (programs 120, 273); ``-uint32(1) == 2**32 - 1``; ``~uint8(0) == 255``;
* constant expressions beyond 64 bits that CPython does not fold compile and wrap:
  ``(-4611686018427387904) ** 4 == 0`` (programs 1, 31, 92, 187, 224); those it folds
  are literals typed by value (``65535 ** 4`` is a uint64, program 120).

The one exception, on purpose: where a signed ``+ - *`` or ``**`` overflows, numba-cuda's
``nsw`` makes the result poison (``abs(a + 1000)`` negative for ``a = 2**63 - 1``,
programs 814, 867, 88, 192, 201 and 15 more); cudalite wraps, and
``test_signed_overflow_wraps_where_numba_has_poison`` checks the wrapped values
(docs/compat.md, "Known differences found by the differential fuzzer").
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from cudalite import nvvm as cuda
from cudalite import types

pytestmark = pytest.mark.gpu


def _bits(x: float) -> int:
    return int(np.float64(x).view(np.int64))


def _wrap64(x: int) -> int:
    x &= (1 << 64) - 1
    return x - (1 << 64) if x >> 63 else x


def float_minmax(xf, of, of32):
    i = cuda.grid(1)
    if i == 0:
        nan, m225 = xf[0], xf[1]
        h_nan, h_m225 = types.float32(xf[0]), types.float32(xf[1])
        of[0] = max(nan, m225)
        of[1] = max(m225, nan)
        of[2] = min(nan, 0.5)
        of[3] = min(xf[2], nan)                 # -inf
        of[4] = max(nan, xf[2])                 # -inf
        of[5] = max(nan, 1.5, 2.5)              # Python's order: nan
        of[6] = max(1.5, nan, 2.5)              # 2.5
        of[7] = max((nan, m225))                # a tuple: Python's order, nan
        of[8] = max(nan, 3)                     # mixed int/float: Python's order, nan
        of[9] = max(3, nan)                     # 3.0
        of[10] = max(h_nan, m225)               # float32 with float64: fmax in float64
        of32[0] = max(h_nan, h_m225)
        of32[1] = min(h_m225, h_nan)


@pytest.mark.nosim("compiled typing semantics: the simulator has no type inference")
def test_min_max_of_two_floats_ignore_nan(gpu):
    xf = np.array([math.nan, -2.25, -math.inf], np.float64)
    of = np.zeros(11, np.float64)
    of32 = np.zeros(2, np.float32)
    gpu.run(float_minmax, [xf, of, of32])
    assert of[[0, 1, 2, 3, 4]].tolist() == [-2.25, -2.25, 0.5, -math.inf, -math.inf]
    assert math.isnan(of[5]) and of[6] == 2.5 and math.isnan(of[7])
    assert math.isnan(of[8]) and of[9] == 3.0 and of[10] == -2.25
    assert of32.tolist() == [-2.25, -2.25]


def rounding(xf, of, of32):
    i = cuda.grid(1)
    if i == 0:
        of[0] = types.float64(math.ceil(xf[0]))      # -0.5 -> -0.0
        of[1] = types.float64(math.trunc(xf[1]))     # -0.7 -> -0.0
        of[2] = math.floor(xf[2])                    # 2.5 -> 2.0
        of[3] = math.ceil(min(max(xf[0], -1e15), 1e15))
        of32[0] = math.ceil(types.float32(xf[0]))    # float32 in, float32 out


@pytest.mark.nosim("compiled typing semantics: the simulator has no type inference")
def test_floor_ceil_trunc_return_floats_with_their_sign(gpu):
    xf = np.array([-0.5, -0.7, 2.5], np.float64)
    of = np.zeros(4, np.float64)
    of32 = np.zeros(1, np.float32)
    gpu.run(rounding, [xf, of, of32])
    assert [_bits(v) for v in of] == [_bits(-0.0), _bits(-0.0), _bits(2.0), _bits(-0.0)]
    assert of32[0] == 0.0 and math.copysign(1.0, float(of32[0])) == -1.0


def np_signed_zero(xf, of):
    i = cuda.grid(1)
    if i == 0:
        of[0] = np.maximum(xf[0], xf[1])        # 0.0, -0.0 -> 0.0 (the first on a tie)
        of[1] = np.maximum(xf[1], xf[0])        # -0.0
        of[2] = np.minimum(xf[0], xf[1])        # 0.0
        of[3] = np.maximum(xf[2], xf[0])        # nan wins


@pytest.mark.nosim("compiled typing semantics: the simulator has no type inference")
def test_np_maximum_minimum_ties_keep_the_first_operand(gpu):
    xf = np.array([0.0, -0.0, math.nan], np.float64)
    of = np.zeros(4, np.float64)
    gpu.run(np_signed_zero, [xf, of])
    assert [_bits(v) for v in of[:3]] == [_bits(0.0), _bits(-0.0), _bits(0.0)]
    assert math.isnan(of[3])


def unary_ints(xi, oi, ou):
    i = cuda.grid(1)
    if i == 0:
        oi[0] = -types.int32(xi[0])                  # -2**31 stays -2**31
        oi[1] = ~types.int32(xi[0])
        oi[2] = -types.int16(xi[1])                  # -(-2**15) stays -2**15
        oi[3] = +types.int8(xi[2])
        ou[0] = -types.uint32(xi[3])                 # 2**32 - 1 (uint64)
        ou[1] = ~types.uint8(xi[4])                  # 255
        ou[2] = -types.uint64(xi[3])


def test_unary_ops_compute_in_the_operand_width(gpu):
    xi = np.array([-2**31, -2**15, -5, 1, 0], np.int64)
    oi = np.zeros(4, np.int64)
    ou = np.zeros(3, np.uint64)
    gpu.run(unary_ints, [xi, oi, ou])
    assert oi.tolist() == [-2**31, 2**31 - 1, -2**15, -5]
    assert ou.tolist() == [2**32 - 1, 255, 2**64 - 1]


def huge_constants(xi, oi, of):
    i = cuda.grid(1)
    if i == 0:
        oi[0] = (-4611686018427387904) ** 4
        oi[1] = 6364136223846793005 ** 3
        oi[2] = (-9223372036854775807) ** 4 + xi[0]
        oi[3] = 6364136223846793005 ** 4
        big = 65535 ** 4                       # CPython folds it: a uint64 literal in numba
        of[0] = big
        of[1] = -9223372036854775808           # an int64 literal


@pytest.mark.nosim("compiled typing semantics: the simulator has no type inference")
def test_huge_constant_expressions_wrap_like_numba(gpu):
    xi = np.array([7], np.int64)
    oi = np.zeros(4, np.int64)
    of = np.zeros(2, np.float64)
    gpu.run(huge_constants, [xi, oi, of])
    assert of.tolist() == [float(65535 ** 4), -9223372036854775808.0]
    assert oi.tolist() == [0, _wrap64(6364136223846793005 ** 3),
                           _wrap64((-9223372036854775807) ** 4 + 7), _wrap64(6364136223846793005 ** 4)]


def overflow_cases(xi, oi):
    i = cuda.grid(1)
    if i == 0:
        a = xi[0]
        oi[0] = abs(a + 1000)                      # 814: numba -9223372036854774809
        oi[1] = abs(xi[1] ** 4)                    # 867: numba -2157719784416895727
        oi[2] = 1 if 31 > 65535 + a else 2         # 88: numba 2
        oi[3] = 1 if 0 > xi[2] * 1099511627779 else 2   # 192: numba 2
        oi[4] = 1 if 127 < xi[3] + xi[3] else 2    # 201: numba 1
        oi[5] = 1 if a + 1 < a else 2              # the overflow check docs/language.md promises


def test_signed_overflow_wraps_where_numba_has_poison(gpu):
    xi = np.array([2**63 - 1, -4677078925977241581, 3248494526909988585, 7412262147772079320],
                  np.int64)
    oi = np.zeros(6, np.int64)
    gpu.run(overflow_cases, [xi, oi])
    assert oi.tolist() == [_wrap64(2**63 - 1 + 1000) * -1, abs(_wrap64((-4677078925977241581) ** 4)),
                           1, 1, 2, 1]
