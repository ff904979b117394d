"""A Hopper GEMM in cudalite Python: TMA + wgmma, warp-specialised and persistent
(sm_90a: H100/H200).  C = A @ B.T with A (M x K) and B (N x K) both K-major (row-major
with K contiguous, as ``torch.nn.functional.linear`` takes them), float16, bfloat16 or
8-bit floats (e4m3, e5m2) in, float32 accumulation, C of any real dtype (float16 or
bfloat16, as cuBLAS writes them).

The structure of CUTLASS's warp-specialised kernels, written as a cudalite kernel:

* every stage holds 128 bytes of K per row: 64 elements of 16 bits, 128 of 8 bits;
* a block of 3 warpgroups (384 threads), one block per SM, each looping over output
  tiles of 128 x 256 (``tile = blockIdx.x, blockIdx.x + gridDim.x, ...``, in groups of
  8 tile rows so neighbouring blocks share tiles of B in L2);
* warpgroup 0 is the *producer*: it gives registers away (``cuda.setmaxnreg.dec(40)``)
  and one of its threads streams tiles of A (128 rows) and B (256 rows) into a ring of 4
  shared-memory stages (16-bit inputs: 128 x 64 and 256 x 64) with the Tensor Memory
  Accelerator (``cuda.tma.load``, 128-byte swizzle), each stage's arrival signalled on
  its ``full`` mbarrier (the ring's phases: ``cudalite.cuda.tma_pipeline``);
* warpgroups 1 and 2 are *consumers* (``cuda.setmaxnreg.inc(232)``): each owns 64 rows
  of the tile, a 64 x 256 float32 accumulator (128 registers per thread), and runs
  ``cuda.wgmma.mma_async`` (m64n256k16; k32 for 8-bit floats) on the stage's tiles
  through shared-memory descriptors, keeping one group of MMAs in flight
  (``wait_group(1)``) and releasing the stage before it to the producer on its
  ``empty`` mbarrier;
* the epilogue converts the accumulator and writes it to C (``cuda.wgmma.store``) while
  the producer already loads the next tile's first stages.

M must be a multiple of 128, N of 256, K of 64 (128 for 8-bit floats).
``benchmarks/wgmma_gemm.py`` measures it against cuBLAS (torch) in the same run;
``python examples/wgmma_gemm.py`` checks it.
"""

import numpy as np

from cudalite import cuda
from cudalite.cuda import tma_pipeline as pipe

BM, BN = 128, 256
ROW_BYTES = 128  # of K per stage and row: the 128-byte swizzle's width
STAGES = 4
A_BYTES = BM * ROW_BYTES  # one stage's tile of A (16 KiB) ...
B_BYTES = BN * ROW_BYTES  # ... and of B (32 KiB)
STAGE_BYTES = A_BYTES + B_BYTES
SMEM_BYTES = STAGES * STAGE_BYTES  # 192 KiB of dynamic shared memory
GROUP_M = 8
THREADS = 384
CONSUMERS = 256  # threads of the two consumer warpgroups: each arrives on a stage's empty barrier


#: input dtype -> bytes per element
ITEM = {"f16": 2, "bf16": 2, "e4m3": 1, "e5m2": 1}


def bk_of(dtype):
    """K per stage: the elements in 128 bytes."""
    return ROW_BYTES // ITEM[dtype]


