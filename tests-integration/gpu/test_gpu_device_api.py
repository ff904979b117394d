"""The device-side API on a real GPU, checked against NumPy: thread indexing,
shared memory with barriers, atomics, warp shuffles and votes, local and
constant arrays, dynamic shared memory and float16 arithmetic.

Kernels run through the ``gpu`` fixture (tests-integration/gpu_harness.py):
arrays are copied in and back in place.
"""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import nvvm as cuda
from cudalite import types

pytestmark = pytest.mark.gpu

CONST_TABLE = (np.arange(32, dtype=np.float64) ** 2) / 7.0


# -- thread indexing -------------------------------------------------------------------------------
def k_indexing(gid, tid, bid, bdim, gsize):
    i = cuda.grid(1)
    if i < gid.size:
        gid[i] = i
        tid[i] = cuda.threadIdx.x
        bid[i] = cuda.blockIdx.x
        bdim[i] = cuda.blockDim.x * 1000 + cuda.gridDim.x
        gsize[i] = cuda.gridsize(1)


def test_thread_indexing_1d(gpu):
    n, block, grid = 4 * 32, 32, 4
    gid, tid, bid, bdim = (np.full(n, -1, np.int32) for _ in range(4))
    gsize = np.zeros(n, np.int64)
    gpu.run(k_indexing, [gid, tid, bid, bdim, gsize], grid=grid, block=block)
    idx = np.arange(n)
    np.testing.assert_array_equal(gid, idx)
    np.testing.assert_array_equal(tid, idx % block)
    np.testing.assert_array_equal(bid, idx // block)
    np.testing.assert_array_equal(bdim, np.full(n, block * 1000 + grid))
    np.testing.assert_array_equal(gsize, np.full(n, n))


def k_grid2(out, sizes):
    x, y = cuda.grid(2)
    if x < out.shape[0] and y < out.shape[1]:
        out[x, y] = x * 100 + y
    if x == 0 and y == 0:
        w, h = cuda.gridsize(2)
        sizes[0] = w
        sizes[1] = h


def test_grid_2d(gpu):
    out = np.full((16, 12), -1, np.int32)
    sizes = np.zeros(2, np.int64)
    gpu.run(k_grid2, [out, sizes], grid=(2, 3), block=(8, 4))
    x, y = np.indices(out.shape)
    np.testing.assert_array_equal(out, x * 100 + y)
    np.testing.assert_array_equal(sizes, [16, 12])


# -- shared memory and barriers -------------------------------------------------------------------------------
def k_block_sum(a, out):
    s = cuda.shared.array(128, types.int32)
    t = cuda.threadIdx.x
    s[t] = a[cuda.grid(1)]
    cuda.syncthreads()
    step = 64
    while step > 0:
        if t < step:
            s[t] = s[t] + s[t + step]
        cuda.syncthreads()
        step = step // 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]


def test_shared_block_reduction(gpu):
    rng = np.random.default_rng(0)
    a = rng.integers(-1000, 1000, size=8 * 128).astype(np.int32)
    out = np.zeros(8, np.int32)
    gpu.run(k_block_sum, [a, out], grid=8, block=128)
    np.testing.assert_array_equal(out, a.reshape(8, 128).sum(axis=1))


def k_shared_2d_transpose(a, out):
    tile = cuda.shared.array((16, 16), dtype=np.float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    tile[ty, tx] = a[ty, tx]
    cuda.syncthreads()
    out[ty, tx] = tile[tx, ty]


def test_shared_2d_tile(gpu):
    a = np.arange(256, dtype=np.float32).reshape(16, 16)
    out = np.zeros_like(a)
    gpu.run(k_shared_2d_transpose, [a, out], grid=1, block=(16, 16))
    np.testing.assert_array_equal(out, a.T)


def k_dynamic_shared(out):
    dyn = cuda.shared.array(0, dtype=types.int32)
    t = cuda.threadIdx.x
    dyn[t] = t * 2
    cuda.syncthreads()
    out[t] = dyn[cuda.blockDim.x - 1 - t] + len(dyn)


def test_dynamic_shared(gpu):
    out = np.zeros(64, np.int32)
    gpu.run(k_dynamic_shared, [out], grid=1, block=64, shared=64 * 4)
    t = np.arange(64)
    np.testing.assert_array_equal(out, 2 * (63 - t) + 64)


def k_sync_count(out):
    t = cuda.threadIdx.x
    out[0] = cuda.syncthreads_count(t % 3 == 0)
    out[1] = cuda.syncthreads_and(t >= 0)
    out[2] = cuda.syncthreads_or(t == 77)
    out[3] = cuda.syncthreads_and(t < 100)


def test_syncthreads_reductions(gpu):
    out = np.full(4, -1, np.int32)
    gpu.run(k_sync_count, [out], grid=1, block=128)
    assert out[0] == len(range(0, 128, 3))
    assert out[1] != 0 and out[2] != 0 and out[3] == 0


# -- atomics -------------------------------------------------------------------------------
def k_histogram(data, hist):
    i = cuda.grid(1)
    if i < data.size:
        cuda.atomic.add(hist, data[i], 1)


def test_atomic_add_int32_histogram(gpu):
    rng = np.random.default_rng(1)
    data = rng.integers(0, 16, size=5000).astype(np.int32)
    hist = np.zeros(16, np.int32)
    gpu.run(k_histogram, [data, hist], grid=(5000 + 127) // 128, block=128)
    np.testing.assert_array_equal(hist, np.bincount(data, minlength=16))


def k_float_sum(vals, acc, olds):
    i = cuda.grid(1)
    if i < vals.size:
        olds[i] = cuda.atomic.add(acc, 0, vals[i])
        cuda.atomic.sub(acc, 1, vals[i])


def test_atomic_add_float32(gpu):
    vals = np.full(1024, 0.25, np.float32)  # exact in any order
    acc = np.zeros(2, np.float32)
    olds = np.full(1024, -1.0, np.float32)
    gpu.run(k_float_sum, [vals, acc, olds], grid=8, block=128)
    assert acc[0] == 256.0 and acc[1] == -256.0
    # every thread saw a distinct old value: 0, 0.25, ..., 255.75
    np.testing.assert_array_equal(np.sort(olds), np.arange(1024, dtype=np.float32) * 0.25)


def k_maxmin(a, f, out_i, out_f):
    i = cuda.grid(1)
    if i < a.size:
        cuda.atomic.max(out_i, 0, a[i])
        cuda.atomic.min(out_i, 1, a[i])
        cuda.atomic.max(out_f, 0, f[i])
        cuda.atomic.min(out_f, 1, f[i])
        cuda.atomic.nanmax(out_f, 2, f[i])


def test_atomic_max_min(gpu):
    rng = np.random.default_rng(2)
    a = rng.integers(-10**6, 10**6, size=4096).astype(np.int32)
    f = rng.standard_normal(4096).astype(np.float64)
    out_i = np.array([np.iinfo(np.int32).min, np.iinfo(np.int32).max], np.int32)
    out_f = np.array([-np.inf, np.inf, np.nan], np.float64)
    gpu.run(k_maxmin, [a, f, out_i, out_f], grid=32, block=128)
    assert out_i[0] == a.max() and out_i[1] == a.min()
    assert out_f[0] == f.max() and out_f[1] == f.min()
    assert out_f[2] == f.max()  # nanmax replaces the NaN already in memory


def k_cas_simple(flag, winners, olds):
    i = cuda.grid(1)
    old = cuda.atomic.cas(flag, 0, 0, i + 1)
    olds[i] = old
    if old == 0:
        cuda.atomic.add(winners, 0, 1)
    prev = cuda.atomic.compare_and_swap(winners, 1, 100)  # only succeeds once winners[0] == 1
    if prev == 1:
        cuda.atomic.add(winners, 1, 1)


def test_atomic_cas(gpu):
    flag = np.zeros(1, np.int32)
    winners = np.zeros(2, np.int32)
    olds = np.full(256, -1, np.int32)
    gpu.run(k_cas_simple, [flag, winners, olds], grid=2, block=128)
    assert 1 <= flag[0] <= 256
    assert (olds == 0).sum() == 1  # exactly one thread swapped
    assert np.all((olds == 0) | (olds == flag[0]))
    # the winner's own compare_and_swap runs after its add, so exactly one swap sees 1
    assert winners[0] == 100 and winners[1] == 1


def k_inc(counter, out):
    i = cuda.grid(1)
    out[i] = cuda.atomic.inc(counter, 0, np.uint32(9))


def test_atomic_inc_wraps(gpu):
    counter = np.zeros(1, np.uint32)
    out = np.zeros(100, np.uint32)
    gpu.run(k_inc, [counter, out], grid=1, block=100)
    assert counter[0] == 100 % 10
    np.testing.assert_array_equal(np.sort(out), np.sort(np.arange(100) % 10).astype(np.uint32))


# -- warp primitives -------------------------------------------------------------------------------
def k_warp_sum(a, out):
    i = cuda.grid(1)
    v = a[i]
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
        offset //= 2
    if cuda.laneid == 0:
        out[i // 32] = v


@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_shfl_down_reduction(gpu, dtype):
    a = (np.arange(4 * 32) % 37).astype(dtype)
    out = np.zeros(4, dtype)
    gpu.run(k_warp_sum, [a, out], grid=1, block=128)
    np.testing.assert_array_equal(out, a.reshape(4, 32).sum(axis=1))


def k_shuffles(idx_out, xor_out, up_out):
    t = cuda.threadIdx.x
    idx_out[t] = cuda.shfl_sync(0xFFFFFFFF, t * 10, 3)
    xor_out[t] = cuda.shfl_xor_sync(0xFFFFFFFF, t, 1)
    up_out[t] = cuda.shfl_up_sync(0xFFFFFFFF, t, 2)


def test_shfl_idx_xor_up(gpu):
    idx_out, xor_out, up_out = (np.zeros(32, np.int64) for _ in range(3))
    gpu.run(k_shuffles, [idx_out, xor_out, up_out], grid=1, block=32)
    t = np.arange(32)
    np.testing.assert_array_equal(idx_out, np.full(32, 30))
    np.testing.assert_array_equal(xor_out, t ^ 1)
    np.testing.assert_array_equal(up_out, np.where(t >= 2, t - 2, t))


def k_ballot(mask_out, count_out, votes):
    t = cuda.threadIdx.x
    lane = cuda.laneid
    b = cuda.ballot_sync(0xFFFFFFFF, lane % 3 == 0)
    mask_out[t] = b
    count_out[t] = cuda.popc(b)
    # every lane named in the mask must take part in a vote: vote first, then store from lane 0
    v0 = cuda.all_sync(0xFFFFFFFF, lane < 32)
    v1 = cuda.any_sync(0xFFFFFFFF, lane == 31)
    v2 = cuda.all_sync(0xFFFFFFFF, lane < 31)
    v3 = cuda.activemask()
    v4 = cuda.lanemask_lt()
    if t == 0:
        votes[0] = v0
        votes[1] = v1
        votes[2] = v2
        votes[3] = v3
        votes[4] = v4


@pytest.mark.nosim("warp convergence: cuda.activemask() counts lanes that already returned as inactive (no lock-step "
                   "warps)")
def test_ballot_popc_votes(gpu):
    mask_out = np.zeros(64, np.uint32)
    count_out = np.zeros(64, np.int32)
    votes = np.full(5, 7, np.uint32)
    gpu.run(k_ballot, [mask_out, count_out, votes], grid=1, block=64)
    expected = sum(1 << lane for lane in range(32) if lane % 3 == 0)
    np.testing.assert_array_equal(mask_out, np.full(64, expected, np.uint32))
    np.testing.assert_array_equal(count_out, np.full(64, 11))
    assert votes[0] == 1 and votes[1] == 1 and votes[2] == 0
    assert votes[3] == 0xFFFFFFFF and votes[4] == 0


# -- local and constant arrays -------------------------------------------------------------------------------
def k_local(out):
    t = cuda.threadIdx.x
    tmp = cuda.local.array(8, types.int64)
    for j in range(8):
        tmp[j] = t * j
    acc = 0
    for j in range(8):
        acc += tmp[7 - j] * (j + 1)
    out[t] = acc


def test_local_array(gpu):
    out = np.zeros(64, np.int64)
    gpu.run(k_local, [out], grid=1, block=64)
    t = np.arange(64)
    expected = sum(t * (7 - j) * (j + 1) for j in range(8))
    np.testing.assert_array_equal(out, expected)


def k_const(out):
    table = cuda.const.array_like(CONST_TABLE)
    t = cuda.threadIdx.x
    out[t] = table[t] * 2.0 + table.shape[0]


def test_const_array_like(gpu):
    out = np.zeros(32, np.float64)
    gpu.run(k_const, [out], grid=1, block=32)
    np.testing.assert_array_equal(out, CONST_TABLE * 2.0 + 32)


# -- bit intrinsics and fp16 -------------------------------------------------------------------------------
def k_bits(x, popc, brev, clz, ffs):
    i = cuda.grid(1)
    if i < x.size:
        popc[i] = cuda.popc(x[i])
        brev[i] = cuda.brev(x[i])
        clz[i] = cuda.clz(x[i])
        ffs[i] = cuda.ffs(x[i])


def test_bit_intrinsics(gpu):
    x = np.array([0, 1, 2, 3, 0x80000000, 0xFFFFFFFF, 0x00F0, 12345678], np.uint32)
    popc, brev, clz, ffs = (np.zeros(8, np.uint32) for _ in range(4))
    gpu.run(k_bits, [x, popc, brev, clz, ffs], grid=1, block=32)
    vals = [int(v) for v in x]
    np.testing.assert_array_equal(popc, [bin(v).count("1") for v in vals])
    np.testing.assert_array_equal(brev, [int(f"{v:032b}"[::-1], 2) for v in vals])
    np.testing.assert_array_equal(clz, [32 - v.bit_length() for v in vals])
    np.testing.assert_array_equal(ffs, [(v & -v).bit_length() for v in vals])


def k_fp16(a, b, out_add, out_mul, out_max):
    i = cuda.grid(1)
    if i < a.size:
        out_add[i] = a[i] + b[i]
        out_mul[i] = cuda.fp16.hmul(a[i], b[i])
        out_max[i] = cuda.fp16.hmax(a[i], b[i])


def test_fp16_arithmetic(gpu):
    rng = np.random.default_rng(3)
    a = rng.standard_normal(256).astype(np.float16)
    b = rng.standard_normal(256).astype(np.float16)
    # keep magnitudes within 2**9 of each other so NumPy's float32 sum rounds exactly once
    a[np.abs(a) < 0.01] = 0.5
    b[np.abs(b) < 0.01] = -0.75
    out_add, out_mul, out_max = (np.zeros(256, np.float16) for _ in range(3))
    gpu.run(k_fp16, [a, b, out_add, out_mul, out_max], grid=2, block=128)
    np.testing.assert_array_equal(out_add, a + b)
    np.testing.assert_array_equal(out_mul, a * b)
    np.testing.assert_array_equal(out_max, np.maximum(a, b))
