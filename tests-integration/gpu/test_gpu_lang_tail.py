"""GPU: the language additions of the compat tail against CPython/NumPy -- ``in`` /
``not in`` over tuples, ``literal_unroll`` over tuples of mixed item types, eager
device-function signatures converting their arguments, one eager kernel signature
taking a same-size array (reinterpreted, as numba), and the debug-mode checks."""

from __future__ import annotations

import enum

import numpy as np
import pytest

from cudalite import cuda

pytestmark = pytest.mark.gpu

MIXED = (np.float64([1.0, 0.0, 2.5]), np.int64([[1, 2], [3, 4]]), np.float32([2.5, -1.0]))


def test_in_and_not_in_over_tuples(gpu):
    @cuda.jit
    def k(xs, out):
        for i in range(xs.shape[0]):
            x = xs[i]
            out[i, 0] = x in (1, 2, 7)
            out[i, 1] = x not in (3, 4.5)
            out[i, 2] = (x, 1) in ((1, 1), (2, 2))

    xs = np.arange(-2, 9, dtype=np.int32)
    out = np.zeros((xs.size, 3), np.bool_)
    k[1, 1](xs, out)
    expected = [[int(x) in (1, 2, 7), int(x) not in (3, 4.5), (int(x), 1) in ((1, 1), (2, 2))] for x in xs]
    assert out.tolist() == expected


def test_literal_unroll_over_arrays_of_mixed_types(gpu):
    @cuda.jit
    def k(out):
        i = 0
        for case in cuda.literal_unroll(MIXED):
            out[i] = case.sum()
            i += 1

    out = np.zeros(len(MIXED))
    k[1, 1](out)
    np.testing.assert_allclose(out, [a.sum() for a in MIXED])


@pytest.mark.nosim("compiled typing semantics: the simulator has no type inference")
def test_eager_device_signature_converts_arguments(gpu):
    @cuda.jit("int32(int32, int32, int32, int32)", device=True)
    def rgba(r, g, b, a):
        return ((r & 0xFF) << 16) | ((g & 0xFF) << 8) | ((b & 0xFF) << 0) | ((a & 0xFF) << 24)

    @cuda.jit
    def caller(x, channels):
        x[0] = rgba(channels[0], channels[1], channels[2], channels[3])

    x = cuda.device_array(1, dtype=np.int32)
    caller[1, 1](x, cuda.to_device(np.asarray([1.0, 2.0, 3.0, 4.0], dtype=np.float32)))
    assert x.copy_to_host()[0] == (1 << 16) | (2 << 8) | 3 | (4 << 24)


@pytest.mark.nosim("compiled dispatch: overloads and signature matching")
def test_one_eager_signature_reinterprets_a_same_size_array(gpu):
    @cuda.jit("void(int32[:, :])")
    def dec(a):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            a[i, j] -= 1

    ary = np.random.default_rng(3).integers(1, 32, size=(4, 8)).astype(np.uint32)
    orig = ary.copy()
    dec[1, (4, 8)](ary)
    assert (ary == orig - 1).all()
    with pytest.raises(TypeError, match="No matching definition"):
        dec[1, (4, 8)](np.zeros((4, 8), np.int64))  # another item size: refused


@pytest.mark.nosim("compiled-code error semantics: the simulated kernel raises Python's own errors")
def test_debug_division_by_zero_raises_and_stops(gpu):
    @cuda.jit(debug=True, opt=False)
    def f(r, x, y):
        r[0] = y[0] / x[0]
        r[1] = y[0]

    r = np.zeros(2)
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        f[1, 1](r, np.zeros(1), np.ones(1))
    assert r.tolist() == [0.0, 0.0]


@pytest.mark.nosim("compiled-code error semantics: the simulated kernel raises Python's own errors")
def test_debug_tuple_index_out_of_range_raises(gpu):
    def foo(ary):
        x = cuda.threadIdx.x
        if x == 2:
            ary.shape[-x]

    cuda.jit(foo)[1, 3](np.array([0, 1]))  # without debug: nothing checked
    with pytest.raises(IndexError, match="tuple index out of range"):
        cuda.jit(debug=True, opt=False)(foo)[1, 3](np.array([0, 1]))


class Color(enum.Enum):
    red = 1
    green = 2


class Planet(enum.Enum):
    EARTH = (5.976e24, 6.37814e6)
    MARS = (6.421e23, 3.3972e6)


@pytest.mark.parametrize("a, b", [(Color.red, Color.red), (Color.red, Color.green),
                                  (Planet.EARTH, Planet.EARTH), (Planet.EARTH, Planet.MARS)])
def test_plain_enum_members_as_kernel_arguments(gpu, a, b):
    def f(a, b, out):
        out[0] = a == b
        out[1] = a != b
        out[2] = a is b
        out[3] = a is not b

    got = np.zeros(4, np.bool_)
    cuda.jit(f)[1, 1](a, b, got)
    expected = np.zeros(4, np.bool_)
    f(a, b, expected)
    assert got.tolist() == expected.tolist()



@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.complex128])
def test_local_and_shared_arrays_of_an_arrays_dtype(gpu, dtype):
    """``cuda.local.array(n, x.dtype)`` / ``cuda.shared.array(n, x.dtype)`` (numba's
    idiom for dtype-generic kernels) hold the argument's element type exactly."""
    @cuda.jit
    def k(x, out):
        loc = cuda.local.array(4, dtype=x.dtype)
        sh = cuda.shared.array(32, x.dtype)
        i = cuda.threadIdx.x
        loc[i % 4] = x[i]
        sh[i] = loc[i % 4]
        cuda.syncthreads()
        out[i] = sh[31 - i]

    x = (np.arange(32) * 3 + 1).astype(dtype)
    if np.dtype(dtype).kind == "c":
        x = x + 0.5j
    out = np.zeros_like(x)
    k[1, 32](x, out)
    np.testing.assert_array_equal(out, x[::-1])