@cuda.jit(device=True, forceinline=True)
def tile_coords(tile, m_tiles, in_group):
    """The (row, column) tile of C that persistent tile number ``tile`` computes: tiles go
    column by column within groups of GROUP_M tile rows (``in_group`` = GROUP_M * n_tiles
    tiles), so the blocks running at once share A's rows and B's columns in L2."""
    first_m = (tile // in_group) * GROUP_M
    size_m = min(m_tiles - first_m, GROUP_M)
    return first_m + (tile % in_group) % size_m, (tile % in_group) // size_m


def make_gemm(dtype="f16"):
    """The kernel for ``dtype`` inputs ("f16", "bf16", "e4m3", "e5m2")."""
    BK = bk_of(dtype)
    steps = ROW_BYTES // 32  # MMAs per stage: each reads 32 bytes of K (k16 of 16-bit, k32 of 8-bit floats)

    @cuda.jit(launch_bounds=(THREADS, 1))
    def gemm(ta, tb, c, m_tiles, n_tiles, k_tiles):
        smem = cuda.shared.array(0, np.uint8, alignment=1024)
        full = cuda.shared.array(STAGES, np.uint64, alignment=8)
        empty = cuda.shared.array(STAGES, np.uint64, alignment=8)
        t = cuda.threadIdx.x
        wg = t // 128
        if t == 0:
            pipe.init(full, empty, CONSUMERS)
        cuda.syncthreads()
        ntiles = m_tiles * n_tiles
        in_group = GROUP_M * n_tiles
        if wg == 0:
            cuda.setmaxnreg.dec(40)
            if t == 0:
                it = 0
                for tile in range(cuda.blockIdx.x, ntiles, cuda.gridDim.x):
                    tm, tn = tile_coords(tile, m_tiles, in_group)
                    for kt in range(k_tiles):
                        s = pipe.producer_acquire(empty, it)
                        base = s * STAGE_BYTES
                        pipe.producer_commit(full, s, STAGE_BYTES)
                        cuda.tma.load(smem[base:base + A_BYTES], ta, (tm * BM, kt * BK), full, s)
                        cuda.tma.load(smem[base + A_BYTES:base + STAGE_BYTES], tb, (tn * BN, kt * BK), full, s)
                        it += 1
        else:
            cuda.setmaxnreg.inc(232)
            half = (wg - 1) * (64 * 128)  # this warpgroup's 64 rows of the A tile (128-byte rows)
            it = 0
            for tile in range(cuda.blockIdx.x, ntiles, cuda.gridDim.x):
                tm, tn = tile_coords(tile, m_tiles, in_group)
                acc = cuda.wgmma.zeros(BN)
                for kt in range(k_tiles):
                    s = pipe.consumer_wait(full, it)
                    base = s * STAGE_BYTES
                    cuda.wgmma.fence()
                    for kk in range(steps):  # four m64n256k16 (k32) steps, 32 bytes of K each
                        da = cuda.wgmma.make_desc(smem, base + half + kk * 32, 128, 16, 1024)
                        db = cuda.wgmma.make_desc(smem, base + A_BYTES + kk * 32, 128, 16, 1024)
                        acc = cuda.wgmma.mma_async(acc, da, db, dtype, kt > 0 or kk > 0)
                    cuda.wgmma.commit_group()
                    acc = cuda.wgmma.wait_group(1, acc)  # the previous stage's MMAs are done ...
                    if kt > 0:
                        pipe.consumer_release(empty, (it - 1) % STAGES)  # ... so the producer may refill it
                    it += 1
                acc = cuda.wgmma.wait_group(0, acc)
                pipe.consumer_release(empty, (it - 1) % STAGES)
                cuda.wgmma.store(acc, c, tm * BM + (wg - 1) * 64, tn * BN)

    return gemm


def tensor_maps(a, b, dtype="f16"):
    """TMA maps of A (128 x BK boxes) and B (256 x BK boxes), 128-byte swizzle."""
    bk = bk_of(dtype)
    return cuda.make_tensor_map(a, (BM, bk), swizzle=128), cuda.make_tensor_map(b, (BN, bk), swizzle=128)


def matmul(gemm, a, b, c, maps=None, stream=0, dtype="f16"):
    """C = A @ B.T on device arrays (A: M x K, B: N x K, C: M x N) with the kernel of
    :func:`make_gemm` for ``dtype``; ``maps``: the tensor maps of A and B when made
    already (:func:`tensor_maps`)."""
    m, k = a.shape
    n, bk = b.shape[0], bk_of(dtype)
    if m % BM or n % BN or k % bk or b.shape[1] != k or c.shape != (m, n):
        raise ValueError(f"shapes {a.shape} @ {b.shape}.T -> {c.shape}: M must be a multiple of {BM}, N of "
                         f"{BN}, K of {bk}")
    ta, tb = maps if maps is not None else tensor_maps(a, b, dtype)
    sms = cuda.get_current_device().MULTIPROCESSOR_COUNT
    tiles = (m // BM) * (n // BN)
    gemm[min(sms, tiles), THREADS, stream, SMEM_BYTES](ta, tb, c, m // BM, n // BN, k // bk)


def main():
    if cuda.get_current_device().compute_capability != (9, 0):
        print("wgmma needs an sm_90 GPU (H100/H200)")
        return
    rng = np.random.default_rng(0)
    m, n, k = 1024, 768, 512
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((n, k)).astype(np.float16)
    c = cuda.device_array((m, n), np.float16)
    matmul(make_gemm(), cuda.to_device(a), cuda.to_device(b), c)
    ref = a.astype(np.float32) @ b.astype(np.float32).T
    err = np.abs(c.copy_to_host().astype(np.float32) - ref).max() / np.abs(ref).max()
    print(f"{m}x{n}x{k}: max relative error {err:.2e}")


if __name__ == "__main__":
    main()
