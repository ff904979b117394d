"""Warpgroup MMA (``cuda.wgmma``) and register reallocation (``cuda.setmaxnreg``) on an
sm_90 GPU (H100/H200; the jit compiles these kernels for sm_90a): one warpgroup's
``D = A @ B`` for each input type, N from 8 to 256, every swizzle mode, A from registers,
B transposed, against NumPy; the descriptor's fields; the accumulator store; the
warp-specialised TMA GEMM of examples/wgmma_gemm.py against NumPy over more tiles than
SMs."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from cudalite import cuda, types

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("warpgroup MMA (cuda.wgmma, sm_90a)")]

ESIZE = {"f16": 2, "bf16": 2, "tf32": 4, "e4m3": 1, "e5m2": 1}


@pytest.fixture(autouse=True)
def _sm90():
    if cuda.get_current_device().compute_capability != (9, 0):
        pytest.skip("wgmma and setmaxnreg exist only on sm_90a (H100/H200)")


def _numpy_dtype(name):
    if name == "f16":
        return np.float16
    if name == "tf32":
        return np.float32
    ml = pytest.importorskip("ml_dtypes")
    return {"bf16": ml.bfloat16, "e4m3": ml.float8_e4m3fn, "e5m2": ml.float8_e5m2}[name]


def _device_of(a):
    """A device array of ``a`` (any dtype) through its bytes."""
    from cudalite.cuda.devicearray import DeviceNDArray

    raw = cuda.to_device(np.ascontiguousarray(a).view(np.uint8))
    return DeviceNDArray(a.shape, a.strides, a.dtype, ptr=raw._ptr, owner=raw)


def _product_kernel(dtype, n, swz, rs, trans_b, lbo, sbo, steps, b_bytes):
    """One warpgroup: TMA-load A (64 rows of ``swz`` bytes) and B, then ``steps`` MMAs of
    32 bytes of K each (or 16 rows of a transposed B), and store D through
    ``accumulator_coords``."""

    @cuda.jit
    def product(ta, tb, a, out):
        sa = cuda.shared.array(64 * 128, np.uint8, alignment=1024)
        sb = cuda.shared.array(256 * 128, np.uint8, alignment=1024)
        bar = cuda.shared.array(1, np.uint64, alignment=8)
        t = cuda.threadIdx.x
        if t == 0:
            cuda.mbarrier.init(bar, 0, 1)
            cuda.mbarrier.fence_init()
        cuda.syncthreads()
        if t == 0:
            cuda.mbarrier.arrive_expect_tx(bar, 0, 64 * swz + b_bytes)
            cuda.tma.load(sa, ta, (0, 0), bar, 0)
            cuda.tma.load(sb, tb, (0, 0), bar, 0)
        cuda.mbarrier.wait(bar, 0, 0)
        acc = cuda.wgmma.zeros(n)
        cuda.wgmma.fence()
        for s in range(steps):
            if trans_b:  # 16 rows of K, 128 bytes each
                db = cuda.wgmma.make_desc(sb, 2048 * s, swz, lbo, sbo)
            else:
                db = cuda.wgmma.make_desc(sb, 32 * s, swz, lbo, sbo)
            if rs:  # A's fragment from registers: the accumulator's layout, pairs packed
                r0, c0 = cuda.wgmma.accumulator_coords(0)
                r1, c1 = cuda.wgmma.accumulator_coords(2)
                r2, c2 = cuda.wgmma.accumulator_coords(4)
                r3, c3 = cuda.wgmma.accumulator_coords(6)
                o = 16 * s
                fa = (cuda.mma.pack_f16x2(a[r0, o + c0], a[r0, o + c0 + 1]),
                      cuda.mma.pack_f16x2(a[r1, o + c1], a[r1, o + c1 + 1]),
                      cuda.mma.pack_f16x2(a[r2, o + c2], a[r2, o + c2 + 1]),
                      cuda.mma.pack_f16x2(a[r3, o + c3], a[r3, o + c3 + 1]))
                acc = cuda.wgmma.mma_async(acc, fa, db, dtype, s > 0)
            else:
                da = cuda.wgmma.make_desc(sa, 32 * s, swz, lbo, sbo)
                acc = cuda.wgmma.mma_async(acc, da, db, dtype, s > 0, False, trans_b)
        cuda.wgmma.commit_group()
        acc = cuda.wgmma.wait_group(0, acc)
        for i in range(n // 2):
            r, c = cuda.wgmma.accumulator_coords(i)
            out[r, c] = acc[i]

    return product


def _check_product(dtype, n, swz, rs=False, trans_b=False, lbo=16):
    kt = swz // ESIZE[dtype]
    np_dtype = _numpy_dtype(dtype)
    K = 64 if trans_b else kt
    steps = 4 if trans_b else swz // 32
    rng = np.random.default_rng(n + swz)
    a = rng.standard_normal((64, K)).astype(np_dtype)
    b = rng.standard_normal((n, K)).astype(np_dtype)  # B.T: K-major
    ta = cuda.make_tensor_map(_device_of(a), (64, K), swizzle=swz)
    if trans_b:  # B itself (K x N, N contiguous): MN-major
        tb = cuda.make_tensor_map(_device_of(np.ascontiguousarray(b.T)), (64, 64), swizzle=swz)
        b_bytes = 64 * 128
    else:
        tb = cuda.make_tensor_map(_device_of(b), (n, kt), swizzle=swz)
        b_bytes = n * swz
    kernel = _product_kernel(dtype, n, swz, rs, trans_b, lbo, 8 * swz, steps, b_bytes)
    out = cuda.to_device(np.zeros((64, n), np.float32))
    kernel[1, 128](ta, tb, cuda.to_device(a.astype(np.float32)), out)
    ref = a.astype(np.float32) @ b.astype(np.float32).T
    # tf32 rounds the inputs; the fp8 MMA adds its products at reduced precision (measured: 2-4e-4 of
    # the largest |D| on an H200); f16/bf16 products are exact in float32
    tol = {"tf32": 2e-3, "e4m3": 2e-3, "e5m2": 2e-3}.get(dtype, 1e-5)
    np.testing.assert_allclose(out.copy_to_host(), ref, rtol=tol, atol=tol * np.abs(ref).max())


@pytest.mark.parametrize("dtype,n,swz", [
    ("f16", 64, 128), ("f16", 256, 128), ("f16", 8, 128), ("f16", 64, 64), ("f16", 128, 32),
    ("bf16", 128, 128), ("tf32", 64, 128), ("e4m3", 64, 128), ("e5m2", 128, 128),
])
def test_product_from_shared_memory(dtype, n, swz):
    _check_product(dtype, n, swz)


def test_a_from_registers():
    _check_product("f16", 64, 128, rs=True)


def _rs_kernel(dtype, n, esize):
    """One warpgroup: A (64 x K, raw bits) from registers in PTX's A-fragment layout -- per
    k-step of 32 bytes, register j of lane l in warp w holds row 16w + l//4 + 8*(j%2) and
    the 4 bytes of consecutive elements from column (16 bytes) * (j//2) + (4 bytes) * (l%4)
    (the accumulator's layout for 16-bit types); B from shared memory by TMA (128-byte
    swizzle)."""
    per_reg = 4 // esize  # elements per 32-bit register
    span = 16 // esize  # columns between register pairs

    @cuda.jit
    def product(tb, a, out):
        sb = cuda.shared.array(256 * 128, np.uint8, alignment=1024)
        bar = cuda.shared.array(1, np.uint64, alignment=8)
        t = cuda.threadIdx.x
        if t == 0:
            cuda.mbarrier.init(bar, 0, 1)
            cuda.mbarrier.fence_init()
        cuda.syncthreads()
        if t == 0:
            cuda.mbarrier.arrive_expect_tx(bar, 0, n * 128)
            cuda.tma.load(sb, tb, (0, 0), bar, 0)
        cuda.mbarrier.wait(bar, 0, 0)
        lane, w = t % 32, t // 32
        r = 16 * w + lane // 4
        acc = cuda.wgmma.zeros(n)
        cuda.wgmma.fence()
        for s in range(4):
            o = s * (32 // esize) + per_reg * (lane % 4)
            v0 = v1 = v2 = v3 = types.uint64(0)
            for e in range(per_reg):
                sh = types.uint64(8 * esize * e)
                v0 |= types.uint64(a[r, o + e]) << sh
                v1 |= types.uint64(a[r + 8, o + e]) << sh
                v2 |= types.uint64(a[r, o + span + e]) << sh
                v3 |= types.uint64(a[r + 8, o + span + e]) << sh
            db = cuda.wgmma.make_desc(sb, 32 * s, 128, 16, 1024)
            fa = (types.uint32(v0), types.uint32(v1), types.uint32(v2), types.uint32(v3))
            acc = cuda.wgmma.mma_async(acc, fa, db, dtype, s > 0)
        cuda.wgmma.commit_group()
        acc = cuda.wgmma.wait_group(0, acc)
        cuda.wgmma.store(acc, out, 0, 0)

    return product


@pytest.mark.parametrize("dtype, n", [("bf16", 64), ("tf32", 128), ("e4m3", 64)])
def test_a_from_registers_other_types(dtype, n):
    esize = ESIZE[dtype]
    np_dtype = _numpy_dtype(dtype)
    bits = {1: np.uint8, 2: np.uint16, 4: np.uint32}[esize]
    k = 128 // esize
    rng = np.random.default_rng(n)
    a = rng.standard_normal((64, k)).astype(np_dtype)
    b = rng.standard_normal((n, k)).astype(np_dtype)
    tb = cuda.make_tensor_map(_device_of(b), (n, k), swizzle=128)
    out = cuda.to_device(np.zeros((64, n), np.float32))
    _rs_kernel(dtype, n, esize)[1, 128](tb, cuda.to_device(np.ascontiguousarray(a).view(bits)), out)
    ref = a.astype(np.float32) @ b.astype(np.float32).T
    tol = 1e-5 if dtype == "bf16" else 2e-3
    np.testing.assert_allclose(out.copy_to_host(), ref, rtol=tol, atol=tol * np.abs(ref).max())


def test_b_transposed():
    _check_product("f16", 64, 128, trans_b=True)


@pytest.mark.parametrize("n", [64, 256])
def test_unswizzled_core_matrix_layout(n):
    """No swizzle: 8 x 16-byte core matrices, the leading byte offset between core
    matrices along K (128), the stride byte offset between 8-row groups (256)."""

    @cuda.jit
    def product(a, b, out):
        sa = cuda.shared.array(64 * 16, np.float16, alignment=128)
        sb = cuda.shared.array(256 * 16, np.float16, alignment=128)
        t = cuda.threadIdx.x
        for i in range(t, 64 * 16, 128):
            r, kk = i // 16, i % 16
            sa[((r // 8) * 256 + (kk // 8) * 128 + (r % 8) * 16 + (kk % 8) * 2) // 2] = a[r, kk]
        for i in range(t, n * 16, 128):
            r, kk = i // 16, i % 16
            sb[((r // 8) * 256 + (kk // 8) * 128 + (r % 8) * 16 + (kk % 8) * 2) // 2] = b[r, kk]
        cuda.fence_proxy_async()  # the threads' stores, visible to the tensor cores
        cuda.syncthreads()
        cuda.wgmma.fence()
        acc = cuda.wgmma.mma_async(cuda.wgmma.zeros(n), cuda.wgmma.make_desc(sa, 0, 0, 128, 256),
                                   cuda.wgmma.make_desc(sb, 0, 0, 128, 256), "f16", False)
        cuda.wgmma.commit_group()
        acc = cuda.wgmma.wait_group(0, acc)
        cuda.wgmma.store(acc, out, 0, 0)

    rng = np.random.default_rng(2)
    a = rng.standard_normal((64, 16)).astype(np.float16)
    b = rng.standard_normal((n, 16)).astype(np.float16)
    out = cuda.to_device(np.zeros((64, n), np.float32))
    product[1, 128](cuda.to_device(a), cuda.to_device(b), out)
    np.testing.assert_allclose(out.copy_to_host(), a.astype(np.float32) @ b.astype(np.float32).T, rtol=1e-5,
                               atol=1e-4)


def test_descriptor_fields_and_dynamic_shared_alignment():
    """make_desc's bit fields (start >> 4, leading/stride >> 4, swizzle mode), read back;
    a dynamic shared array declared with alignment=1024 starts on a 1024-byte boundary."""

    @cuda.jit
    def fields(out):
        dyn = cuda.shared.array(0, np.float16, alignment=1024)
        d0 = cuda.wgmma.make_desc(dyn, 0, 128, 16, 1024)
        d1 = cuda.wgmma.make_desc(dyn, 8, 64, 32, 512)  # 8 float16 further: 16 bytes
        if cuda.threadIdx.x == 0:
            out[0] = d0 & 0x3FFF
            out[1] = (d1 & 0x3FFF) - (d0 & 0x3FFF)
            out[2] = (d0 >> 16) & 0x3FFF
            out[3] = (d0 >> 32) & 0x3FFF
            out[4] = d0 >> 62
            out[5] = (d1 >> 16) & 0x3FFF
            out[6] = (d1 >> 32) & 0x3FFF
            out[7] = d1 >> 62

    out = cuda.to_device(np.zeros(8, np.int64))
    fields[1, 32, 0, 4096](out)
    got = out.copy_to_host()
    assert got[0] % 64 == 0  # (address >> 4) of a 1024-byte-aligned address
    assert list(got[1:]) == [1, 1, 64, 1, 2, 32, 2]


def test_store_converts_and_places_the_tile():
    """cuda.wgmma.store writes the 64 x N tile at (row, col) of a larger array in its
    dtype and touches nothing else."""

    @cuda.jit
    def ident(out16, out32):
        acc = cuda.wgmma.zeros(32)
        r, c = cuda.wgmma.accumulator_coords(0)
        acc = (types.float32(r * 100 + c),) + acc[1:]  # element 0 of each thread: a value naming its place
        cuda.wgmma.store(acc, out16, 8, 16)
        cuda.wgmma.store(acc, out32, 0, 32)

    out16 = cuda.to_device(np.full((80, 64), 7, np.float16))
    out32 = cuda.to_device(np.full((64, 64), 7, np.float32))
    ident[1, 128](out16, out32)
    h16, h32 = out16.copy_to_host(), out32.copy_to_host()
    expect = np.zeros((64, 32), np.float32)
    for lane in range(128):
        w, g, t = lane // 32, (lane % 32) // 4, lane % 4
        r, c = 16 * w + g, 2 * t
        expect[r, c] = r * 100 + c
    np.testing.assert_array_equal(h32[:, 32:], expect)
    np.testing.assert_array_equal(h32[:, :32], 7)
    np.testing.assert_array_equal(h16[8:72, 16:48], expect.astype(np.float16))
    assert (h16[:8] == 7).all() and (h16[72:] == 7).all() and (h16[:, :16] == 7).all() and (h16[:, 48:] == 7).all()


def test_setmaxnreg_between_warpgroups():
    @cuda.jit(launch_bounds=(384, 1))
    def regs(out):
        wg = cuda.threadIdx.x // 128
        if wg == 0:
            cuda.setmaxnreg.dec(40)
        else:
            cuda.setmaxnreg.inc(232)
        out[cuda.threadIdx.x] = wg * 10 + 1

    out = cuda.to_device(np.zeros(384, np.int32))
    regs[1, 384](out)
    np.testing.assert_array_equal(out.copy_to_host(), (np.arange(384) // 128) * 10 + 1)
    (compiled,) = regs.overloads.values()
    assert compiled.artifact.arch == "sm_90a"  # chosen by the jit on this 9.0 device


@pytest.fixture(scope="module")
def wgmma_gemm():
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
    try:
        import wgmma_gemm
    finally:
        sys.path.pop(0)
    return wgmma_gemm


@pytest.mark.parametrize("dtype", ["f16", "bf16", "e4m3"])
def test_warp_specialised_gemm(wgmma_gemm, dtype):
    """The persistent TMA + wgmma GEMM over 256 tiles (more than the SMs: each block runs
    several, the pipeline's phases carry over) against NumPy."""
    np_in = _numpy_dtype(dtype)
    out_dtype = np.float16 if dtype == "f16" else _numpy_dtype("bf16")
    m, n, k = 4096, 2048, 512
    rng = np.random.default_rng(11)
    a = (rng.standard_normal((m, k)) * 0.5).astype(np_in)
    b = (rng.standard_normal((n, k)) * 0.5).astype(np_in)
    c = _device_of(np.zeros((m, n), out_dtype))
    wgmma_gemm.matmul(wgmma_gemm.make_gemm(dtype), _device_of(a), _device_of(b), c, dtype=dtype)
    ref = a.astype(np.float32) @ b.astype(np.float32).T
    got = c.copy_to_host().astype(np.float32)
    tol = 1e-2 if dtype == "f16" else 2e-2  # the output's rounding (bfloat16: 8 bits of mantissa)
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol * np.abs(ref).max())
    with pytest.raises(ValueError, match="K of"):
        wgmma_gemm.matmul(wgmma_gemm.make_gemm(dtype), _device_of(a[:, :100]), _device_of(b[:, :100]), c,
                          dtype=dtype)


def test_store_out_of_bounds_raises_under_boundscheck():
    @cuda.jit(boundscheck=True)
    def place(out, row):
        cuda.wgmma.store(cuda.wgmma.zeros(16), out, row, 0)

    out = cuda.to_device(np.full((64, 16), 5, np.float32))
    place[1, 128](out, 0)
    np.testing.assert_array_equal(out.copy_to_host(), 0)
    with pytest.raises(IndexError):
        place[1, 128](out, 8)  # rows 8..71 of a 64-row array
        cuda.synchronize()
