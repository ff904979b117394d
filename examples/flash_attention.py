"""FlashAttention forward on Hopper in cudalite Python: TMA + wgmma, warp-specialised
(sm_90a: H100/H200).  O = softmax(Q K^T * scale) V for Q, K, V of shape
(batch, heads, seq, head_dim) in float16 (or bfloat16), head_dim 64 or 128, causal or
not, O in the inputs' dtype -- ``torch.nn.functional.scaled_dot_product_attention``'s
forward.

The structure of FlashAttention-3's forward kernel, as a cudalite kernel:

* one block of 3 warpgroups (384 threads) per 128 query rows of one (batch, head);
* warpgroup 0 is the producer (``cuda.setmaxnreg.dec(24)``): one thread loads the
  block's Q tile once, then streams 128-key tiles of K and V through a ring of 2
  shared-memory stages with TMA (128-byte swizzle; a head_dim of 128 is two 64-column
  boxes), each signalled on a ``full`` mbarrier;
* warpgroups 1 and 2 are consumers (``cuda.setmaxnreg.inc(240)``), 64 query rows each:
  per key tile, S = Q K^T with ``cuda.wgmma.mma_async`` (m64n128k16, both operands from
  shared memory), the online softmax on S in registers (row maxima across the 4 threads
  of a row with ``shfl_xor``; ``exp2`` with the scale folded in; the running output
  rescaled with ``cuda.wgmma.scale_rows``), then O += P V with P from *registers* (the
  accumulator layout is the A operand's: pairs of probabilities packed to float16) and
  V read transposed (``trans_b``) from shared memory; the stage is released to the
  producer on its ``empty`` mbarrier;
* O is divided by the row sums and written with ``cuda.wgmma.store``.

``seq`` must be a multiple of 128.  ``benchmarks/flash_attention.py`` measures it against
torch's SDPA in the same run; ``python examples/flash_attention.py`` checks it.
"""

import math

import numpy as np

from cudalite import cuda, types
from cudalite.cuda import tma_pipeline as pipe

BM = BN = 128  # query rows per block, keys per tile
STAGES = 2
THREADS = 384
CONSUMERS = 256
LOG2E = 1.4426950408889634


