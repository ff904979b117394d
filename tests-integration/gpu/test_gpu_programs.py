"""Whole numba.cuda-style programs, written as numba-cuda users write them (only the
import line differs), checked against NumPy."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cudalite import cuda, types

pytestmark = pytest.mark.gpu


@cuda.jit
def increment_by_one(an_array):
    pos = cuda.grid(1)
    if pos < an_array.size:
        an_array[pos] += 1


def test_increment_host_array_copies_back(gpu):
    a = np.arange(1000, dtype=np.float64)
    threadsperblock = 32
    blockspergrid = (a.size + (threadsperblock - 1)) // threadsperblock
    increment_by_one[blockspergrid, threadsperblock](a)
    np.testing.assert_array_equal(a, np.arange(1000) + 1)


@cuda.jit(device=True)
def mandel(x, y, max_iters):
    c = complex(x, y)
    z = 0.0j
    for i in range(max_iters):
        z = z * z + c
        if (z.real * z.real + z.imag * z.imag) >= 4:
            return i
    return max_iters


@cuda.jit
def mandel_kernel(min_x, max_x, min_y, max_y, image, iters):
    height = image.shape[0]
    width = image.shape[1]
    pixel_size_x = (max_x - min_x) / width
    pixel_size_y = (max_y - min_y) / height
    start_x, start_y = cuda.grid(2)
    grid_x, grid_y = cuda.gridsize(2)
    for x in range(start_x, width, grid_x):
        real = min_x + x * pixel_size_x
        for y in range(start_y, height, grid_y):
            imag = min_y + y * pixel_size_y
            image[y, x] = mandel(real, imag, iters)


def _mandel_ref(min_x, max_x, min_y, max_y, h, w, iters):
    out = np.zeros((h, w), np.uint8)
    for x in range(w):
        real = min_x + x * (max_x - min_x) / w
        for y in range(h):
            imag = min_y + y * (max_y - min_y) / h
            c, z, n = complex(real, imag), 0j, iters
            for i in range(iters):
                z = z * z + c
                if z.real * z.real + z.imag * z.imag >= 4:
                    n = i
                    break
            out[y, x] = n
    return out


def test_mandelbrot(gpu):
    image = np.zeros((48, 64), dtype=np.uint8)
    d_image = cuda.to_device(image)
    mandel_kernel[(4, 4), (8, 8)](-2.0, 1.0, -1.0, 1.0, d_image, 20)
    got = d_image.copy_to_host()
    np.testing.assert_array_equal(got, _mandel_ref(-2.0, 1.0, -1.0, 1.0, 48, 64, 20))


TPB = 16


@cuda.jit
def fast_matmul(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=types.float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=types.float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x
    tmp = types.float32(0.)
    for i in range(bpg):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


def test_shared_memory_matmul_with_streams_and_events(gpu):
    rng = np.random.default_rng(0)
    a = rng.random((70, 50), dtype=np.float32)
    b = rng.random((50, 90), dtype=np.float32)
    stream = cuda.stream()
    start, end = cuda.event(), cuda.event()
    d_a = cuda.to_device(a, stream=stream)
    d_b = cuda.to_device(b, stream=stream)
    d_c = cuda.device_array((70, 90), dtype=np.float32, stream=stream)
    grid = (math.ceil(90 / TPB), math.ceil(70 / TPB))
    start.record(stream)
    fast_matmul[(max(grid), max(grid)), (TPB, TPB), stream](d_a, d_b, d_c)
    end.record(stream)
    c = d_c.copy_to_host(stream=stream)
    stream.synchronize()
    assert cuda.event_elapsed_time(start, end) >= 0
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


def make_elementwise(op):
    """A kernel factory: the device function is a closure variable of the kernel."""
    fn = cuda.jit(device=True)(op)

    @cuda.jit
    def apply(x, y, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = fn(x[i], y[i])

    return apply


def test_kernel_factories_with_closures(gpu):
    x = np.linspace(0, 1, 300)
    y = np.linspace(1, 2, 300)
    for op, ref in ((lambda a, b: a * b + 1, x * y + 1), (lambda a, b: max(a, b - 1.5), np.maximum(x, y - 1.5))):
        out = np.zeros(300)
        make_elementwise(op)[10, 32](x, y, out)
        np.testing.assert_allclose(out, ref)


@cuda.jit
def bubble_sort_rows(m):
    row = cuda.grid(1)
    if row >= m.shape[0]:
        return
    tmp = cuda.local.array(16, dtype=types.int32)
    n = m.shape[1]
    for j in range(n):
        tmp[j] = m[row, j]
    for i in range(n):
        for j in range(n - 1 - i):
            if tmp[j] > tmp[j + 1]:
                tmp[j], tmp[j + 1] = tmp[j + 1], tmp[j]
    for j in range(n):
        m[row, j] = tmp[j]


def test_local_arrays_and_tuple_swaps(gpu):
    m = np.random.default_rng(3).integers(-100, 100, (40, 16)).astype(np.int32)
    d = cuda.to_device(m)
    bubble_sort_rows[2, 32](d)
    np.testing.assert_array_equal(d.copy_to_host(), np.sort(m, axis=1))


@cuda.jit
def heat_step(u, u_new, alpha):
    i, j = cuda.grid(2)
    n, m = u.shape
    if 0 < i < n - 1 and 0 < j < m - 1:
        u_new[i, j] = u[i, j] + alpha * (u[i + 1, j] + u[i - 1, j] + u[i, j + 1] + u[i, j - 1] - 4 * u[i, j])


def test_many_launches_double_buffered(gpu):
    u = np.zeros((32, 32))
    u[16, 16] = 100.0
    a, b = cuda.to_device(u), cuda.to_device(u)
    for _ in range(50):
        heat_step[(4, 4), (8, 8)](a, b, 0.1)
        a, b = b, a
    ref_a, ref_b = u.copy(), u.copy()
    for _ in range(50):
        ref_b[1:-1, 1:-1] = ref_a[1:-1, 1:-1] + 0.1 * (ref_a[2:, 1:-1] + ref_a[:-2, 1:-1] + ref_a[1:-1, 2:]
                                                        + ref_a[1:-1, :-2] - 4 * ref_a[1:-1, 1:-1])
        ref_a, ref_b = ref_b, ref_a
    np.testing.assert_allclose(a.copy_to_host(), ref_a, rtol=1e-12)


@cuda.jit(["void(float32[:], float32[:])", "void(float64[:], float64[:])"])
def square_into(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * x[i]


@pytest.mark.nosim("compiled dispatch: overloads and signature matching")
def test_eager_signature_list(gpu):
    for dt in (np.float32, np.float64):
        x = np.arange(100, dtype=dt)
        out = np.zeros_like(x)
        square_into[4, 32](x, out)
        np.testing.assert_array_equal(out, x * x)
    assert len(square_into.overloads) == 2


@cuda.jit(debug=True, opt=False)
def checked_sqrt(x, out):
    i = cuda.grid(1)
    if i < x.size:
        assert x[i] >= 0, "negative input"
        out[i] = math.sqrt(x[i])


def test_debug_assert_surfaces_on_host(gpu):
    x = np.array([1.0, 4.0, -9.0, 16.0])
    out = np.zeros(4)
    with pytest.raises(AssertionError, match="negative input"):
        checked_sqrt[1, 4](x, out)
    checked_sqrt[1, 4](np.abs(x), out)
    np.testing.assert_array_equal(out, [1, 2, 3, 4])


@cuda.jit
def histogram_atomic(data, bins, lo, hi):
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    nbins = bins.shape[0]
    for k in range(i, data.shape[0], stride):
        b = int((data[k] - lo) / (hi - lo) * nbins)
        if 0 <= b < nbins:
            cuda.atomic.add(bins, b, 1)


def test_global_atomics_histogram(gpu):
    data = np.random.default_rng(5).normal(size=100_000)
    bins = cuda.to_device(np.zeros(20, np.int64))
    histogram_atomic[64, 128](cuda.to_device(data), bins, -3.0, 3.0)
    b = np.trunc((data + 3.0) / 6.0 * 20).astype(np.int64)  # int() truncates toward zero, as in Python
    ref = np.bincount(b[(b >= 0) & (b < 20)], minlength=20)
    np.testing.assert_array_equal(bins.copy_to_host(), ref)
