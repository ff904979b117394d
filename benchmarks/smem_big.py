"""Dynamic shared memory above 48 KiB: a tiled 1-D box filter staging 200 KiB per block,
cudalite against the same CUDA C kernel (CuPy RawKernel with its
``max_dynamic_shared_size_bytes`` raised), and both at 44 KiB tiles (48 KiB of shared
memory in all: no opt-in) to show what the big tile buys, in one run.

The filter: ``out[g] = sum(x[g - R .. g + R])`` with R = 2048 (zero outside the array),
float32, ``--n`` values (default 2**26).  A block of 1024 threads loads a tile of
``1024 * SEG`` values (its outputs and the 2R+1 halo) into dynamic shared memory, turns
it into its prefix sums (each thread scans SEG consecutive values, a block scan of the
1024 thread totals in a 4 KiB static array, each thread adds its offset) and writes
``P[j + R] - P[j - R - 1]`` for each output.  SEG = 50 (200 KiB tile, 47,103 outputs per
block, halo re-read 8.7%) or SEG = 11 (44 KiB, 7,167 outputs, halo re-read 57%).

GPU time per call: CUDA events around back-to-back calls, median of ``--reps``; results
checked against a float64 CuPy cumulative sum.  Ratios: CUDA C time / cudalite time
(above 1.00x: cudalite faster).  Nothing is asserted.

    python benchmarks/smem_big.py [--quick] [--reps 20] [--n 67108864]
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_util import (  # noqa: E402
    cupy_module, cupy_or_skip, gpu_ms, gpu_or_skip, ratio, size_options, sync_both, table,
)

THREADS = 1024
RADIUS = 2048
SEGS = {"big": 50, "small": 11}  # values per thread: tiles of 200 KiB and 44 KiB
INNER = 5

CUDA_C = r"""
#define THREADS %(threads)d
#define R %(radius)d

template <int SEG>
__device__ __forceinline__ void box(const float* x, float* out, long long n) {
    extern __shared__ float buf[];          // the tile: THREADS * SEG values
    __shared__ float tot[THREADS];          // per-thread totals, then their prefix sums
    const int T = THREADS * SEG, U = T - 2 * R - 1, tid = threadIdx.x;
    long long base = (long long)blockIdx.x * U - (R + 1);
    for (int j = tid; j < T; j += THREADS) {
        long long g = base + j;
        buf[j] = (g >= 0 && g < n) ? x[g] : 0.0f;
    }
    __syncthreads();
    float s = 0.0f;
    for (int k = 0; k < SEG; ++k) {
        s += buf[tid * SEG + k];
        buf[tid * SEG + k] = s;
    }
    tot[tid] = s;
    __syncthreads();
    for (int off = 1; off < THREADS; off *= 2) {
        float v = tot[tid];
        if (tid >= off) v += tot[tid - off];
        __syncthreads();
        tot[tid] = v;
        __syncthreads();
    }
    float offset = tot[tid] - s;
    for (int k = 0; k < SEG; ++k) buf[tid * SEG + k] += offset;
    __syncthreads();
    for (int j = R + 1 + tid; j < T - R; j += THREADS) {
        long long g = base + j;
        if (g < n) out[g] = buf[j + R] - buf[j - R - 1];
    }
}

