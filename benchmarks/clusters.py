"""Thread-block clusters (cc >= 9.0): cudalite's ``@cuda.jit(cluster_dims=...)`` kernels
against the same algorithms in CUDA C (``__cluster_dims__``, ``cg::this_cluster()``,
``cluster.map_shared_rank``; CuPy RawModule, NVRTC for the current device), and against
versions without clusters (global atomics), all in one run.

* ``sum``: a float32 sum of ``--n`` values (default 2**26).  Each block sums a tile of
  ``TPB * ITEMS`` values into shared memory (tree), then block 0 of each cluster adds the
  other blocks' partial sums by reading their shared memory (distributed shared
  memory) and makes one atomic per cluster; the baseline makes one atomic per block.
  Cluster sizes 2, 4 and 8.
* ``histogram``: ``NBINS`` (16384) uint32 bins of int32 data, the bins spread over the
  shared memory of the blocks of a cluster (``NBINS / C`` per block): every element is
  an atomic add on the shared memory of the block owning its bin; at the end each block
  adds its bins to the global histogram.  Baseline: one global atomic per element.

GPU time per call: CUDA events around ``INNER`` back-to-back calls, median of
``--reps``; results checked against CuPy.  Ratios: CUDA C time / cudalite time (above
1.00x: cudalite faster).  Nothing is asserted.

    python benchmarks/clusters.py [--quick] [--reps 20] [--n 67108864]
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_util import (  # noqa: E402
    cupy_module, gpu_ms, peers_or_skip, ratio, size_options, sync_both, table,
)

TPB = 256  # threads per block
ITEMS = 8  # values per thread in the sum's tile
CLUSTERS = (2, 4, 8)
NBINS = 16384  # histogram bins: 64 KiB of uint32 (above a block's 48 KiB of static shared
# memory), 8-32 KiB per block of a cluster
HIST_BLOCKS_PER_SM = 4
INNER = 10

CUDA_C = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define TPB %(tpb)d
#define ITEMS %(items)d
#define NBINS %(nbins)d

__device__ __forceinline__ void block_sum(const float* x, long long n, float* partial) {
    int tid = threadIdx.x;
    long long base = (long long)blockIdx.x * (TPB * ITEMS) + tid;
    float acc = 0.0f;
    for (int j = 0; j < ITEMS; ++j) {
        long long k = base + (long long)j * TPB;
        if (k < n) acc += x[k];
    }
    partial[tid] = acc;
    __syncthreads();
    for (int s = TPB / 2; s > 0; s /= 2) {
        if (tid < s) partial[tid] += partial[tid + s];
        __syncthreads();
    }
}

#define CLUSTER_SUM(C)                                                                          \
extern "C" __global__ void __cluster_dims__(C, 1, 1) cluster_sum_##C(const float* x, float* out, \
                                                                      long long n) {            \
    __shared__ float partial[TPB];                                                              \
    block_sum(x, n, partial);                                                                   \
    cg::cluster_group cl = cg::this_cluster();                                                  \
    cl.sync();                                                                                  \
    if (cl.block_rank() == 0 && threadIdx.x == 0) {                                             \
        float total = 0.0f;                                                                     \
        for (unsigned r = 0; r < cl.num_blocks(); ++r) total += cl.map_shared_rank(&partial[0], r)[0]; \
        atomicAdd(out, total);                                                                  \
    }                                                                                           \
    cl.sync();                                                                                  \
}

#define CLUSTER_HIST(C)                                                                         \
extern "C" __global__ void __cluster_dims__(C, 1, 1) cluster_hist_##C(const int* data,          \
                                                                       unsigned* hist, long long n) { \
    __shared__ unsigned bins[NBINS / C];                                                        \
    cg::cluster_group cl = cg::this_cluster();                                                  \
    for (int j = threadIdx.x; j < NBINS / C; j += blockDim.x) bins[j] = 0;                      \
    cl.sync();                                                                                  \
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;                 \
         i += (long long)gridDim.x * blockDim.x) {                                              \
        int b = data[i];                                                                        \
        unsigned* owner = cl.map_shared_rank(&bins[0], (unsigned)(b / (NBINS / C)));            \
        atomicAdd(owner + b %% (NBINS / C), 1u);                                                \
    }                                                                                           \
    cl.sync();                                                                                  \
    unsigned base = cl.block_rank() * (NBINS / C);                                              \
    for (int j = threadIdx.x; j < NBINS / C; j += blockDim.x) atomicAdd(&hist[base + j], bins[j]); \
}

CLUSTER_SUM(2)
CLUSTER_SUM(4)
CLUSTER_SUM(8)
CLUSTER_HIST(2)
CLUSTER_HIST(4)
CLUSTER_HIST(8)

extern "C" __global__ void atomic_sum(const float* x, float* out, long long n) {
    __shared__ float partial[TPB];
    block_sum(x, n, partial);
    if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}

extern "C" __global__ void atomic_hist(const int* data, unsigned* hist, long long n) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        atomicAdd(&hist[data[i]], 1u);
}
""" % {"tpb": TPB, "items": ITEMS, "nbins": NBINS}

