"""CUDA vector types on the GPU: every one of numba-cuda's 40 types (and its CUDA C
aliases) built from scalars and from smaller vectors, read back by component,
passed to and returned from device functions, and handed to CUDA C foreign
functions taking and returning ``float4``/``short2``/``double3`` by value.
Values are checked against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

NAMES = [f"{b}x{n}" for b in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                              "float32", "float64") for n in (1, 2, 3, 4)]


def test_basic_as_numba_documents():
    from cudalite import cuda

    @cuda.jit("void(float64[:])")
    def kernel(arr):
        v1 = cuda.float64x4(1.0, 3.0, 5.0, 7.0)
        v2 = cuda.short2(10, 11)
        arr[0] = v1.x
        arr[1] = v1.y
        arr[2] = v1.z
        arr[3] = v1.w
        arr[4] = v2.x
        arr[5] = v2.y

    res = np.zeros(6, dtype=np.float64)
    kernel[1, 1](res)
    np.testing.assert_array_equal(res, [1.0, 3.0, 5.0, 7.0, 10, 11])


def _kernel_for(name):
    """A kernel building ``name`` from its base type's values 0, 1, ... and
    from a mix of a 1-vector, a 2-vector and scalars, writing every component."""
    from cudalite import cuda

    ctor = getattr(cuda, name)
    n = ctor.vector_type.count
    base = ctor.vector_type.base_type  # a cudalite type: base(5) is a cast in the kernel
    v1 = getattr(cuda, name[:-1] + "1")
    v2 = getattr(cuda, name[:-1] + "2")

    if n == 1:
        def k(res):
            a = ctor(base(0))
            b = ctor(v1(base(5)))
            res[0] = a.x
            res[1] = b.x
    elif n == 2:
        def k(res):
            a = ctor(base(0), base(1))
            b = ctor(v1(base(5)), base(6))
            res[0], res[1] = a.x, a.y
            res[2], res[3] = b.x, b.y
    elif n == 3:
        def k(res):
            a = ctor(base(0), base(1), base(2))
            b = ctor(base(5), v2(base(6), base(7)))
            res[0], res[1], res[2] = a.x, a.y, a.z
            res[3], res[4], res[5] = b.x, b.y, b.z
    else:
        def k(res):
            a = ctor(base(0), base(1), base(2), base(3))
            b = ctor(v2(base(5), base(6)), v1(base(7)), base(8))
            res[0], res[1], res[2], res[3] = a.x, a.y, a.z, a.w
            res[4], res[5], res[6], res[7] = b.x, b.y, b.z, b.w
    return k, n, np.dtype(str(base))


@pytest.mark.parametrize("name", NAMES)
def test_creation_readout(name):
    from cudalite import cuda

    k, n, base = _kernel_for(name)
    res = np.zeros(2 * n, dtype=base)
    cuda.jit(k)[1, 1](res)
    np.testing.assert_array_equal(res, np.array(list(range(n)) + list(range(5, 5 + n)), dtype=base))


def test_aliases_are_the_same_constructors():
    from cudalite import cuda

    for name in NAMES:
        ctor = getattr(cuda, name)
        for alias in ctor.aliases:
            assert getattr(cuda, alias) is ctor


def test_device_functions_take_and_return_vectors():
    from cudalite import cuda

    @cuda.jit(device=True)
    def rotate(v):
        return cuda.float32x3(v.y, v.z, v.x)

    @cuda.jit(device=True)
    def dot(a, b):
        return a.x * b.x + a.y * b.y + a.z * b.z

    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < out.shape[0]:  # rows (out.size, 400, let threads 100-127 read and write past the arrays)
            v = cuda.float3(x[i, 0], x[i, 1], x[i, 2])
            r = rotate(v)
            out[i, 0] = r.x
            out[i, 1] = r.y
            out[i, 2] = r.z
            out[i, 3] = dot(v, r)

    x = np.random.default_rng(3).standard_normal((100, 3)).astype(np.float32)
    out = np.zeros((100, 4), np.float32)
    k[1, 128](x, out)
    rolled = np.roll(x, -1, axis=1)
    np.testing.assert_array_equal(out[:, :3], rolled)
    terms = x.astype(np.float64) * rolled.astype(np.float64)
    # float32 sums (the device may contract into FMAs): error bound relative to the terms' magnitude
    assert np.all(np.abs(out[:, 3] - terms.sum(axis=1)) <= 4e-7 * np.abs(terms).sum(axis=1) * 3)


@pytest.mark.nosim("linking CUDA C/C++, PTX, cubins or LTO-IR (FFI)")
def test_foreign_functions_take_and_return_cuda_c_vectors():
    from cudalite import cuda
    from cudalite.linker import CUSource

    src = CUSource(r'''
extern "C" __device__ float dot4(float4 a, float4 b) { return a.x*b.x + a.y*b.y + a.z*b.z + a.w*b.w; }
extern "C" __device__ float4 mk4(float a) { return make_float4(a, 2*a, 3*a, 4*a); }
extern "C" __device__ int nb4(float4* ret, float4 a, short2 s, double3 d) {
    *ret = make_float4(a.x + s.x, a.y + s.y, a.z + (float)d.z, a.w); return 0; }
''', name="vec_ffi.cu")
    dot4 = cuda.declare_device("dot4", "float32(float32x4, float32x4)", abi="c", link=[src])
    mk4 = cuda.declare_device("mk4", "float32x4(float32)", abi="c", link=[src])
    nb4 = cuda.declare_device("nb4", "float32x4(float32x4, short2, double3)", link=[src])

    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            v = mk4(x[i])
            w = nb4(cuda.float4(x[i], 1, 2, 3), cuda.short2(1, 2), cuda.double3(0.0, 0.0, 0.5))
            out[i, 0] = dot4(v, w)
            out[i, 1] = w.x
            out[i, 2] = w.z

    x = np.arange(64, dtype=np.float32)
    out = np.zeros((64, 3), np.float32)
    k[1, 64](x, out)
    w = np.stack([x + 1, np.full_like(x, 3), np.full_like(x, 2.5), np.full_like(x, 3)], axis=1)
    v = np.stack([x, 2 * x, 3 * x, 4 * x], axis=1)
    np.testing.assert_allclose(out[:, 0], (v * w).sum(axis=1), rtol=1e-6)
    np.testing.assert_array_equal(out[:, 1], x + 1)
    np.testing.assert_array_equal(out[:, 2], np.full_like(x, 2.5))