extern "C" __global__ void box_big(const float* x, float* out, long long n) { box<%(big)d>(x, out, n); }
extern "C" __global__ void box_small(const float* x, float* out, long long n) { box<%(small)d>(x, out, n); }
""" % {"threads": THREADS, "radius": RADIUS, "big": SEGS["big"], "small": SEGS["small"]}


def tile(seg):
    """``(values per tile, outputs per block, dynamic shared memory bytes)``."""
    t = THREADS * seg
    return t, t - 2 * RADIUS - 1, 4 * t


def kernels(cuda, types):
    """The cudalite kernels ``{"big", "small"}`` (the tile size is a compile-time constant)."""

    def make(seg):
        T, U, _ = tile(seg)

        def box(x, out):
            buf = cuda.shared.array(0, types.float32)  # dynamic: the tile
            tot = cuda.shared.array(THREADS, types.float32)
            tid = cuda.threadIdx.x
            n = x.size
            base = cuda.blockIdx.x * U - (RADIUS + 1)
            for j in range(tid, T, THREADS):
                g = base + j
                buf[j] = x[g] if g >= 0 and g < n else types.float32(0)
            cuda.syncthreads()
            s = types.float32(0)
            for k in range(seg):
                s += buf[tid * seg + k]
                buf[tid * seg + k] = s
            tot[tid] = s
            cuda.syncthreads()
            off = 1
            while off < THREADS:
                v = tot[tid]
                if tid >= off:
                    v += tot[tid - off]
                cuda.syncthreads()
                tot[tid] = v
                cuda.syncthreads()
                off *= 2
            offset = tot[tid] - s
            for k in range(seg):
                buf[tid * seg + k] += offset
            cuda.syncthreads()
            for j in range(RADIUS + 1 + tid, T - RADIUS, THREADS):
                g = base + j
                if g < n:
                    out[g] = buf[j + RADIUS] - buf[j - RADIUS - 1]

        return cuda.jit(box)

    return {size: make(seg) for size, seg in SEGS.items()}


def compile_check(cc=(9, 0)):
    """GPU-less: ``{name: PTX for cc}`` of the cudalite kernels."""
    from cudalite import cuda, types

    sig = (types.float32[::1], types.float32[::1])
    return {name: k.compile_ptx_for(sig, cc=cc) for name, k in kernels(cuda, types).items()}


def main(argv=None):
    reps, n = size_options(argv, __doc__, "values to filter", 2**26, 2**24)
    got = gpu_or_skip("smem_big", min_cc=(8, 0))
    if got is None:
        return 0
    cuda, dev = got
    big_bytes = tile(SEGS["big"])[2] + 4 * THREADS
    optin = dev.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
    if big_bytes > optin:
        print(f"smem_big benchmark skipped: the big tile needs {big_bytes} bytes of shared memory per block, "
              f"{dev.name} allows {optin}")
        return 0
    cp = cupy_or_skip("smem_big")
    if cp is None:
        return 0
    import numpy as np

    from cudalite import types

    lite = kernels(cuda, types)
    peer = cupy_module(cp, CUDA_C, ("box_big", "box_small"))

    sync = sync_both(cuda, cp)

    x = cp.random.random(n, dtype=cp.float32)
    padded = cp.zeros(n + 2 * RADIUS + 1, cp.float64)
    padded[RADIUS + 1:RADIUS + 1 + n] = x
    prefix = cp.cumsum(padded)
    want = prefix[2 * RADIUS + 1:] - prefix[:n]
    del padded, prefix
    dx = cuda.as_cuda_array(x)
    n64 = np.int64(n)

    def check(out):
        return "ok" if bool(cp.allclose(out, want, rtol=1e-4, atol=1e-2)) else "BAD"

    rows, times = [], {}
    for size, seg in SEGS.items():
        T, U, dyn = tile(seg)
        blocks = -(-n // U)
        out_l, out_c = cp.zeros(n, cp.float32), cp.zeros(n, cp.float32)
        dout = cuda.as_cuda_array(out_l)
        k_l = lite[size][blocks, THREADS, 0, dyn]
        k_c = peer[f"box_{size}"]
        k_c.max_dynamic_shared_size_bytes = dyn
        t_l = gpu_ms(lambda: k_l(dx, dout), reps, INNER, cuda.event, cuda.event_elapsed_time, sync)
        t_c = gpu_ms(lambda: k_c((blocks,), (THREADS,), (x, out_c, n64), shared_mem=dyn), reps, INNER,
                     cp.cuda.Event, cp.cuda.get_elapsed_time, sync)
        times[size] = (t_l, t_c)
        rows.append([f"{dyn // 1024} KiB tile ({seg} per thread)", f"{(dyn + 4 * THREADS) // 1024}", blocks,
                     f"{T / U:.3f}", f"{t_l * 1e3:.1f}", f"{t_c * 1e3:.1f}", f"{8 * n / (t_l * 1e6):.0f}",
                     ratio(t_c, t_l), f"{check(out_l)}/{check(out_c)}"])
    cc = dev.compute_capability
    print(f"# device: {dev.name} (cc {cc[0]}.{cc[1]}, {optin // 1024} KiB shared memory per block opt-in); "
          f"CuPy {cp.__version__}; n = {n}; box filter radius {RADIUS}; {THREADS} threads per block; "
          f"GPU time per call, median of {reps} x {INNER}")
    table(["tile", "KiB shared per block", "blocks", "loads per output", "cudalite µs", "CUDA C µs",
           "cudalite GB/s (x + out)", "CUDA C / cudalite", "check (cudalite/CUDA C)"], rows)
    print(f"\nbig tile vs 44 KiB tile: cudalite {times['small'][0] / times['big'][0]:.2f}x faster, "
          f"CUDA C {times['small'][1] / times['big'][1]:.2f}x faster")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
