"""Run-time behaviour behind the generated-code parity work: fastmath results,
operator-module functions, debug-mode ZeroDivisionError, inline='always' and
forceinline callees, float16 <-> integer conversions, fp16 abs/neg, float64 atomics."""

from __future__ import annotations

import math
import operator

import numpy as np
import pytest

from cudalite import cuda, types

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("name", ["cos", "sin", "tan", "exp", "log", "log2", "log10", "tanh"])
def test_fastmath_float32_is_close(name):
    fn = getattr(math, name)

    @cuda.jit("void(float32[::1], float32[::1])", fastmath=True)
    def k(r, x):
        i = cuda.grid(1)
        if i < x.size:
            r[i] = fn(x[i])

    x = np.linspace(0.1, 1.4, 64, dtype=np.float32)
    r = np.zeros_like(x)
    k[1, 64](r, x)
    np.testing.assert_allclose(r, getattr(np, name)(x.astype(np.float64)), rtol=2e-3, atol=2e-3)


def test_fastmath_division_and_operator_truediv():
    @cuda.jit("void(float32[::1], float32[::1], float32[::1])", fastmath=True)
    def k(r, x, y):
        i = cuda.grid(1)
        if i < x.size:
            r[i] = operator.truediv(x[i], y[i])

    x = np.arange(1, 65, dtype=np.float32)
    y = np.full(64, 3.0, dtype=np.float32)
    r = np.zeros_like(x)
    k[1, 64](r, x, y)
    np.testing.assert_allclose(r, x / y, rtol=1e-6)


@pytest.mark.nosim("compiled-code error semantics: the simulated kernel raises Python's own errors")
def test_debug_division_by_zero_raises_and_fastmath_does_not():
    def f(r, x, y):
        r[0] = x / y

    sig = "void(float32[::1], float32, float32)"
    prec = cuda.jit(sig, debug=True, opt=False)(f)
    fast = cuda.jit(sig, debug=True, opt=False, fastmath=True)(f)
    r = np.zeros(1, dtype=np.float32)
    with pytest.raises(ZeroDivisionError):
        prec[1, 1](r, 10.0, 0.0)
    fast[1, 1](r, 10.0, 0.0)
    assert np.isinf(r[0])


def test_debug_integer_modulo_by_zero_raises():
    @cuda.jit("void(int64[::1], int64, int64)", debug=True, opt=False)
    def k(r, x, y):
        r[0] = x % y

    r = np.zeros(1, dtype=np.int64)
    k[1, 1](r, 7, 3)
    assert r[0] == 1
    with pytest.raises(ZeroDivisionError):
        k[1, 1](r, 7, 0)


@pytest.mark.parametrize("inline", ["always", "never", True, lambda call, caller, callee: True])
def test_inlined_callee_results(inline):
    @cuda.jit(device=True, inline=inline)
    def g(x, y):
        if x > y:
            return x - y
        for i in range(3):
            x += i
        return x * y

    @cuda.jit(device=True, inline="always")
    def tri(n):
        if n <= 0:
            return 0
        return n + tri(n - 1)

    @cuda.jit
    def k(r, x, y):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = g(x[i], y[i]) + tri(i)

    x = np.arange(16, dtype=np.float64)
    y = np.full(16, 5.0)
    r = np.zeros(16)
    k[1, 16](r, x, y)
    expect = [(a - b if a > b else (a + 3) * b) + i * (i + 1) // 2 for i, (a, b) in enumerate(zip(x, y))]
    np.testing.assert_array_equal(r, expect)


def test_forceinline_callee_runs():
    @cuda.jit(forceinline=True)
    def set_zero(a):
        a[0] = 0

    @cuda.jit
    def call_set_zero(a):
        set_zero(a)

    a = np.ones(2, dtype=np.int32)
    call_set_zero[1, 2](a)
    np.testing.assert_array_equal(a, [0, 1])


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64])
@pytest.mark.nosim("compiled typing semantics: the simulator has no type inference")
def test_float16_integer_round_trip(dtype):
    @cuda.jit
    def k(out_i, out_h, h, i):
        j = cuda.grid(1)
        if j < h.size:
            out_i[j] = dtype(h[j])
            out_h[j] = np.float16(i[j])

    h = np.array([0.0, 1.0, 2.4, 2.6, 3.5, 12.3, 100.0, 120.0], dtype=np.float16)
    i = np.array([0, 1, 2, 3, 7, 12, 100, 127], dtype=dtype)
    out_i = np.zeros(8, dtype=dtype)
    out_h = np.zeros(8, dtype=np.float16)
    k[1, 8](out_i, out_h, h, i)
    np.testing.assert_array_equal(out_i, np.rint(h.astype(np.float64)).astype(dtype))  # cvt.rni: nearest even
    np.testing.assert_array_equal(out_h, i.astype(np.float16))


def test_fp16_habs_hneg():
    @cuda.jit
    def k(r, x):
        r[0] = cuda.fp16.habs(x[0])
        r[1] = cuda.fp16.hneg(x[0])

    r = np.zeros(2, dtype=np.float16)
    k[1, 1](r, np.array([-3.5], dtype=np.float16))
    np.testing.assert_array_equal(r, [3.5, 3.5])


@pytest.mark.nosim("PTX/SASS inspection")
def test_float64_global_atomic_add():
    @cuda.jit("void(int64[::1], float64[::1])")
    def k(idx, ary):
        cuda.atomic.add(ary, idx[cuda.threadIdx.x] % 32, 1.0)

    idx = np.random.default_rng(0).integers(0, 32, size=32)
    ary = np.zeros(32)
    k[1, 32](idx, ary)
    np.testing.assert_array_equal(ary, np.bincount(idx, minlength=32))
    asms = k.inspect_asm()  # a dict even for one eager signature, as numba
    assert list(asms) == [(types.int64[::1], types.float64[::1])]
    asm = asms[(types.int64[::1], types.float64[::1])]
    assert "add.f64" in asm and "atom.global.cas" not in asm
