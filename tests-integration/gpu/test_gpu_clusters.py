"""Thread-block clusters on cc >= 9.0 (``@cuda.jit(cluster_dims=...)``,
``cuda.cg.this_cluster()``): the cluster intrinsics' values, a cluster-wide sum through
distributed shared memory (``map_shared_rank``) against NumPy, and the launch error for
a grid that is not a whole number of clusters."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import cuda

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("thread-block clusters")]

THREADS = 128
CLUSTER = 4


@pytest.fixture(autouse=True)
def _sm90():
    if cuda.get_current_device().compute_capability < (9, 0):
        pytest.skip("thread-block clusters need cc >= 9.0")


@cuda.jit(cluster_dims=(2, 2, 1))
def cluster_ids(out):
    cl = cuda.cg.this_cluster()
    if cuda.threadIdx.x == 0:
        b = cuda.blockIdx.x + cuda.gridDim.x * cuda.blockIdx.y
        x, y, z = cl.block_index()
        dx, dy, dz = cl.dim_blocks()
        out[b, 0] = cl.block_rank()
        out[b, 1] = cl.num_blocks()
        out[b, 2] = x
        out[b, 3] = y
        out[b, 4] = dx * 100 + dy * 10 + dz


def test_cluster_intrinsics():
    out = np.zeros((16, 5), np.int32)
    cluster_ids[(4, 4), 32](out)
    bx, by = np.meshgrid(np.arange(4), np.arange(4), indexing="xy")
    bx, by = bx.ravel(), by.ravel()
    np.testing.assert_array_equal(out[:, 2], bx % 2)
    np.testing.assert_array_equal(out[:, 3], by % 2)
    np.testing.assert_array_equal(out[:, 0], (bx % 2) + 2 * (by % 2))  # rank: x fastest
    assert (out[:, 1] == 4).all() and (out[:, 4] == 221).all()


@cuda.jit(cluster_dims=CLUSTER)
def cluster_sum(a, out):
    partial = cuda.shared.array(THREADS, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    partial[t] = a[i] if i < a.size else 0.0
    cuda.syncthreads()
    s = THREADS // 2
    while s > 0:
        if t < s:
            partial[t] += partial[t + s]
        cuda.syncthreads()
        s //= 2
    cl = cuda.cg.this_cluster()
    cl.sync()  # every block's partial[0] is ready
    if cl.block_rank() == 0 and t == 0:
        total = 0.0
        for r in range(cl.num_blocks()):
            total += cl.map_shared_rank(partial, r)[0]  # another block's shared memory
        out[cuda.blockIdx.x // CLUSTER] = total
    cl.sync()  # keep the other blocks (and their shared memory) alive until rank 0 has read


def test_cluster_reduction_through_distributed_shared_memory():
    n = THREADS * CLUSTER * 64 - 37
    a = np.random.default_rng(3).random(n)
    blocks = -(-n // THREADS)
    blocks += -blocks % CLUSTER
    out = np.zeros(blocks // CLUSTER)
    cluster_sum[blocks, THREADS](a, out)
    padded = np.zeros(blocks * THREADS)
    padded[:n] = a
    np.testing.assert_allclose(out, padded.reshape(-1, CLUSTER * THREADS).sum(axis=1), rtol=1e-12)


def test_grid_must_be_whole_clusters():
    with pytest.raises(ValueError, match=r"kernel 'cluster_sum' has cluster_dims=\(4, 1, 1\): its grid \(6, 1, 1\) "
                                         "must be a multiple of the cluster shape"):
        cluster_sum[6, THREADS](np.zeros(10), np.zeros(2))
