"""A tensor-core GEMM written in cudalite Python (beyond numba-cuda): C = A @ B with A
(M x K) and B (K x N) in float16, C in float32, on cc >= 8.0.

The Ampere-style structure of hand-written CUDA GEMMs:

* a 128 x 256 tile of C per block of 256 threads (8 warps, each 64 x 64), K in steps of 32;
* tiles of A and B staged in shared memory by ``cuda.pipeline.memcpy_async`` (cp.async,
  16 bytes per copy) through a ring of 4 buffers, so the loads of the next tiles
  overlap the math on this one (``Config(async_copy=False)`` loads them with ordinary
  loads and stores instead, for comparison);
* fragments read with ``cuda.mma.ldmatrix`` from an XOR-swizzled layout (no shared-memory
  bank conflicts), and ``cuda.mma.m16n8k16_f16_f32`` (mma.sync) for the products, with
  the 64 float32 accumulators of a thread in registers.

M must be a multiple of 128, N of 256 (128 with ``Config(wn=32)``) and K of 32 (or 64).  ``python examples/tc_gemm.py``
"""

import numpy as np

from cudalite import cuda, types

BM = 128
THREADS = 256
GROUP_M = 8  # blocks are ordered in groups of 8 tile rows, so that neighbours share B tiles in L2


class Config:
    """A kernel variant: ``wn`` columns of C per warp (32 or 64: a 128 x 4*wn block tile),
    ``bk`` (32 or 64) of K per stage, ``stages`` shared-memory buffers, ``async_copy``
    (cp.async, or plain loads)."""

    def __init__(self, wn=64, bk=32, stages=4, async_copy=True):
        if wn not in (32, 64) or bk not in (32, 64) or not 2 <= stages <= 6:
            raise ValueError("wn and bk must be 32 or 64, and stages 2 to 6")
        self.wn, self.bk, self.stages, self.async_copy = wn, bk, stages, async_copy
        self.bn = 4 * wn
        self.stage = BM * bk + bk * self.bn  # halves per stage
        self.smem_bytes = stages * self.stage * 2