def make_attention(head_dim=128, causal=False, dtype="f16", overlap=False, pingpong=False, stages=STAGES):
    """The kernel for ``head_dim`` (64 or 128), causal or not, ``dtype`` "f16"/"bf16";
    ``overlap``: the softmax of a tile overlaps the MMAs of the previous one within each
    consumer warpgroup (FlashAttention-3's intra-warpgroup pipelining).  Measured slower
    on an H200 (525-529 against 559-568 TFLOP/s at head_dim 128, seq 8k: the two consumer
    warpgroups already overlap each other's softmax and MMAs), so off by default; kept for
    ``benchmarks/flash_attention.py``'s comparison.  ``pingpong``: the two consumer
    warpgroups take turns at issuing MMAs (named barriers 1 and 2), so one's softmax runs
    while the other's MMAs do (FlashAttention-3's inter-warpgroup schedule; also measured
    slower, 525-531).  ``stages``: shared-memory stages of K and V (2 or 3: 160 or 224 KiB
    with head_dim 128)."""
    if head_dim not in (64, 128):
        raise ValueError(f"head_dim must be 64 or 128, not {head_dim}")
    if stages not in (2, 3):
        raise ValueError(f"stages must be 2 or 3 (shared memory holds at most 3 stages of K and V), not {stages}")
    halves = head_dim // 64  # 64-column boxes: a 128-byte swizzle row holds 64 16-bit values
    tile = BN * 128  # bytes of one 128-row, 64-column box
    q_bytes = halves * tile  # the block's Q tile (both consumers' rows)
    kv_bytes = halves * tile  # one tile of K (or V)
    stage_bytes = 2 * kv_bytes  # K then V
    smem_bytes = q_bytes + stages * stage_bytes  # 160 KiB with 2 stages, 224 KiB with 3
    ksteps = head_dim // 16  # MMAs of S = Q K^T (k16 each)
    pack = cuda.mma.pack_f16x2 if dtype == "f16" else cuda.mma.pack_bf16x2
    neg = types.float32(-math.inf)
    zero = types.float32(0)

    @cuda.jit(device=True, forceinline=True, fastmath=True)
    def issue_qk(smem, kbase, cw):
        """S = Q K^T of this warpgroup's 64 rows and the stage at ``kbase``, issued (not
        committed): 32 bytes of head_dim per m64n128k16 MMA."""
        dq = cuda.wgmma.make_desc(smem, cw * 64 * 128, 128, 16, 1024)
        dk = cuda.wgmma.make_desc(smem, kbase, 128, 16, 1024)
        sc = cuda.wgmma.mma_async(cuda.wgmma.zeros(BN), dq, dk, dtype, False)  # S = Q K^T: no accumulator read
        for kk in range(1, ksteps):
            h, off = kk // 4, (kk % 4) * 32
            dq = cuda.wgmma.make_desc(smem, h * tile + cw * 64 * 128 + off, 128, 16, 1024)
            dk = cuda.wgmma.make_desc(smem, kbase + h * tile + off, 128, 16, 1024)
            sc = cuda.wgmma.mma_async(sc, dq, dk, dtype)
        return sc

    @cuda.jit(device=True, forceinline=True, fastmath=True)
    def issue_pv(o, p, smem, vbase):
        """O += P V, issued: P from registers (16 keys per MMA), V MN-major at ``vbase``."""
        for kk in range(BN // 16):
            dv = cuda.wgmma.make_desc(smem, vbase + kk * 2048, 128, tile, 1024)
            o = cuda.wgmma.mma_async(o, p[kk], dv, dtype, True, False, True)
        return o

    @cuda.jit(device=True, forceinline=True, fastmath=True)
    def row_max(sc, m0, m1, diag, kcol, qrow):
        """The running maxima of the thread's two rows with this tile (masked keys skipped
        on the causal diagonal), over the 4 threads holding each row."""
        for i in range(0, BN // 2, 4):
            kc = kcol + 8 * (i // 4)
            m0 = max(m0, sc[i] if not diag or kc <= qrow else neg, sc[i + 1] if not diag or kc + 1 <= qrow else neg)
            m1 = max(m1, sc[i + 2] if not diag or kc <= qrow + 8 else neg,
                     sc[i + 3] if not diag or kc + 1 <= qrow + 8 else neg)
        m0 = max(m0, cuda.shfl_xor_sync(0xFFFFFFFF, m0, 1))
        m0 = max(m0, cuda.shfl_xor_sync(0xFFFFFFFF, m0, 2))
        m1 = max(m1, cuda.shfl_xor_sync(0xFFFFFFFF, m1, 1))
        m1 = max(m1, cuda.shfl_xor_sync(0xFFFFFFFF, m1, 2))
        return m0, m1

    @cuda.jit(device=True, forceinline=True, fastmath=True)
    def frag(sc, e, b0, b1, sl, diag, kc, qrow):
        """The A fragment of 16 keys (S elements e..e+7): exp2(s * sl - b), masked keys 0,
        packed in pairs; and the sums of the two rows' probabilities."""
        p0 = cuda.libdevice.exp2f(sc[e] * sl - b0)
        p1 = cuda.libdevice.exp2f(sc[e + 1] * sl - b0)
        p2 = cuda.libdevice.exp2f(sc[e + 2] * sl - b1)
        p3 = cuda.libdevice.exp2f(sc[e + 3] * sl - b1)
        p4 = cuda.libdevice.exp2f(sc[e + 4] * sl - b0)
        p5 = cuda.libdevice.exp2f(sc[e + 5] * sl - b0)
        p6 = cuda.libdevice.exp2f(sc[e + 6] * sl - b1)
        p7 = cuda.libdevice.exp2f(sc[e + 7] * sl - b1)
        if diag:  # masked keys weigh nothing
            p0 = p0 if kc <= qrow else zero
            p1 = p1 if kc + 1 <= qrow else zero
            p2 = p2 if kc <= qrow + 8 else zero
            p3 = p3 if kc + 1 <= qrow + 8 else zero
            p4 = p4 if kc + 8 <= qrow else zero
            p5 = p5 if kc + 9 <= qrow else zero
            p6 = p6 if kc + 8 <= qrow + 8 else zero
            p7 = p7 if kc + 9 <= qrow + 8 else zero
        return (pack(p0, p1), pack(p2, p3), pack(p4, p5), pack(p6, p7)), p0 + p1 + p4 + p5, p2 + p3 + p6 + p7

    @cuda.jit(device=True, forceinline=True, fastmath=True)
    def probs(sc, b0, b1, sl, diag, kcol, qrow):
        """P of the whole tile (8 A fragments of 16 keys) and the two rows' sums."""
        f0, x0, y0 = frag(sc, 0, b0, b1, sl, diag, kcol, qrow)
        f1, x1, y1 = frag(sc, 8, b0, b1, sl, diag, kcol + 16, qrow)
        f2, x2, y2 = frag(sc, 16, b0, b1, sl, diag, kcol + 32, qrow)
        f3, x3, y3 = frag(sc, 24, b0, b1, sl, diag, kcol + 48, qrow)
        f4, x4, y4 = frag(sc, 32, b0, b1, sl, diag, kcol + 64, qrow)
        f5, x5, y5 = frag(sc, 40, b0, b1, sl, diag, kcol + 80, qrow)
        f6, x6, y6 = frag(sc, 48, b0, b1, sl, diag, kcol + 96, qrow)
        f7, x7, y7 = frag(sc, 56, b0, b1, sl, diag, kcol + 112, qrow)
        return ((f0, f1, f2, f3, f4, f5, f6, f7), x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7,
                y0 + y1 + y2 + y3 + y4 + y5 + y6 + y7)

    @cuda.jit(device=True, forceinline=True, fastmath=True)
    def softmax_step(sc, m0, m1, l0, l1, sl, diag, kcol, qrow):
        """The online softmax of one tile of S: the new row maxima, the factors that rescale
        what O and the row sums hold (exp2 of the maxima's change), P, and the new sums:
        ``(p, m0, m1, l0, l1, a0, a1)``."""
        n0, n1 = row_max(sc, m0, m1, diag, kcol, qrow)
        a0 = cuda.libdevice.exp2f((m0 - n0) * sl)
        a1 = cuda.libdevice.exp2f((m1 - n1) * sl)
        p, s0, s1 = probs(sc, n0 * sl, n1 * sl, sl, diag, kcol, qrow)
        return p, n0, n1, l0 * a0 + s0, l1 * a1 + s1, a0, a1

    @cuda.jit(launch_bounds=(THREADS, 1), fastmath=True)
    def attention(tq, tk, tv, out, seq, scale_log2):
        smem = cuda.shared.array(0, np.uint8, alignment=1024)
        full = cuda.shared.array(stages, np.uint64, alignment=8)
        empty = cuda.shared.array(stages, np.uint64, alignment=8)
        qbar = cuda.shared.array(1, np.uint64, alignment=8)
        t = cuda.threadIdx.x
        wg = t // 128
        qt = cuda.gridDim.x - 1 - cuda.blockIdx.x if causal else cuda.blockIdx.x  # causal: longest rows first
        bh = cuda.blockIdx.y  # batch * heads + head
        row0 = bh * seq + qt * BM  # the block's first row in the (batch * heads * seq, head_dim) views
        n_tiles = qt + 1 if causal else seq // BN
        if t == 0:
            cuda.mbarrier.init(qbar, 0, 1)
            pipe.init(full, empty, CONSUMERS)  # (its fence covers qbar's init too)
        cuda.syncthreads()
        if wg == 0:
            cuda.setmaxnreg.dec(24)
            if t == 0:
                cuda.mbarrier.arrive_expect_tx(qbar, 0, q_bytes)
                for h in range(halves):
                    cuda.tma.load(smem[h * tile:(h + 1) * tile], tq, (row0, 64 * h), qbar, 0)
                for j in range(n_tiles):
                    s = pipe.producer_acquire(empty, j)
                    base = q_bytes + s * stage_bytes
                    pipe.producer_commit(full, s, stage_bytes)
                    krow = bh * seq + j * BN
                    for h in range(halves):
                        cuda.tma.load(smem[base + h * tile:base + (h + 1) * tile], tk, (krow, 64 * h), full, s)
                        cuda.tma.load(smem[base + kv_bytes + h * tile:base + kv_bytes + (h + 1) * tile], tv,
                                      (krow, 64 * h), full, s)
        else:
            cuda.setmaxnreg.inc(240)
            cw = wg - 1
            sl = types.float32(scale_log2)  # softmax scale * log2(e): exp(x * scale) = exp2(x * sl)
            m0 = m1 = neg  # running row maxima of this thread's two rows
            l0 = l1 = zero  # running row sums (of this thread's elements)
            o = cuda.wgmma.zeros(head_dim)
            r_lo, c_lo = cuda.wgmma.accumulator_coords(0)  # this thread's first row and column in a tile
            qrow = qt * BM + cw * 64 + r_lo  # the query of the thread's first row (the second: + 8)
            cuda.mbarrier.wait(qbar, 0, 0)
            if pingpong and cw == 1:
                cuda.named_barrier.arrive(1, 256)  # the first turn at the tensor cores is warpgroup 1's
            if not overlap:
                for j in range(n_tiles):
                    s = pipe.consumer_wait(full, j)
                    kbase = q_bytes + s * stage_bytes
                    if pingpong:
                        cuda.named_barrier.sync(1 + cw, 256)  # this warpgroup's turn to issue MMAs
                    cuda.wgmma.fence()
                    sc = issue_qk(smem, kbase, cw)
                    cuda.wgmma.commit_group()
                    if pingpong:
                        cuda.named_barrier.arrive(2 - cw, 256)  # the other warpgroup's turn
                    sc = cuda.wgmma.wait_group(0, sc)
                    p, m0, m1, l0, l1, a0, a1 = softmax_step(sc, m0, m1, l0, l1, sl, causal and j == qt,
                                                             j * BN + c_lo, qrow)
                    o = cuda.wgmma.scale_rows(o, a0, a1)
                    if pingpong:
                        cuda.named_barrier.sync(1 + cw, 256)
                    cuda.wgmma.fence()
                    o = issue_pv(o, p, smem, kbase + kv_bytes)
                    cuda.wgmma.commit_group()
                    if pingpong and (cw == 0 or j < n_tiles - 1):  # (warpgroup 2's last turn hands on nothing)
                        cuda.named_barrier.arrive(2 - cw, 256)
                    o = cuda.wgmma.wait_group(0, o)
                    pipe.consumer_release(empty, s)
            else:
                # FlashAttention-3's intra-warpgroup overlap: the softmax of tile j runs while
                # the tensor cores compute O += P V of tile j - 1
                s = pipe.consumer_wait(full, 0)
                kbase = q_bytes + s * stage_bytes
                if pingpong:
                    cuda.named_barrier.sync(1 + cw, 256)
                cuda.wgmma.fence()
                sc = issue_qk(smem, kbase, cw)
                cuda.wgmma.commit_group()
                if pingpong:
                    cuda.named_barrier.arrive(2 - cw, 256)
                sc = cuda.wgmma.wait_group(0, sc)
                diag = causal and qt == 0
                m0, m1 = row_max(sc, m0, m1, diag, c_lo, qrow)
                p, l0, l1 = probs(sc, m0 * sl, m1 * sl, sl, diag, c_lo, qrow)
                for j in range(1, n_tiles):
                    s_prev, vbase = s, kbase + kv_bytes
                    s = pipe.consumer_wait(full, j)
                    kbase = q_bytes + s * stage_bytes
                    if pingpong:
                        cuda.named_barrier.sync(1 + cw, 256)
                    cuda.wgmma.fence()
                    sc = issue_qk(smem, kbase, cw)
                    cuda.wgmma.commit_group()
                    p_prev = p
                    o = issue_pv(o, p_prev, smem, vbase)
                    cuda.wgmma.commit_group()
                    if pingpong:
                        cuda.named_barrier.arrive(2 - cw, 256)
                    sc = cuda.wgmma.wait_group(1, sc)  # S of tile j; O += P V of tile j - 1 still running
                    p, m0, m1, l0, l1, a0, a1 = softmax_step(sc, m0, m1, l0, l1, sl, causal and j == qt,
                                                             j * BN + c_lo, qrow)
                    o, p_prev = cuda.wgmma.wait_group(0, o, p_prev)  # (P of tile j - 1 is read until here)
                    pipe.consumer_release(empty, s_prev)
                    o = cuda.wgmma.scale_rows(o, a0, a1)
                if pingpong:
                    cuda.named_barrier.sync(1 + cw, 256)
                cuda.wgmma.fence()
                o = issue_pv(o, p, smem, kbase + kv_bytes)
                cuda.wgmma.commit_group()
                if pingpong and cw == 0:
                    cuda.named_barrier.arrive(2 - cw, 256)
                o = cuda.wgmma.wait_group(0, o)
                pipe.consumer_release(empty, s)
            l0 += cuda.shfl_xor_sync(0xFFFFFFFF, l0, 1)
            l0 += cuda.shfl_xor_sync(0xFFFFFFFF, l0, 2)
            l1 += cuda.shfl_xor_sync(0xFFFFFFFF, l1, 1)
            l1 += cuda.shfl_xor_sync(0xFFFFFFFF, l1, 2)
            o = cuda.wgmma.scale_rows(o, types.float32(1) / l0, types.float32(1) / l1)
            cuda.wgmma.store(o, out, row0 + cw * 64, 0)

    attention.smem_bytes = smem_bytes
    return attention


def tensor_maps(q2, k2, v2):
    """TMA maps of the (batch * heads * seq, head_dim) views: 128 x 64 boxes, 128-byte swizzle."""
    return tuple(cuda.make_tensor_map(x, (BM, 64), swizzle=128) for x in (q2, k2, v2))


def attention_forward(kernel, q, k, v, out, maps=None, stream=0):
    """``out = softmax(q @ k^T / sqrt(head_dim)) @ v`` on device arrays of shape (batch,
    heads, seq, head_dim), C-contiguous; ``maps``: :func:`tensor_maps` of their 2-d views."""
    b, h, seq, d = q.shape
    if seq % BM or k.shape != q.shape or v.shape != q.shape or out.shape != q.shape:
        raise ValueError(f"q, k, v, out must share one shape (batch, heads, seq, head_dim) with seq a multiple of "
                         f"{BM}: {q.shape}, {k.shape}, {v.shape}, {out.shape}")
    flat = (b * h * seq, d)
    if maps is None:
        maps = tensor_maps(q.reshape(flat), k.reshape(flat), v.reshape(flat))
    scale_log2 = LOG2E / math.sqrt(d)
    kernel[(seq // BM, b * h), THREADS, stream, kernel.smem_bytes](*maps, out.reshape(flat), seq, scale_log2)


def reference(q, k, v, causal=False):
    """NumPy's float32 attention (the check)."""
    qf, kf, vf = (x.astype(np.float32) for x in (q, k, v))
    s = qf @ np.swapaxes(kf, -1, -2) / math.sqrt(q.shape[-1])
    if causal:
        n = q.shape[-2]
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    s = np.exp(s - s.max(-1, keepdims=True))
    return (s / s.sum(-1, keepdims=True)) @ vf


def main():
    if cuda.get_current_device().compute_capability != (9, 0):
        print("wgmma needs an sm_90 GPU (H100/H200)")
        return
    rng = np.random.default_rng(0)
    for d, causal in ((128, False), (64, True)):
        q, k, v = (rng.standard_normal((2, 3, 512, d)).astype(np.float16) for _ in range(3))
        out = cuda.device_array(q.shape, np.float16)
        attention_forward(make_attention(d, causal), cuda.to_device(q), cuda.to_device(k), cuda.to_device(v), out)
        err = np.abs(out.copy_to_host().astype(np.float32) - reference(q, k, v, causal)).max()
        print(f"head_dim {d}, causal={causal}: max abs error {err:.2e}")


if __name__ == "__main__":
    main()
