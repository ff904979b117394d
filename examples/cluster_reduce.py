"""A sum reduction with thread-block clusters (Hopper, cc >= 9.0; beyond numba-cuda):
each block reduces its slice in shared memory, then block 0 of every cluster adds the
other blocks' partial sums by reading their shared memory directly (distributed shared
memory, ``cluster.map_shared_rank``), and one atomic per cluster (instead of one per
block) adds the cluster's sum to the result.

``python examples/cluster_reduce.py``
"""

import numpy as np

from cudalite import cuda, types

TPB = 256  # threads per block (a power of two)
CLUSTER = 8  # blocks per cluster (at most 8: the portable cluster size)


@cuda.jit(cluster_dims=CLUSTER)
def cluster_sum(arr, result):
    partial = cuda.shared.array(TPB, dtype=types.float64)
    tid = cuda.threadIdx.x
    acc = types.float64(0.)
    for i in range(cuda.grid(1), arr.size, cuda.gridsize(1)):
        acc += arr[i]
    partial[tid] = acc
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if tid < s:
            partial[tid] += partial[tid + s]
        cuda.syncthreads()
        s //= 2

    cluster = cuda.cg.this_cluster()
    cluster.sync()  # every block of the cluster has its partial sum in partial[0]
    if cluster.block_rank() == 0 and tid == 0:
        total = types.float64(0.)
        for rank in range(cluster.num_blocks()):
            total += cluster.map_shared_rank(partial, rank)[0]
        cuda.atomic.add(result, 0, total)
    cluster.sync()  # a block's shared memory must outlive the reads of the others


def main():
    if cuda.get_current_device().compute_capability < (9, 0):
        print("skipped: thread-block clusters need a GPU of compute capability 9.0 or newer")
        return
    n = 1_000_003
    arr = np.random.default_rng(0).random(n)
    result = np.zeros(1, dtype=np.float64)
    d_arr, d_result = cuda.to_device(arr), cuda.to_device(result)
    cluster_sum[16 * CLUSTER, TPB](d_arr, d_result)  # the grid is a whole number of clusters
    np.testing.assert_allclose(d_result.copy_to_host()[0], arr.sum(), rtol=1e-10)
    print("OK")


if __name__ == "__main__":
    main()