def make_gemm(config=None):
    """The GEMM kernel for ``config`` (a :class:`Config`; default 128 x 256 tiles, 4
    stages, cp.async); ``gemm.config`` is kept on the returned dispatcher."""
    cfg = config or Config()
    async_copy, stages, wn, bk = cfg.async_copy, cfg.stages, cfg.wn, cfg.bk
    bn, stage = cfg.bn, cfg.stage
    a_tile = BM * bk
    nt = wn // 8  # n-tiles (8 columns) per warp
    a_chunks = BM * bk // 8 // THREADS  # 16-byte chunks of the A tile per thread
    b_chunks = bk * bn // 8 // THREADS  # ... of the B tile
    a_row_chunks, row_chunks = bk // 8, bn // 8

    @cuda.jit(device=True)
    def a_swizzle(r, ch):
        """The stored chunk of chunk ``ch`` of A-tile row ``r``: rows of 64 bytes (bk=32)
        pair up in a 128-byte bank window, rows of 128 bytes fill one."""
        if bk == 32:
            return ch ^ ((r >> 1) & 3)
        return ch ^ (r & 7)

    @cuda.jit(device=True)
    def load_tile(sm, sm32, a, b, a32, b32, st, kt, tid, m0, n0):
        base = st * stage
        k0 = kt * bk
        for i in range(a_chunks):  # A tile: 128 rows x bk/8 chunks of 8 halves
            c = tid + i * THREADS
            r = c // a_row_chunks
            ch = c % a_row_chunks
            dst = base + r * bk + (a_swizzle(r, ch) << 3)
            if async_copy:
                cuda.pipeline.memcpy_async(sm, dst, a, (m0 + r, k0 + ch * 8), 16)
            else:
                for w in range(4):
                    sm32[(dst >> 1) + w] = a32[m0 + r, ((k0 + ch * 8) >> 1) + w]
        for i in range(b_chunks):  # B tile: bk rows x bn/8 chunks of 8 halves
            c = tid + i * THREADS
            r = c // row_chunks
            ch = c % row_chunks
            dst = base + a_tile + r * bn + ((ch ^ (r & 7)) << 3)
            if async_copy:
                cuda.pipeline.memcpy_async(sm, dst, b, (k0 + r, n0 + ch * 8), 16)
            else:
                for w in range(4):
                    sm32[(dst >> 1) + w] = b32[k0 + r, ((n0 + ch * 8) >> 1) + w]

    @cuda.jit
    def gemm(a, b, c):
        sm = cuda.shared.array(0, np.float16)
        sm32 = sm.view(np.uint32)
        a32, b32 = a.view(np.uint32), b.view(np.uint32)
        tid = cuda.threadIdx.x
        lane = tid & 31
        warp = tid >> 5
        wm, wq = warp >> 2, warp & 3
        tiles_m, tiles_n = a.shape[0] // BM, b.shape[1] // bn
        pid = cuda.blockIdx.x
        first = (pid // (GROUP_M * tiles_n)) * GROUP_M
        rows = min(tiles_m - first, GROUP_M)
        m0 = (first + pid % rows) * BM
        n0 = ((pid % (GROUP_M * tiles_n)) // rows) * bn
        acc = cuda.local.array(16 * nt, types.float32)
        for i in range(16 * nt):
            acc[i] = types.float32(0)
        af = cuda.local.array(16, types.uint32)
        bf = cuda.local.array(2 * nt, types.uint32)
        ktiles = a.shape[1] // bk
        for s in range(stages - 1):
            if s < ktiles:
                load_tile(sm, sm32, a, b, a32, b32, s, s, tid, m0, n0)
            if async_copy:
                cuda.pipeline.commit()
        for kt in range(ktiles):
            if async_copy:
                cuda.pipeline.wait(stages - 2)
            cuda.syncthreads()
            nxt = kt + stages - 1
            if nxt < ktiles:
                load_tile(sm, sm32, a, b, a32, b32, nxt % stages, nxt, tid, m0, n0)
            if async_copy:
                cuda.pipeline.commit()
            else:
                cuda.syncthreads()
            base = (kt % stages) * stage
            for ks in range(bk // 16):
                for mi in range(4):
                    row = wm * 64 + mi * 16 + (lane & 15)
                    ch = ks * 2 + (lane >> 4)
                    r0, r1, r2, r3 = cuda.mma.ldmatrix(sm, base + row * bk + (a_swizzle(row, ch) << 3), 4)
                    af[mi * 4] = r0
                    af[mi * 4 + 1] = r1
                    af[mi * 4 + 2] = r2
                    af[mi * 4 + 3] = r3
                for nj in range(nt // 2):
                    krow = ks * 16 + (lane & 15)
                    ch = (wq * wn + nj * 16 + (lane >> 4) * 8) >> 3
                    r0, r1, r2, r3 = cuda.mma.ldmatrix(sm, base + a_tile + krow * bn + ((ch ^ (krow & 7)) << 3),
                                                       4, True)
                    bf[nj * 4] = r0
                    bf[nj * 4 + 1] = r1
                    bf[nj * 4 + 2] = r2
                    bf[nj * 4 + 3] = r3
                for mi in range(4):
                    for ni in range(nt):
                        j = (ni >> 1) * 4 + (ni & 1) * 2
                        k = (mi * nt + ni) * 4
                        d = cuda.mma.m16n8k16_f16_f32(
                            (af[mi * 4], af[mi * 4 + 1], af[mi * 4 + 2], af[mi * 4 + 3]), (bf[j], bf[j + 1]),
                            (acc[k], acc[k + 1], acc[k + 2], acc[k + 3]))
                        acc[k] = d[0]
                        acc[k + 1] = d[1]
                        acc[k + 2] = d[2]
                        acc[k + 3] = d[3]
        g, t = lane >> 2, lane & 3
        for mi in range(4):
            for ni in range(nt):
                k = (mi * nt + ni) * 4
                row = m0 + wm * 64 + mi * 16 + g
                col = n0 + wq * wn + ni * 8 + t * 2
                c[row, col] = acc[k]
                c[row, col + 1] = acc[k + 1]
                c[row + 8, col] = acc[k + 2]
                c[row + 8, col + 1] = acc[k + 3]

    gemm.config = cfg
    return gemm


def matmul(gemm, a, b, c, stream=0):
    """Launch ``gemm`` (from :func:`make_gemm`) for device arrays a (M x K), b (K x N)
    float16 and c (M x N) float32."""
    cfg = gemm.config
    (m, k), n = a.shape, b.shape[1]
    if m % BM or n % cfg.bn or k % cfg.bk or b.shape[0] != k or c.shape != (m, n):
        raise ValueError(f"shapes {a.shape} @ {b.shape} -> {c.shape}: M must be a multiple of {BM}, N of "
                         f"{cfg.bn}, K of {cfg.bk}")
    gemm[(n // cfg.bn) * (m // BM), THREADS, stream, cfg.smem_bytes](a, b, c)


def main():
    if cuda.get_current_device().compute_capability < (8, 0):
        print("skipped: tensor cores (mma.sync) need a GPU of compute capability 8.0 or newer")
        return
    rng = np.random.default_rng(0)
    m, n, k = 512, 768, 256
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = cuda.device_array((m, n), np.float32)
    matmul(make_gemm(), cuda.to_device(a), cuda.to_device(b), c)
    expect = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c.copy_to_host(), expect, rtol=1e-3, atol=1e-2)
    print("OK")


if __name__ == "__main__":
    main()
