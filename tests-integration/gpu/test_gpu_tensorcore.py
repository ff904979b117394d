"""Tensor cores and asynchronous copies on the GPU (cc >= 8.0): one warp's
``mma.sync`` for every shape (f16, bf16, tf32 -> f32; s8 -> s32) against NumPy, with
fragments built by hand and by ``ldmatrix``, and ``cp.async`` copies global -> shared
with commit/wait."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import cuda, types

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("tensor cores and asynchronous copies (mma, cp.async)")]


@pytest.fixture(autouse=True)
def _sm80():
    if cuda.get_current_device().compute_capability < (8, 0):
        pytest.skip("tensor cores (mma.sync) and cp.async need cc >= 8.0")


@cuda.jit(device=True)
def store_d(d, c):
    lane = cuda.laneid
    g, t = lane >> 2, lane & 3
    d[g, 2 * t] = c[0]
    d[g, 2 * t + 1] = c[1]
    d[g + 8, 2 * t] = c[2]
    d[g + 8, 2 * t + 1] = c[3]


def make_mma_f16(pk, mma):
    @cuda.jit
    def mma_f16(a, b, d):
        """D (16x8) = A (16x16) @ B (16x8), fragments packed from float32 per PTX's layout."""
        lane = cuda.laneid
        g, t = lane >> 2, lane & 3
        fa = (pk(a[g, 2 * t], a[g, 2 * t + 1]), pk(a[g + 8, 2 * t], a[g + 8, 2 * t + 1]),
              pk(a[g, 2 * t + 8], a[g, 2 * t + 9]), pk(a[g + 8, 2 * t + 8], a[g + 8, 2 * t + 9]))
        fb = (pk(b[2 * t, g], b[2 * t + 1, g]), pk(b[2 * t + 8, g], b[2 * t + 9, g]))
        zero = types.float32(0)
        store_d(d, mma(fa, fb, (zero, zero, zero, zero)))

    return mma_f16


mma_f16 = make_mma_f16(cuda.mma.pack_f16x2, cuda.mma.m16n8k16_f16_f32)
mma_bf16 = make_mma_f16(cuda.mma.pack_bf16x2, cuda.mma.m16n8k16_bf16_f32)


@pytest.mark.parametrize("bf16", [False, True])
def test_mma_m16n8k16(bf16):
    rng = np.random.default_rng(1)
    a, b = rng.random((16, 16), np.float32), rng.random((16, 8), np.float32)
    d = np.zeros((16, 8), np.float32)
    (mma_bf16 if bf16 else mma_f16)[1, 32](a, b, d)
    if bf16:  # round to bfloat16 (nearest even) as cvt.rn.bf16x2.f32 does
        def rnd(x):
            u = x.view(np.uint32).astype(np.uint64)
            u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
            return u.astype(np.uint32).view(np.float32)
    else:
        def rnd(x):
            return x.astype(np.float16).astype(np.float32)
    expect = rnd(a).astype(np.float64) @ rnd(b).astype(np.float64)
    np.testing.assert_allclose(d, expect, rtol=1e-5, atol=1e-5)


