"""A tensor-core GEMM written in cudalite Python (beyond numba-cuda): C = A @ B with A
(M x K) and B (K x N) in float16, C in float32, on cc >= 8.0.

The Ampere-style structure of hand-written CUDA GEMMs:

* a 128 x 256 tile of C per block of 256 threads (8 warps, each 64 x 64), K in steps of 64;
* tiles of A and B staged in shared memory by ``cuda.pipeline.memcpy_async`` (cp.async,
  16 bytes per copy) through a ring of 3 buffers, so the loads of the next tiles
  overlap the math on this one (``Config(async_copy=False)`` loads them with ordinary
  loads and stores instead, for comparison);
* fragments read with ``cuda.mma.ldmatrix`` from an XOR-swizzled layout (no shared-memory
  bank conflicts), those of the next k-step while ``cuda.mma.m16n8k16_f16_f32``
  (mma.sync) computes this one's products (the next K-tile's first fragments are read
  before the last k-step of this one), with the 128 float32 accumulators of a thread in
  registers;
* index arithmetic out of the K loop: each thread's copy and ``ldmatrix`` offsets are
  computed once, and the loop only adds a stage's base and a K-tile's first column.
  Shared offsets and each dimension's index are cast to ``types.uint32`` (numba's typing
  makes integer arithmetic 64-bit; an unsigned index also skips the negative-index
  wraparound), which lets the compiler do that arithmetic in 32 bits.  So each dimension
  must be below 2**32 (the linear offset into A, B and C is still 64-bit).

At 4096^3 on an H200 this runs at 366-379 TFLOP/s, 53-59% of cuBLAS
(``benchmarks/tensorcore_gemm.py``; docs/tensorcores.md has the figures).
M must be a multiple of 128, N of 256 (128 with ``Config(wn=32)``) and K of 64 (32 with
``Config(bk=32)``).  ``python examples/tc_gemm.py``
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

    def __init__(self, wn=64, bk=64, stages=3, async_copy=True):
        if wn not in (32, 64) or bk not in (32, 64) or not 2 <= stages <= 6:
            raise ValueError("wn and bk must be 32 or 64, and stages 2 to 6")
        self.wn, self.bk, self.stages, self.async_copy = wn, bk, stages, async_copy
        self.bn = 4 * wn
        self.stage = BM * bk + bk * self.bn  # halves per stage
        self.smem_bytes = stages * self.stage * 2


def make_gemm(config=None):
    """The GEMM kernel for ``config`` (a :class:`Config`; default 128 x 256 x 64 tiles, 3
    stages, cp.async); ``gemm.config`` is kept on the returned dispatcher."""
    cfg = config or Config()
    async_copy, stages, wn, bk = cfg.async_copy, cfg.stages, cfg.wn, cfg.bk
    bn, stage = cfg.bn, cfg.stage
    ring = stages * stage  # halves of the whole ring
    a_tile = BM * bk
    nt = wn // 8  # n-tiles (8 columns) per warp
    a_chunks = BM * bk // 8 // THREADS  # 16-byte chunks of the A tile per thread
    b_chunks = bk * bn // 8 // THREADS  # ... of the B tile
    a_row_chunks, row_chunks = bk // 8, bn // 8
    a_step, b_step = THREADS // a_row_chunks, THREADS // row_chunks  # rows between a thread's chunks
    ksteps = bk // 16  # mma k-steps per K-tile
    chunk_step = THREADS * 8  # halves between a thread's chunks in a stage (a_step * bk == b_step * bn)
    U = types.uint32  # shared offsets and each dimension's index fit 32 bits (see the docstring)

    @cuda.jit(device=True)
    def a_swizzle(r, ch):
        """The stored chunk of chunk ``ch`` of A-tile row ``r``: rows of 64 bytes (bk=32)
        pair up in a 128-byte bank window, rows of 128 bytes fill one."""
        if bk == 32:
            return ch ^ ((r >> 1) & 3)
        return ch ^ (r & 7)

    @cuda.jit(device=True)
    def load_tile(sm, sm32, a, b, a32, b32, dst0, kn, a_dst, a_row, a_col, b_dst, b_row, b_col):
        """Start the copies of the K-tile at column/row ``kn`` of A/B into the stage that
        begins at half ``dst0``: this thread's chunks are ``a_chunks`` of A (rows
        ``a_row + i * a_step``, stored at ``a_dst + i * chunk_step``) and ``b_chunks`` of B."""
        for i in range(a_chunks):  # A tile: BM rows x bk/8 chunks of 8 halves
            dst = U(dst0 + a_dst + i * chunk_step)
            row, col = U(a_row + i * a_step), U(kn + a_col)
            if async_copy:
                cuda.pipeline.memcpy_async(sm, dst, a, (row, col), 16)
            else:
                for w in range(4):
                    sm32[U((dst >> 1) + w)] = a32[row, U((col >> 1) + w)]
        for i in range(b_chunks):  # B tile: bk rows x bn/8 chunks of 8 halves
            dst = U(dst0 + b_dst + i * chunk_step)
            row = U(kn + b_row + i * b_step)
            if async_copy:
                cuda.pipeline.memcpy_async(sm, dst, b, (row, b_col), 16)
            else:
                for w in range(4):
                    sm32[U((dst >> 1) + w)] = b32[row, U((b_col >> 1) + w)]

    @cuda.jit(device=True)
    def load_fragments(sm, base, ks, a_ld, b_ld, lane, wq, af, bf, half):
        """ldmatrix the A and B fragments of k-step ``ks`` of the stage at ``base`` into
        half ``half`` (0 or 1) of ``af`` and ``bf``."""
        for mi in range(4):
            sw = a_swizzle(lane & 15, ks * 2 + (lane >> 4)) << 3
            r0, r1, r2, r3 = cuda.mma.ldmatrix(sm, U(base + a_ld + mi * 16 * bk + sw), 4)
            i = half * 16 + mi * 4
            af[i] = r0
            af[i + 1] = r1
            af[i + 2] = r2
            af[i + 3] = r3
        for nj in range(nt // 2):
            sw = (((wq * wn + nj * 16 + (lane >> 4) * 8) >> 3) ^ (lane & 7)) << 3
            r0, r1, r2, r3 = cuda.mma.ldmatrix(sm, U(base + b_ld + ks * 16 * bn + sw), 4, True)
            j = half * 2 * nt + nj * 4
            bf[j] = r0
            bf[j + 1] = r1
            bf[j + 2] = r2
            bf[j + 3] = r3

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
        # this thread's chunks of the tile copies: fixed for the whole K loop (each stage
        # adds its base, each K-tile its first column of A / row of B)
        r, ch = tid // a_row_chunks, tid % a_row_chunks
        a_dst, a_row, a_col = U(r * bk + (a_swizzle(r, ch) << 3)), U(m0 + r), U(ch * 8)
        r, ch = tid // row_chunks, tid % row_chunks
        b_dst, b_row, b_col = U(a_tile + r * bn + ((ch ^ (r & 7)) << 3)), U(r), U(n0 + ch * 8)
        # this thread's ldmatrix rows: A fragments at a_ld + ks-chunk, B fragments at b_ld + nj-chunk
        a_ld = U((wm * 64 + (lane & 15)) * bk)
        b_ld = U(a_tile + (lane & 15) * bn)
        acc = cuda.local.array(16 * nt, types.float32)
        for i in range(16 * nt):
            acc[i] = types.float32(0)
        af = cuda.local.array(32, types.uint32)  # two k-steps' fragments: this one's, the next's
        bf = cuda.local.array(4 * nt, types.uint32)
        ktiles = a.shape[1] // bk
        for s in range(stages - 1):
            if s < ktiles:
                load_tile(sm, sm32, a, b, a32, b32, s * stage, s * bk, a_dst, a_row, a_col, b_dst, b_row, b_col)
            if async_copy:
                cuda.pipeline.commit()
        rd, wr = U(0), U((stages - 1) * stage)  # the stage read this step, the one refilled
        if async_copy:
            cuda.pipeline.wait(stages - 2)
        cuda.syncthreads()
        load_fragments(sm, rd, 0, a_ld, b_ld, lane, wq, af, bf, 0)
        for kt in range(ktiles):
            nrd = U(rd + stage)  # the next K-tile's stage
            if nrd == ring:
                nrd = U(0)
            for ks in range(ksteps):
                # the fragments of the next k-step go to the other half of af/bf while this
                # one's products are computed; before the last k-step, the next K-tile must
                # have landed (and every warp be done with the stage that will be refilled)
                if ks == ksteps - 1:
                    if async_copy:
                        cuda.pipeline.wait(stages - 2)
                    cuda.syncthreads()
                    load_fragments(sm, nrd, 0, a_ld, b_ld, lane, wq, af, bf, (ks + 1) % 2)
                else:
                    load_fragments(sm, rd, ks + 1, a_ld, b_ld, lane, wq, af, bf, (ks + 1) % 2)
                if ks == 0:
                    nxt = kt + stages - 1
                    if nxt < ktiles:
                        load_tile(sm, sm32, a, b, a32, b32, wr, nxt * bk, a_dst, a_row, a_col, b_dst, b_row, b_col)
                    if async_copy:
                        cuda.pipeline.commit()
                fa, fb = (ks % 2) * 16, (ks % 2) * 2 * nt
                for mi in range(4):
                    for ni in range(nt):
                        j = fb + (ni >> 1) * 4 + (ni & 1) * 2
                        i = fa + mi * 4
                        k = (mi * nt + ni) * 4
                        d = cuda.mma.m16n8k16_f16_f32(
                            (af[i], af[i + 1], af[i + 2], af[i + 3]), (bf[j], bf[j + 1]),
                            (acc[k], acc[k + 1], acc[k + 2], acc[k + 3]))
                        acc[k] = d[0]
                        acc[k + 1] = d[1]
                        acc[k + 2] = d[2]
                        acc[k + 3] = d[3]
            wr = rd
            rd = nrd
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