C_NAMES = tuple(f"cluster_{k}_{c}" for k in ("sum", "hist") for c in CLUSTERS) + ("atomic_sum", "atomic_hist")


def kernels(cuda, types):
    """The cudalite kernels: ``{"cluster_sum_C", "cluster_hist_C" (C in CLUSTERS),
    "atomic_sum", "atomic_hist"}``."""

    @cuda.jit(device=True)
    def block_sum(x, partial):
        tid = cuda.threadIdx.x
        base = cuda.blockIdx.x * (TPB * ITEMS) + tid
        acc = types.float32(0)
        for j in range(ITEMS):
            k = base + j * TPB
            if k < x.size:
                acc += x[k]
        partial[tid] = acc
        cuda.syncthreads()
        s = TPB // 2
        while s > 0:
            if tid < s:
                partial[tid] += partial[tid + s]
            cuda.syncthreads()
            s //= 2

    def cluster_sum(x, out):
        partial = cuda.shared.array(TPB, types.float32)
        block_sum(x, partial)
        cl = cuda.cg.this_cluster()
        cl.sync()  # every block's partial[0] is ready
        if cl.block_rank() == 0 and cuda.threadIdx.x == 0:
            total = types.float32(0)
            for r in range(cl.num_blocks()):
                total += cl.map_shared_rank(partial, r)[0]
            cuda.atomic.add(out, 0, total)
        cl.sync()  # the other blocks' shared memory lives until rank 0 has read it

    def atomic_sum(x, out):
        partial = cuda.shared.array(TPB, types.float32)
        block_sum(x, partial)
        if cuda.threadIdx.x == 0:
            cuda.atomic.add(out, 0, partial[0])

    def make_hist(per_block):
        def cluster_hist(data, hist):
            bins = cuda.shared.array(per_block, types.uint32)
            cl = cuda.cg.this_cluster()
            tid = cuda.threadIdx.x
            for j in range(tid, per_block, cuda.blockDim.x):
                bins[j] = 0
            cl.sync()
            for i in range(cuda.grid(1), data.size, cuda.gridsize(1)):
                b = data[i]
                owner = cl.map_shared_rank(bins, b // per_block)
                cuda.atomic.add(owner, b % per_block, types.uint32(1))
            cl.sync()
            base = cl.block_rank() * per_block
            for j in range(tid, per_block, cuda.blockDim.x):
                cuda.atomic.add(hist, base + j, bins[j])

        return cluster_hist

    def atomic_hist(data, hist):
        for i in range(cuda.grid(1), data.size, cuda.gridsize(1)):
            cuda.atomic.add(hist, data[i], types.uint32(1))

    out = {"atomic_sum": cuda.jit(atomic_sum), "atomic_hist": cuda.jit(atomic_hist)}
    for c in CLUSTERS:
        out[f"cluster_sum_{c}"] = cuda.jit(cluster_dims=c)(cluster_sum)
        out[f"cluster_hist_{c}"] = cuda.jit(cluster_dims=c)(make_hist(NBINS // c))
    return out


def compile_check(cc=(9, 0)):
    """GPU-less: ``{name: PTX for cc}`` of every cudalite kernel of this benchmark."""
    from cudalite import cuda, types

    sigs = {"sum": (types.float32[::1], types.float32[::1]), "hist": (types.int32[::1], types.uint32[::1])}
    return {name: k.compile_ptx_for(sigs[name.split("_")[1]], cc=cc) for name, k in kernels(cuda, types).items()}


def main(argv=None):
    reps, n = size_options(argv, __doc__, "values to reduce / histogram", 2**26, 2**24)
    got = peers_or_skip("clusters", min_cc=(9, 0))
    if got is None:
        return 0
    cuda, dev, cp = got
    import numpy as np

    from cudalite import types

    lite = kernels(cuda, types)
    peer = cupy_module(cp, CUDA_C, C_NAMES)

    sync = sync_both(cuda, cp)

    def lite_ms(run):
        return gpu_ms(run, reps, INNER, cuda.event, cuda.event_elapsed_time, sync)

    def peer_ms(run):
        return gpu_ms(run, reps, INNER, cp.cuda.Event, cp.cuda.get_elapsed_time, sync)

    x = cp.random.random(n, dtype=cp.float32)
    want_sum = float(cp.sum(x, dtype=cp.float64))
    data = cp.random.randint(0, NBINS, n, dtype=cp.int32)
    want_hist = cp.bincount(data, minlength=NBINS).astype(cp.uint32)
    dx, ddata = cuda.as_cuda_array(x), cuda.as_cuda_array(data)
    n64 = np.int64(n)
    sum_blocks = -(-n // (TPB * ITEMS))
    sum_blocks += -sum_blocks % max(CLUSTERS)  # whole clusters of every size
    hist_blocks = dev.MULTIPROCESSOR_COUNT * HIST_BLOCKS_PER_SM
    hist_blocks += -hist_blocks % max(CLUSTERS)

    def check_sum(res):
        return "ok" if abs(float(res[0]) - want_sum) <= 1e-3 * abs(want_sum) else "BAD"

    def check_hist(res):
        return "ok" if bool((cp.asarray(res) == want_hist).all()) else "BAD"

    rows = []
    for kind, blocks, check, bytes_read in (("sum", sum_blocks, check_sum, 4 * n),
                                            ("hist", hist_blocks, check_hist, 4 * n)):
        for c in CLUSTERS + (None,):
            name = f"cluster_{kind}_{c}" if c else f"atomic_{kind}"
            dt = cp.float32 if kind == "sum" else cp.uint32
            size = 1 if kind == "sum" else NBINS
            out_l, out_c = cp.zeros(size, dt), cp.zeros(size, dt)
            dout = cuda.as_cuda_array(out_l)
            src_l, src_c = (dx, x) if kind == "sum" else (ddata, data)
            k_l = lite[name][blocks, TPB]
            k_c = peer[name]
            k_l(src_l, dout)  # compile, and one clean run to check
            k_c((blocks,), (TPB,), (src_c, out_c, n64))
            sync()
            checks = f"{check(out_l)}/{check(out_c)}"
            t_l = lite_ms(lambda: k_l(src_l, dout))
            t_c = peer_ms(lambda: k_c((blocks,), (TPB,), (src_c, out_c, n64)))
            label = f"cluster of {c}, distributed shared memory" if c else "no cluster, global atomics"
            rows.append([kind, label, blocks, f"{t_l * 1e3:.1f}", f"{t_c * 1e3:.1f}",
                         f"{bytes_read / (t_l * 1e6):.0f}", ratio(t_c, t_l), checks])
    cc = dev.compute_capability
    print(f"# device: {dev.name} (cc {cc[0]}.{cc[1]}); CuPy {cp.__version__}; n = {n}; {TPB} threads per block; "
          f"GPU time per call, median of {reps} x {INNER} calls")
    table(["kernel", "variant", "blocks", "cudalite µs", "CUDA C µs", "cudalite GB/s", "CUDA C / cudalite",
           "check (cudalite/CUDA C)"], rows)
    print("# sum: one tile of TPB*ITEMS values per block; histogram: "
          f"{NBINS} bins, {HIST_BLOCKS_PER_SM} blocks per SM, grid-stride")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