@cuda.jit
def mma_ldmatrix(a, b, d):
    """The same product with A and B^T staged in shared float16 tiles and loaded by ldmatrix."""
    sa = cuda.shared.array((16, 16), np.float16)
    sbt = cuda.shared.array((8, 16), np.float16)
    lane = cuda.laneid
    for k in range(lane, 256, 32):
        sa[k // 16, k % 16] = a[k // 16, k % 16]
    for k in range(lane, 128, 32):
        sbt[k // 16, k % 16] = b[k % 16, k // 16]
    cuda.syncwarp()
    fa = cuda.mma.ldmatrix(sa, (lane % 16, (lane // 16) * 8), 4)
    fb = cuda.mma.ldmatrix(sbt, (lane % 8, ((lane // 8) % 2) * 8), 2)
    zero = types.float32(0)
    store_d(d, cuda.mma.m16n8k16_f16_f32(fa, fb, (zero, zero, zero, zero)))


def test_ldmatrix_fragments():
    rng = np.random.default_rng(2)
    a, b = rng.random((16, 16), np.float32), rng.random((16, 8), np.float32)
    d = np.zeros((16, 8), np.float32)
    mma_ldmatrix[1, 32](a, b, d)
    expect = a.astype(np.float16).astype(np.float64) @ b.astype(np.float16).astype(np.float64)
    np.testing.assert_allclose(d, expect, rtol=1e-5, atol=1e-5)


@cuda.jit
def mma_tf32(a, b, d):
    lane = cuda.laneid
    g, t = lane >> 2, lane & 3
    tf = cuda.mma.to_tf32
    fa = (tf(a[g, t]), tf(a[g + 8, t]), tf(a[g, t + 4]), tf(a[g + 8, t + 4]))
    fb = (tf(b[t, g]), tf(b[t + 4, g]))
    zero = types.float32(0)
    store_d(d, cuda.mma.m16n8k8_tf32_f32(fa, fb, (zero, zero, zero, zero)))


def test_mma_tf32():
    rng = np.random.default_rng(3)
    a, b = rng.random((16, 8), np.float32), rng.random((8, 8), np.float32)
    d = np.zeros((16, 8), np.float32)
    mma_tf32[1, 32](a, b, d)
    np.testing.assert_allclose(d, a.astype(np.float64) @ b, rtol=2e-3)  # tf32: 10-bit mantissa


def make_mma_k32(mma, acc):
    @cuda.jit
    def mma_k32(a, b, d):
        """8-bit inputs: A (16x32) and B (32x8) as bytes packed four to a register (little-endian)."""
        lane = cuda.laneid
        g, t = lane >> 2, lane & 3
        a32 = a.view(np.uint32)  # rows of 32 bytes -> 8 uint32
        bt32 = b.view(np.uint32)  # b given transposed (8 x 32 bytes) -> 8 x 8 uint32
        fa = (a32[g, t], a32[g + 8, t], a32[g, t + 4], a32[g + 8, t + 4])
        fb = (bt32[g, t], bt32[g, t + 4])
        zero = acc(0)
        store_d(d, mma(fa, fb, (zero, zero, zero, zero)))

    return mma_k32


mma_s8 = make_mma_k32(cuda.mma.m16n8k32_s8_s32, types.int32)


def test_mma_s8():
    rng = np.random.default_rng(4)
    a = rng.integers(-128, 128, (16, 32), dtype=np.int64).astype(np.int8)
    b = rng.integers(-128, 128, (32, 8), dtype=np.int64).astype(np.int8)
    d = np.zeros((16, 8), np.int32)
    mma_s8[1, 32](a, np.ascontiguousarray(b.T), d)
    np.testing.assert_array_equal(d, a.astype(np.int32) @ b.astype(np.int32))


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_mma_fp8(fmt):
    """fp8 inputs (sm_89+), float32 accumulators: integer-valued fp8 operands keep every
    product and partial sum exact, so the result equals NumPy's exactly."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    if cuda.get_current_device().compute_capability < (8, 9):
        pytest.skip("fp8 mma.sync needs cc >= 8.9")
    dt = ml_dtypes.float8_e4m3fn if fmt == "e4m3" else ml_dtypes.float8_e5m2
    mma = make_mma_k32(getattr(cuda.mma, f"m16n8k32_{fmt}_f32"), types.float32)
    rng = np.random.default_rng(5)
    a = rng.integers(-8, 9, (16, 32)).astype(np.float32).astype(dt)
    b = rng.integers(-8, 9, (32, 8)).astype(np.float32).astype(dt)
    d = np.zeros((16, 8), np.float32)
    mma[1, 32](a.view(np.uint8), np.ascontiguousarray(b.T).view(np.uint8), d)
    np.testing.assert_array_equal(d, a.astype(np.float32) @ b.astype(np.float32))


@cuda.jit
def async_copy(src, out):
    """Two stages of 16-byte cp.async copies into shared memory, waited for in turn."""
    buf = cuda.shared.array((2, 256), np.float32)
    t = cuda.threadIdx.x  # 64 threads, 4 floats (16 bytes) each per stage
    base = cuda.blockIdx.x * 512
    cuda.pipeline.memcpy_async(buf, (0, 4 * t), src, base + 4 * t, 16)
    cuda.pipeline.commit()
    cuda.pipeline.memcpy_async(buf, (1, 4 * t), src, base + 256 + 4 * t, 16)
    cuda.pipeline.commit()
    cuda.pipeline.wait(1)  # the first group has landed
    cuda.syncthreads()
    for k in range(4):
        out[base + 4 * t + k] = buf[0, 4 * t + k] * 2
    cuda.pipeline.wait(0)
    cuda.syncthreads()
    for k in range(4):
        out[base + 256 + 4 * t + k] = buf[1, 4 * t + k] * 3


def test_memcpy_async_commit_wait():
    src = np.random.default_rng(5).random(4 * 512).astype(np.float32)
    out = np.zeros_like(src)
    async_copy[4, 64](src, out)
    expect = src.reshape(4, 2, 256) * np.array([2, 3], np.float32)[None, :, None]
    np.testing.assert_array_equal(out, expect.ravel())


@cuda.jit
def async_copy_reversed_view(src, out):
    """cp.async into a reversed view of a shared array: the destination's byte offset from
    the view's data pointer is negative (the 32-bit shared address must still be exact)."""
    buf = cuda.shared.array(64, np.float32)
    t = cuda.threadIdx.x
    view = buf[::-1]  # view[j] is buf[63 - j]
    cuda.pipeline.memcpy_async(view, 63 - 4 * t, src, 4 * t, 16)  # src[4t:4t+4] -> buf[4t:4t+4]
    cuda.pipeline.commit()
    cuda.pipeline.wait(0)
    cuda.syncthreads()
    for k in range(4):
        out[4 * t + k] = buf[4 * t + k]


def test_memcpy_async_into_a_reversed_view():
    src = np.random.default_rng(8).random(64).astype(np.float32)
    out = np.zeros_like(src)
    async_copy_reversed_view[1, 16](src, out)
    np.testing.assert_array_equal(out, src)


@pytest.mark.parametrize("config", [dict(), dict(async_copy=False), dict(bk=32, stages=4), dict(wn=32, stages=2),
                                    dict(wn=32, bk=32, stages=6)],
                         ids=["cp.async", "plain-loads", "bk32", "128x128", "128x128x32-6stages"])
def test_tensor_core_gemm_example(config):
    """examples/tc_gemm.py (mma.sync + ldmatrix + cp.async, swizzled shared memory)
    against NumPy, on a shape with several tiles in every dimension."""
    import os
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
    import tc_gemm

    kernel = tc_gemm.make_gemm(tc_gemm.Config(**config))
    bn = kernel.config.bn
    m, n, k = 256, 2 * bn, 192
    rng = np.random.default_rng(6)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = cuda.device_array((m, n), np.float32)
    tc_gemm.matmul(kernel, cuda.to_device(a), cuda.to_device(b), c)
    np.testing.assert_allclose(c.copy_to_host(), a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-3)
    with pytest.raises(ValueError, match="must be a multiple of 128"):
        tc_gemm.matmul(kernel, cuda.to_device(a[:100]), cuda.to_device(b), c)


@cuda.jit
def tma_tiles(tmap, out):
    """Each block copies one 32 x 64 tile of a float32 matrix into shared memory with the
    Tensor Memory Accelerator (mbarrier-completed), then writes it to ``out`` doubled."""
    tile = cuda.shared.array((32, 64), np.float32, alignment=128)
    bar = cuda.shared.array(1, np.uint64, alignment=8)
    t = cuda.threadIdx.x
    r0, c0 = cuda.blockIdx.y * 32, cuda.blockIdx.x * 64
    if t == 0:
        cuda.mbarrier.init(bar, 0, 1)
        cuda.mbarrier.fence_init()
    cuda.syncthreads()
    if t == 0:
        cuda.mbarrier.arrive_expect_tx(bar, 0, 32 * 64 * 4)
        cuda.tma.load(tile, tmap, (r0, c0), bar, 0)
    cuda.mbarrier.wait(bar, 0, 0)
    for k in range(t, 32 * 64, cuda.blockDim.x):
        out[r0 + k // 64, c0 + k % 64] = tile[k // 64, k % 64] * 2


def test_tma_tile_copies():
    if cuda.get_current_device().compute_capability < (9, 0):
        pytest.skip("TMA needs cc >= 9.0")
    a = np.random.default_rng(7).random((96, 256)).astype(np.float32)
    da = cuda.to_device(a)
    tmap = cuda.make_tensor_map(da, (32, 64))
    assert tmap.shape == (128,) and tmap.dtype == np.uint8
    out = cuda.device_array_like(da)
    tma_tiles[(4, 3), 128](tmap, out)
    np.testing.assert_array_equal(out.copy_to_host(), 2 * a)
    with pytest.raises(ValueError, match="innermost times the item size|multiple of 16"):
        cuda.make_tensor_map(da, (32, 3))
    with pytest.raises(ValueError, match="larger than the array"):
        cuda.make_tensor_map(da, (128, 64))


@cuda.jit
def tma_round_trip(src_map, dst_map):
    """Each block: TMA-load a 32x64 tile, scale it in shared memory, TMA-store it to the
    same place of the destination (fence, commit, wait until written)."""
    tile = cuda.shared.array((32, 64), np.float32, alignment=128)
    bar = cuda.shared.array(1, np.uint64)
    r0, c0 = cuda.blockIdx.y * 32, cuda.blockIdx.x * 64
    t = cuda.threadIdx.x
    if t == 0:
        cuda.mbarrier.init(bar, 0, 1)
        cuda.mbarrier.fence_init()
        cuda.tma.prefetch(src_map, (r0, c0))
    cuda.syncthreads()
    if t == 0:
        cuda.mbarrier.arrive_expect_tx(bar, 0, 32 * 64 * 4)
        cuda.tma.load(tile, src_map, (r0, c0), bar, 0)
    cuda.mbarrier.wait(bar, 0, 0)
    for k in range(t, 32 * 64, cuda.blockDim.x):
        tile[k // 64, k % 64] = tile[k // 64, k % 64] * 2 + 1  # (exact with or without FMA)
    cuda.fence_proxy_async()  # the threads' writes, visible to the copy engine
    cuda.syncthreads()
    if t == 0:
        cuda.tma.store(tile, dst_map, (r0, c0))
        cuda.tma.store_commit()
        cuda.tma.store_wait_read()
        cuda.tma.store_wait()


def test_tma_store_round_trip():
    if cuda.get_current_device().compute_capability < (9, 0):
        pytest.skip("TMA needs cc >= 9.0")
    a = np.random.default_rng(3).random((96, 256)).astype(np.float32)
    da, dout = cuda.to_device(a), cuda.device_array((96, 256), np.float32)
    tma_round_trip[(4, 3), 128](cuda.make_tensor_map(da, (32, 64)), cuda.make_tensor_map(dout, (32, 64)))
    np.testing.assert_array_equal(dout.copy_to_host(), a * 2 + 1)


def test_tensor_maps_of_bfloat16_and_fp8_arrays():
    """bfloat16 and the 8-bit floats (ml_dtypes) get tensor maps (the copy engine moves fp8
    as bytes): a TMA load of each copies the tile bit for bit."""
    ml = pytest.importorskip("ml_dtypes")
    if cuda.get_current_device().compute_capability < (9, 0):
        pytest.skip("TMA needs cc >= 9.0")

    @cuda.jit
    def copy_bytes(tmap, out):
        tile = cuda.shared.array((16, 64), np.uint8, alignment=128)
        bar = cuda.shared.array(1, np.uint64)
        t = cuda.threadIdx.x
        if t == 0:
            cuda.mbarrier.init(bar, 0, 1)
            cuda.mbarrier.fence_init()
        cuda.syncthreads()
        if t == 0:
            cuda.mbarrier.arrive_expect_tx(bar, 0, 16 * 64)
            cuda.tma.load(tile, tmap, (0, 0), bar, 0)
        cuda.mbarrier.wait(bar, 0, 0)
        for k in range(t, 16 * 64, cuda.blockDim.x):
            out[k // 64, k % 64] = tile[k // 64, k % 64]

    rng = np.random.default_rng(5)
    for dtype, box in ((ml.float8_e4m3fn, (16, 64)), (ml.float8_e5m2, (16, 64)), (ml.bfloat16, (16, 32))):
        a = rng.standard_normal((32, 128)).astype(dtype)
        tmap = cuda.make_tensor_map(_device_of(a), box)
        out = cuda.to_device(np.zeros((16, 64), np.uint8))
        copy_bytes[1, 128](tmap, out)
        np.testing.assert_array_equal(out.copy_to_host(), a[:16].view(np.uint8)[:, :64])


def _device_of(a):
    """A device array of ``a`` (bfloat16/fp8) through its bytes, viewed as its own dtype."""
    from cudalite.cuda.devicearray import DeviceNDArray

    raw = cuda.to_device(a.view(np.uint8))
    return DeviceNDArray(a.shape, a.strides, a.dtype, ptr=raw._ptr, owner=raw)


@cuda.jit(cluster_dims=(2, 1, 1))
def tma_multicast(tmap, out):
    """Clusters of 2 blocks along x: block rank 0 loads tile blockIdx.y once, multicast into
    both blocks' shared memory; each block waits on its own barrier and writes its copy."""
    tile = cuda.shared.array((32, 64), np.float32, alignment=128)
    bar = cuda.shared.array(1, np.uint64)
    cl = cuda.cg.this_cluster()
    t = cuda.threadIdx.x
    if t == 0:
        cuda.mbarrier.init(bar, 0, 1)
        cuda.mbarrier.fence_init()
    cl.sync()  # every block's barrier is initialised before a copy signals it
    if t == 0:
        cuda.mbarrier.arrive_expect_tx(bar, 0, 32 * 64 * 4)
        if cl.block_rank() == 0:
            cuda.tma.load_multicast(tile, tmap, (cuda.blockIdx.y * 32, 0), bar, 0, 0b11)
    cuda.mbarrier.wait(bar, 0, 0)
    for k in range(t, 32 * 64, cuda.blockDim.x):
        out[cuda.blockIdx.y, cuda.blockIdx.x, k // 64, k % 64] = tile[k // 64, k % 64]


def test_tma_multicast_fills_every_block_of_the_cluster():
    if cuda.get_current_device().compute_capability < (9, 0):
        pytest.skip("TMA multicast needs cc >= 9.0")
    a = np.random.default_rng(11).random((96, 64)).astype(np.float32)
    out = cuda.to_device(np.zeros((3, 2, 32, 64), np.float32))
    tma_multicast[(2, 3), 128](cuda.make_tensor_map(cuda.to_device(a), (32, 64)), out)
    got = out.copy_to_host()
    for y in range(3):
        for x in range(2):  # both blocks of the cluster got tile y
            np.testing.assert_array_equal(got[y, x], a[32 * y:32 * y + 32])


@cuda.jit(cluster_dims=(2, 1, 1))
def remote_arrive(out):
    """Each block's barrier completes its phase with two arrivals: its own and the other
    block's, made from there (``arrive_cluster``); ``try_wait`` sees the phase before and
    after."""
    bar = cuda.shared.array(1, np.uint64)
    cl = cuda.cg.this_cluster()
    rank = cl.block_rank()
    if cuda.threadIdx.x == 0:
        cuda.mbarrier.init(bar, 0, 2)
        cuda.mbarrier.fence_init()
    cl.sync()
    if cuda.threadIdx.x == 0:
        before = cuda.mbarrier.try_wait(bar, 0, 0)  # this block has not arrived: phase 0 is open
        cuda.mbarrier.arrive(bar, 0)
        cuda.mbarrier.arrive_cluster(bar, 0, 1 - rank)
        cuda.mbarrier.wait(bar, 0, 0)
        out[cuda.blockIdx.x, 0] = 1 if before else 0
        out[cuda.blockIdx.x, 1] = 1 if cuda.mbarrier.try_wait(bar, 0, 0) else 0  # phase 0 complete
        out[cuda.blockIdx.x, 2] = 1 if cuda.mbarrier.try_wait(bar, 0, 1) else 0  # phase 1 open
    cl.sync()  # no block leaves while the other may still arrive on its barrier


def test_mbarrier_arrive_from_another_block_of_the_cluster():
    if cuda.get_current_device().compute_capability < (9, 0):
        pytest.skip("clusters and mbarrier need cc >= 9.0")
    out = cuda.to_device(np.full((4, 3), -1, np.int32))
    remote_arrive[4, 32](out)
    assert out.copy_to_host().tolist() == [[0, 1, 0]] * 4
