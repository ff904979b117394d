"""cuda.vectorize / cuda.guvectorize on the GPU, compared with NumPy: loops per dtype,
broadcasting, n-d and Fortran-ordered inputs, scalars, out=, streams, device arrays
(the result stays on the device), reduce, and gufuncs with core dimensions, scalar
outputs and several outputs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cudalite import cuda
from cudalite.types import float32, float64, int32, uint32, void

pytestmark = pytest.mark.gpu

SIGS = [int32(int32, int32), uint32(uint32, uint32), float32(float32, float32), float64(float64, float64)]


@pytest.fixture(scope="module")
def add():
    @cuda.vectorize(SIGS)
    def vadd(a, b):
        return a + b

    return vadd


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.uint32])
@pytest.mark.parametrize("n", [8, 100, 1025, 1000001])
def test_1d_keeps_dtype(add, dtype, n):
    x = (np.random.default_rng(0).random(n) * 100).astype(dtype)
    got = add(x, x)
    assert isinstance(got, np.ndarray) and got.dtype == dtype
    np.testing.assert_array_equal(got, x + x)


@pytest.mark.parametrize("nd", [1, 2, 3, 5, 7])
@pytest.mark.parametrize("order", ["C", "F"])
def test_nd_and_orders(add, nd, order):
    data = np.random.default_rng(1).random((4,) * nd).astype(np.float32)
    other = np.array(data.T, order=order)
    np.testing.assert_array_equal(add(data, other), data + other)


def test_broadcast_host_and_device():
    @cuda.vectorize(["float64(float64, float64)"], target="cuda")
    def sub(a, b):
        return a - b

    a = np.random.default_rng(2).standard_normal((100, 3, 1))
    b = a.transpose(2, 1, 0)
    np.testing.assert_array_equal(sub(a, b), a - b)
    got = sub(cuda.to_device(a), cuda.to_device(b))
    assert cuda.is_cuda_array(got)
    np.testing.assert_array_equal(got.copy_to_host(), a - b)
    np.testing.assert_array_equal(sub(a, np.float64(2.5)), a - 2.5)


def test_scalars(add):
    assert add(1.2, 2.3) == 1.2 + 2.3
    v = add(1, 2)
    assert v == 3
    d = cuda.to_device(np.arange(10, dtype=np.float64))
    np.testing.assert_array_equal(add(1.0, d).copy_to_host(), np.arange(1, 11, dtype=np.float64))


def test_out_host_and_device(add):
    a = np.arange(10, dtype=np.float32)
    out = np.empty_like(a)
    assert add(a, a, out=out) is out
    np.testing.assert_array_equal(out, a + a)
    x = np.arange(10, dtype=np.int32).reshape(2, 5)
    dx = cuda.to_device(x)
    add(dx, dx, out=dx)
    np.testing.assert_array_equal(dx.copy_to_host(), x + x)


def test_device_arrays_with_out_take_the_fast_path(add):
    """1-d device arrays with out= (the fast path: no argument handling; its mechanics are
    tested GPU-less in packages/jit/tests/test_vectorize.py) give NumPy's result for every
    loop, in place too, on a stream, repeated, and with Python float / NumPy scalars."""
    s = cuda.stream()
    for dt in (np.int32, np.uint32, np.float32, np.float64):
        x = np.arange(5000).astype(dt)
        y = (np.arange(5000) % 7).astype(dt)
        dx, dy = cuda.to_device(x), cuda.to_device(y)
        out = cuda.device_array(5000, dt)
        for _ in range(3):
            assert add(dx, dy, out=out) is out
        np.testing.assert_array_equal(out.copy_to_host(), x + y)
        assert add(dx, dy, out=dx, stream=s) is dx  # in place
        s.synchronize()
        np.testing.assert_array_equal(dx.copy_to_host(), x + y)
        if dt in (np.float32, np.float64):  # a Python float: a weak scalar, the arrays' loop
            for _ in range(2):
                assert add(2.5, dy, out=out) is out
            np.testing.assert_array_equal(out.copy_to_host(), dt(2.5) + y)
        for _ in range(2):  # a NumPy scalar of the arrays' dtype
            assert add(dt(3), dy, out=out) is out
        np.testing.assert_array_equal(out.copy_to_host(), dt(3) + y)


def test_stream_and_manual_transfer(add):
    s = cuda.stream()
    x = np.arange(1000, dtype=np.float64)
    dx = cuda.to_device(x, s)
    got = add(dx, dx, stream=s).copy_to_host(stream=s)
    s.synchronize()
    np.testing.assert_array_equal(got, x + x)
    np.testing.assert_array_equal(add(x.astype(np.int32), cuda.to_device(x.astype(np.int32))).copy_to_host(),
                                  2 * x.astype(np.int32))


def test_tuple_arguments(add):
    np.testing.assert_array_equal(add((1.0, 2.0, 3.0), (4.0, 5.0, 6.0)), [5.0, 7.0, 9.0])


@pytest.mark.parametrize("n", [1, 8, 100, 1025])
def test_reduce(add, n):
    x = np.arange(n, dtype=np.int32)
    got = add.reduce(x)
    assert got == x.sum() and got.dtype == np.int32
    s = cuda.stream()
    assert add.reduce(cuda.to_device(x, s), stream=s) == x.sum()


def test_lazy_vectorize_compiles_per_dtype():
    @cuda.vectorize
    def scale(x, y):
        return x * y + 1

    a = np.arange(10, dtype=np.float32)
    np.testing.assert_allclose(scale(a, a), a * a + 1)
    i = np.arange(10, dtype=np.int64)
    np.testing.assert_array_equal(scale(i, i), i * i + 1)


def test_device_function_call_and_math():
    @cuda.jit(float32(float32, float32, float32), device=True)
    def dev(x, y, z):
        return x ** y / z

    f = cuda.vectorize([float32(float32, float32, float32)], target="cuda")(lambda x, y, z: dev(x, y, z))
    rng = np.random.default_rng(3)
    X, Y, Z = (rng.random(100).astype(np.float32) for _ in range(3))
    np.testing.assert_allclose(f(X, Y, Z + 0.1), X ** Y / (Z + 0.1), rtol=1e-5)

    @cuda.vectorize(["float64(float64)", "float32(float32)"])
    def sinc(x):
        return 1.0 if x == 0.0 else math.sin(x * math.pi) / (math.pi * x)

    A = np.arange(100, dtype=np.float64)
    np.testing.assert_allclose(sinc(A), np.vectorize(lambda x: 1.0 if x == 0 else
                                                     math.sin(x * math.pi) / (math.pi * x))(A))


@pytest.fixture(scope="module")
def matmul():
    @cuda.guvectorize([void(float32[:, :], float32[:, :], float32[:, :])], "(m,n),(n,p)->(m,p)", target="cuda")
    def mm(A, B, C):
        m, n = A.shape
        n, p = B.shape
        for i in range(m):
            for j in range(p):
                C[i, j] = 0
                for k in range(n):
                    C[i, j] += A[i, k] * B[k, j]

    return mm


@pytest.mark.parametrize("lead", [(2,), (1001,), (4, 25)])
@pytest.mark.nosim("generalized ufuncs (cuda.guvectorize) are not simulated")
def test_gufunc_matmul(matmul, lead):
    A = np.arange(np.prod(lead) * 8, dtype=np.float32).reshape(lead + (2, 4))
    B = np.arange(np.prod(lead) * 20, dtype=np.float32).reshape(lead + (4, 5))
    np.testing.assert_allclose(matmul(A, B), np.matmul(A, B))
    got = matmul(A, cuda.to_device(B))
    np.testing.assert_allclose(got.copy_to_host(), np.matmul(A, B))


@pytest.mark.nosim("generalized ufuncs (cuda.guvectorize) are not simulated")
def test_gufunc_broadcast_and_stream(matmul):
    X = np.random.default_rng(4).standard_normal((10, 3, 3)).astype(np.float32)
    Y = np.random.default_rng(5).standard_normal((3, 3)).astype(np.float32)
    np.testing.assert_allclose(matmul(X, Y), np.matmul(X, Y), rtol=1e-5)
    s = cuda.stream()
    dC = cuda.device_array((10, 3, 3), np.float32, stream=s)
    dC = matmul(cuda.to_device(X, s), cuda.to_device(Y, s), out=dC, stream=s)
    C = dC.copy_to_host(stream=s)
    s.synchronize()
    np.testing.assert_allclose(C, np.matmul(X, Y), rtol=1e-5)


@pytest.mark.nosim("generalized ufuncs (cuda.guvectorize) are not simulated")
def test_gufunc_scalar_output_and_inputs():
    @cuda.guvectorize(["void(int32[:], int32[:])"], "(n)->()", target="cuda")
    def rowsum(x, r):
        s = 0
        for i in range(x.shape[0]):
            s += x[i]
        r[0] = s

    a = np.arange(30, dtype=np.int32).reshape(6, 5)
    np.testing.assert_array_equal(rowsum(a), a.sum(axis=1))

    @cuda.guvectorize(["void(float32, float32[:], float32[:], float32[:])"], "(),(t),(t)->(t)", target="cuda")
    def saxpy(a, x, y, out):
        for i in range(out.shape[0]):
            out[i] = a * x[i] + y[i]

    A = np.arange(5, dtype=np.float32)
    X = np.arange(10, dtype=np.float32).reshape(5, 2)
    np.testing.assert_array_equal(saxpy(A, X, X), A[:, None] * X + X)

    @cuda.guvectorize(["void(int32, int32[:], int32[:])"], "(),(t)->(t)", target="cuda")
    def mul(a, b, out):
        for i in range(b.size):
            out[i] = a * b[i]

    b = np.arange(10, dtype=np.int32)
    np.testing.assert_array_equal(mul(np.int64(2), b), 2 * b)
    with pytest.raises(TypeError, match="does not support .astype()"):
        mul(cuda.to_device(np.array(2, np.int64)), b)


@pytest.mark.nosim("generalized ufuncs (cuda.guvectorize) are not simulated")
def test_gufunc_several_outputs_and_old_style_scalar():
    @cuda.guvectorize([void(int32[:], int32[:], float64[:])], "(x)->(x),(x)", target="cuda")
    def two(A, B, C):
        for i in range(B.size):
            B[i] = A[i]
            C[i] = A[i] * 1.5

    A = np.arange(10, dtype=np.int32) + 1
    B, C = two(A)
    np.testing.assert_array_equal(B, A)
    np.testing.assert_array_equal(C, A * 1.5)

    @cuda.guvectorize(["void(int32[:], int32[:], int32[:])"], "(n),()->(n)", target="cuda")
    def addy(x, y, res):
        for i in range(x.shape[0]):
            res[i] = x[i] + y[0]

    res = np.zeros(4, np.int32)
    addy(np.array([1, 2, 3, 4], np.int32), np.array([2], np.int32), out=res)
    np.testing.assert_array_equal(res, [3, 4, 5, 6])
    a = np.array([1, 2, 3, 4] * 2, np.int32).reshape(2, 4)
    res = np.zeros((2, 4), np.int32)
    addy(a, np.array([2, 10], np.int32), res)
    np.testing.assert_array_equal(res, a + np.array([[2], [10]]))


@pytest.mark.nosim("the compiled ufunc's fast path (the simulator runs ufuncs its own way)")
def test_cupy_arrays_with_out_take_the_fast_path(add, monkeypatch):
    """1-d C-contiguous CuPy arrays (inputs, out=, or both, mixed with device arrays) take
    the fast path -- the general path (``_run``) does not run -- and give NumPy's result;
    a CuPy out= comes back as a device array over its memory (numba's result, and the
    general path's); a strided CuPy input goes the general way and is right too."""
    cp = pytest.importorskip("cupy")
    x = np.arange(3000, dtype=np.float32)
    y = (np.arange(3000) % 11).astype(np.float32)
    cx, cy = cp.asarray(x), cp.asarray(y)
    cout = cp.zeros(3000, cp.float32)
    dy, dout = cuda.to_device(y), cuda.device_array(3000, np.float32)
    for args, out in (((cx, cy), cout), ((cx, dy), dout), ((2.5, cy), cout)):
        add(*args, out=out)  # the first call of a key may compile, on the general path
    general = []
    run = add._run
    monkeypatch.setattr(add, "_run", lambda *a, **k: general.append(1) or run(*a, **k))
    views = set()
    for _ in range(3):
        r = add(cx, cy, out=cout)
        assert r.device_ctypes_pointer.value == cout.data.ptr and r.shape == (3000,)
        views.add(id(r))
    assert len(views) == 1  # the same out= object: the kept view
    np.testing.assert_array_equal(cp.asnumpy(cout), x + y)
    assert add(cx, dy, out=dout) is dout
    np.testing.assert_array_equal(dout.copy_to_host(), x + y)
    add(2.5, cy, out=cout)
    np.testing.assert_array_equal(cp.asnumpy(cout), np.float32(2.5) + y)
    assert general == []
    strided = cp.asarray(np.arange(6000, dtype=np.float32))[::2]
    half = cp.zeros(3000, cp.float32)
    r = add(strided, cy, out=half)
    assert r.device_ctypes_pointer.value == half.data.ptr
    np.testing.assert_array_equal(cp.asnumpy(half), np.arange(6000, dtype=np.float32)[::2] + y)
    assert general == [1]


@pytest.mark.nosim("the compiled ufunc's fast path (the simulator runs ufuncs its own way)")
def test_new_outputs_take_the_fast_path(add, monkeypatch):
    """Without out=, 1-d device arrays and CuPy arrays get a new device array of the
    loop's dtype on the fast path (the general path does not run), equal to NumPy's."""
    x = np.arange(4000, dtype=np.float64)
    y = (np.arange(4000) % 5).astype(np.float64)
    dx, dy = cuda.to_device(x), cuda.to_device(y)
    add(dx, dy)  # the first call of a key may compile, on the general path
    general = []
    run = add._run
    monkeypatch.setattr(add, "_run", lambda *a, **k: general.append(1) or run(*a, **k))
    for _ in range(3):
        r = add(dx, dy)
        assert r.dtype == np.float64 and r.shape == (4000,)
        np.testing.assert_array_equal(r.copy_to_host(), x + y)
    assert general == []
    cp = pytest.importorskip("cupy")
    cx, cy = cp.asarray(x), cp.asarray(y)
    monkeypatch.setattr(add, "_run", run)
    add(cx, cy)
    monkeypatch.setattr(add, "_run", lambda *a, **k: general.append(1) or run(*a, **k))
    r = add(cx, cy)
    np.testing.assert_array_equal(r.copy_to_host(), x + y)
    assert general == []


_SPIN_FILL = r"""
extern "C" __global__ void spin_fill(float* a, int n, float v) {
    long long t0 = clock64();
    while (clock64() - t0 < 100000000LL) {}  // ~50 ms: a later launch not ordered after it reads old data
    for (int i = threadIdx.x; i < n; i += blockDim.x) a[i] = v;
}
"""


@pytest.mark.nosim("the compiled ufunc's fast path (the simulator runs ufuncs its own way)")
def test_cupy_arrays_seen_again_launch_as_views_and_stay_ordered(add, monkeypatch):
    """CuPy arrays read again launch as kept device-array views on CuPy's null stream
    (the fast path; the result follows their memory, written in place between calls);
    under another CuPy stream the launch still waits for work queued there (a slow
    kernel that fills the input): the same values as NumPy either way, for new outputs
    and for a CuPy out=."""
    cp = pytest.importorskip("cupy")
    spin = cp.RawKernel(_SPIN_FILL, "spin_fill")
    n = 5000
    y = (np.arange(n) % 7).astype(np.float32)
    cx, cy, cout = cp.asarray(np.arange(n, dtype=np.float32)), cp.asarray(y), cp.zeros(n, cp.float32)
    add(cx, cy)  # the first call of a key may compile, on the general path
    add(cx, cy, out=cout)
    general = []
    run = add._run
    monkeypatch.setattr(add, "_run", lambda *a, **k: general.append(1) or run(*a, **k))
    for v in (1.0, 2.0, 3.0):
        cx.fill(v)  # in place, on CuPy's null stream: the kept view sees it
        np.testing.assert_array_equal(add(cx, cy).copy_to_host(), np.float32(v) + y)
        r = add(cx, cy, out=cout)
        assert r.device_ctypes_pointer.value == cout.data.ptr
        np.testing.assert_array_equal(cp.asnumpy(cout), np.float32(v) + y)
    s = cp.cuda.Stream(non_blocking=True)
    for v in (4.0, 5.0):
        with s:
            spin((1,), (256,), (cx, np.int32(n), np.float32(v)))  # queued on s, ~50 ms
            new = add(cx, cy)
            spin((1,), (256,), (cx, np.int32(n), np.float32(v + 10)))
            add(cx, cy, out=cout)
        s.synchronize()
        cuda.synchronize()
        np.testing.assert_array_equal(new.copy_to_host(), np.float32(v) + y)
        np.testing.assert_array_equal(cp.asnumpy(cout), np.float32(v + 10) + y)
    assert general == []
