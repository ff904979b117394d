"""bfloat16 on the device (compute capability >= 8.0): cuda.bf16's functions, operators,
conversions with rounding modes, math functions, arrays of ml_dtypes.bfloat16 and
scalar arguments, compared with ml_dtypes / NumPy on the host."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("bfloat16 (cuda.bf16) is not simulated")]
ml_dtypes = pytest.importorskip("ml_dtypes")
BF = ml_dtypes.bfloat16


@pytest.fixture
def bf16_gpu(gpu):
    from cudalite import cuda

    if not cuda.is_bfloat16_supported():
        pytest.skip("bfloat16 needs compute capability 8.0 or later")
    return gpu


def _bits(x):
    return int(np.asarray(x, dtype=BF).view(np.uint16))


def test_arrays_operators_and_scalar_arguments(bf16_gpu):
    from cudalite import cuda

    @cuda.jit
    def k(a, b, s, out, cmp):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = a[i] * b[i] + s - a[i] / b[i]
            cmp[i] = a[i] < b[i]

    a = np.array([1.5, -2.25, 3.0, 100.0, 0.0078125], BF)
    b = np.array([0.5, 4.0, -3.0, 7.0, 2.0], BF)
    out = np.zeros_like(a)
    cmp = np.zeros(a.size, np.bool_)
    k[1, 32](a, b, BF(0.75), out, cmp)
    f = [float(x) for x in a], [float(x) for x in b]
    want = []
    for x, y in zip(*f):  # each operation rounded to bfloat16, as on the device
        p = float(BF(x * y))
        t = float(BF(p + 0.75))
        q = float(BF(x / y))
        want.append(float(BF(t - q)))
    assert [float(v) for v in out] == want
    assert cmp.tolist() == [x < y for x, y in zip(*f)]


def test_conversion_rounding_modes(bf16_gpu):
    from cudalite import cuda
    from cudalite.cuda import bf16

    @cuda.jit
    def k(x, d, out):
        out[0] = bf16.bfloat16_as_uint16(bf16.float32_to_bfloat16_rn(x[0]))
        out[1] = bf16.bfloat16_as_uint16(bf16.float32_to_bfloat16_rz(x[0]))
        out[2] = bf16.bfloat16_as_uint16(bf16.float32_to_bfloat16_rd(x[0]))
        out[3] = bf16.bfloat16_as_uint16(bf16.float32_to_bfloat16_ru(x[0]))
        out[4] = bf16.bfloat16_as_uint16(bf16.float64_to_bfloat16(d[0]))
        out[5] = bf16.bfloat16_to_int32_rn(bf16.float32_to_bfloat16(x[0]))

    x = np.array([1.0078125 + 2.0**-10], np.float32)  # between two bfloat16 values
    d = np.array([1.00390625 + 2.0**-40], np.float64)  # just above a tie: rounds up once
    out = np.zeros(6, np.uint16)
    k[1, 1](x, d, out)
    lo = _bits(1.0078125)
    assert out[:4].tolist() == [lo, lo, lo, lo + 1]
    assert out[4] == _bits(1.0078125)
    assert out[5] == 1


def test_functions_against_host(bf16_gpu):
    from cudalite import cuda
    from cudalite.cuda import bf16

    @cuda.jit
    def k(out, flags):
        a = bf16.bfloat16(1.5)
        b = bf16.bfloat16(0.75)
        nan = bf16.bfloat16(math.nan)
        out[0] = bf16.hadd_sat(a, b)
        out[1] = bf16.hsub_sat(b, a)
        out[2] = bf16.hfma_relu(bf16.hneg(a), b, b)
        out[3] = bf16.hmax(nan, b)
        out[4] = bf16.hmin_nan(nan, b)
        out[5] = math.sqrt(a)
        out[6] = bf16.hrcp(b)
        out[7] = -a
        flags[0] = bf16.hisnan(nan)
        flags[1] = bf16.hisinf(bf16.bfloat16(-math.inf))
        flags[2] = bf16.hltu(nan, a)
        flags[3] = bf16.hlt(nan, a)

    out = np.zeros(8, np.float32)
    flags = np.zeros(4, np.int32)
    k[1, 1](out, flags)
    assert out[:3].tolist() == [1.0, 0.0, 0.0]
    assert out[3] == 0.75 and math.isnan(out[4])
    assert out[5] == float(BF(math.sqrt(1.5)))
    assert out[6] == float(BF(1 / 0.75))
    assert out[7] == -1.5
    assert flags.tolist() == [1, -1, 1, 0]


def test_print_bfloat16(bf16_gpu, capfd):
    from cudalite import cuda

    @cuda.jit
    def k():
        a = cuda.bfloat16(0.9375)
        print(a, a)

    k[1, 1]()
    cuda.synchronize()
    assert "0.937500 0.937500" in capfd.readouterr().out
