"""numba.cuda's device-side names on the GPU, checked by value against NumPy and
``math``: ``cuda.libdevice.*`` (with output tuples), the ``cuda.fp16`` math
functions, the cache-hint loads and stores, ``cuda.nanosleep`` and
``cuda.literal_unroll``.  Kernels run through the ``gpu`` fixture
(tests-integration/gpu_harness.py); each test has at most one ``parametrize``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from cudalite import nvvm as cuda
from cudalite.nvvm import fp16, libdevice

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng(20241123)
N = 64


def test_libdevice_float_functions(gpu):
    x32 = RNG.uniform(-3.0, 3.0, N).astype(np.float32)
    x64 = RNG.uniform(-3.0, 3.0, N)
    out32 = np.zeros((4, N), np.float32)
    out64 = np.zeros((3, N), np.float64)

    def k(x32, x64, out32, out64):
        for i in range(x32.shape[0]):
            out32[0, i] = libdevice.sinf(x32[i])
            out32[1, i] = libdevice.expf(x32[i])
            out32[2, i] = libdevice.atan2f(x32[i], 1.5)
            out32[3, i] = libdevice.fast_sinf(x32[i])
            out64[0, i] = libdevice.sin(x64[i])
            out64[1, i] = libdevice.cbrt(x64[i])
            out64[2, i] = libdevice.hypot(x64[i], 2.0)

    gpu.run(k, [x32, x64, out32, out64])
    np.testing.assert_allclose(out32[0], np.sin(x32), rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(out32[1], np.exp(x32), rtol=2e-6)
    np.testing.assert_allclose(out32[2], np.arctan2(x32, np.float32(1.5)), rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(out32[3], np.sin(x32), atol=1e-5)  # sin.approx
    np.testing.assert_allclose(out64[0], np.sin(x64), rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(out64[1], np.cbrt(x64), rtol=1e-15)
    np.testing.assert_allclose(out64[2], np.hypot(x64, 2.0), rtol=1e-15)


def test_libdevice_output_tuples(gpu):
    x = RNG.uniform(-50.0, 50.0, N)
    out = np.zeros((7, N), np.float64)

    def k(x, out):
        for i in range(x.shape[0]):
            s, c = libdevice.sincos(x[i])
            m, e = libdevice.frexp(x[i])
            frac, whole = libdevice.modf(x[i])
            r, q = libdevice.remquo(x[i], 3.0)
            out[0, i] = s
            out[1, i] = c
            out[2, i] = m
            out[3, i] = e
            out[4, i] = frac
            out[5, i] = whole
            out[6, i] = r + 0.0 * q

    gpu.run(k, [x, out])
    np.testing.assert_allclose(out[0], np.sin(x), rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(out[1], np.cos(x), rtol=1e-15, atol=1e-15)
    mant, expo = np.frexp(x)
    np.testing.assert_array_equal(out[2], mant)
    np.testing.assert_array_equal(out[3], expo)
    frac, whole = np.modf(x)
    np.testing.assert_array_equal(out[4], frac)
    np.testing.assert_array_equal(out[5], whole)
    np.testing.assert_allclose(out[6], [math.remainder(v, 3.0) for v in x], atol=1e-13)


def test_libdevice_integer_functions(gpu):
    n = RNG.integers(-2**31, 2**31 - 1, N, dtype=np.int64).astype(np.int32)
    out = np.zeros((4, N), np.int64)

    def k(n, out):
        for i in range(n.shape[0]):
            out[0, i] = libdevice.popc(n[i])
            out[1, i] = libdevice.brev(n[i])
            out[2, i] = libdevice.clz(n[i])
            out[3, i] = libdevice.abs(n[i])

    gpu.run(k, [n, out])
    u = n.view(np.uint32)
    np.testing.assert_array_equal(out[0], [bin(int(v)).count("1") for v in u])
    rev = np.array([int(f"{int(v):032b}"[::-1], 2) for v in u], dtype=np.uint32).view(np.int32)
    np.testing.assert_array_equal(out[1], rev)
    np.testing.assert_array_equal(out[2], [32 - int(v).bit_length() for v in u])
    np.testing.assert_array_equal(out[3], np.abs(n))


FP16_REFERENCE = {
    "hsin": (np.sin, -3.0, 3.0), "hcos": (np.cos, -3.0, 3.0), "hlog": (np.log, 0.1, 10.0),
    "hlog10": (np.log10, 0.1, 10.0), "hlog2": (np.log2, 0.1, 10.0), "hexp": (np.exp, -3.0, 3.0),
    "hexp10": (lambda v: 10.0 ** v, -2.0, 2.0), "hexp2": (np.exp2, -3.0, 3.0),
    "hsqrt": (np.sqrt, 0.0, 10.0), "hrsqrt": (lambda v: 1.0 / np.sqrt(v), 0.1, 10.0),
    "hceil": (np.ceil, -5.0, 5.0), "hfloor": (np.floor, -5.0, 5.0), "hrint": (np.rint, -5.0, 5.0),
    "htrunc": (np.trunc, -5.0, 5.0), "hrcp": (lambda v: 1.0 / v, 0.5, 10.0),
    "htanh": (np.tanh, -3.0, 3.0), "htanh_approx": (np.tanh, -3.0, 3.0),
}


@pytest.mark.parametrize("name", sorted(FP16_REFERENCE))
def test_fp16_math(gpu, name):
    ref, lo, hi = FP16_REFERENCE[name]
    fn = getattr(fp16, name)
    x = RNG.uniform(lo, hi, N).astype(np.float16)
    out = np.zeros(N, np.float16)

    def k(x, out):
        for i in range(x.shape[0]):
            out[i] = fn(x[i])

    gpu.run(k, [x, out])
    want = ref(x.astype(np.float64))
    np.testing.assert_allclose(out.astype(np.float64), want, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.float16, np.int32, np.float32, np.float64,
                                   np.uint64])
def test_cache_hint_loads_and_stores(gpu, dtype):
    a = (RNG.integers(0, 100, 16)).astype(dtype)
    b = np.zeros(16, dtype)

    def k(a, b):
        b[0] = cuda.ldca(a, 0)
        b[1] = cuda.ldcg(a, 1)
        b[2] = cuda.ldcs(a, 2)
        b[3] = cuda.ldlu(a, 3)
        b[4] = cuda.ldcv(a, -1)
        cuda.stcg(b, 5, cuda.ldcg(a, 5))
        cuda.stcs(b, 6, cuda.ldcg(a, 6))
        cuda.stwb(b, 7, cuda.ldcg(a, 7))
        cuda.stwt(b, -2, cuda.ldcg(a, 8))

    gpu.run(k, [a, b])
    want = np.zeros(16, dtype)
    want[:4] = a[:4]
    want[4] = a[-1]
    want[5:8] = a[5:8]
    want[-2] = a[8]
    np.testing.assert_array_equal(b, want)


def test_cache_hint_2d(gpu):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.zeros((3, 4), np.float32)

    def k(a, b):
        for i in range(3):
            for j in range(4):
                cuda.stcs(b, (i, j), cuda.ldcg(a, (i, j)) * 2.0)

    gpu.run(k, [a, b])
    np.testing.assert_array_equal(b, a * 2)


def test_nanosleep_and_literal_unroll(gpu):
    out = np.zeros(2, np.float64)

    def k(out):
        cuda.nanosleep(1000)
        acc = 0.0
        for v in cuda.literal_unroll((1, 2.5, True, np.float32(0.25))):
            acc += v
        out[0] = acc
        out[1] = 7.0

    gpu.run(k, [out])
    np.testing.assert_array_equal(out, [4.75, 7.0])
